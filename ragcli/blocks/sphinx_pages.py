"""The title a Sphinx `:doc:` link shows when it gives none: the linked page's own title.

`:doc:`/deploying/index`` names a page by its path without suffix: from the Sphinx source
folder (the one holding conf.py) when it starts with "/", else from the linking page's
folder. Sphinx shows that page's first title ("Deploying to Production"), and so does
ragcli. Only the top of the page is read: its title is there, and parsing every linked
page whole would double a Sphinx site's ingest. A page that is not found, or lies outside
the source folder (the linking page's folder when there is no conf.py), leaves the link
as written. A page's title is read when a page linking to it is read; renaming it does
not re-read those pages."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

PAGE_SUFFIXES = (".rst", ".rest", ".md")  # Sphinx's own, and MyST's Markdown
HEAD_LINES = 80  # a page's title is in its first lines, after labels and comments
ROOT_SEARCH_DEPTH = 8  # folders climbed from a page looking for conf.py


def linked_page_title(target: str, source: str) -> str | None:
    """The title of the page `target` names, linked from the file `source`; None when it
    cannot be read."""
    if not source or source.startswith("<"):  # parsed text with no file behind it
        return None
    folder = Path(source).parent
    root = sphinx_root(folder)
    fence = root or folder
    base = fence if target.startswith("/") else folder
    name = target.strip().lstrip("/")
    if not name:
        return None
    for suffix in PAGE_SUFFIXES:
        page = (base / (name + suffix)).resolve()
        if page.is_relative_to(fence.resolve()) and page.is_file():
            return _title(page, page.stat().st_mtime_ns)
    return None


@lru_cache(maxsize=256)
def sphinx_root(folder: Path) -> Path | None:
    """The nearest folder at or above `folder` holding conf.py."""
    for candidate in [folder, *folder.parents][:ROOT_SEARCH_DEPTH]:
        if (candidate / "conf.py").is_file():
            return candidate
    return None


@lru_cache(maxsize=1024)
def _title(page: Path, mtime_ns: int) -> str | None:  # mtime: a changed page is read again
    try:
        with page.open(encoding="utf-8", errors="replace") as lines:
            head = "".join(line for _, line in zip(range(HEAD_LINES), lines, strict=False))
    except OSError:
        return None
    if page.suffix == ".md":
        from ragcli.blocks.markdown import read_markdown

        blocks = read_markdown(head).blocks
    else:
        from ragcli.blocks.rst import read_rst

        blocks = read_rst(head).blocks  # no source: the head's own links stay as written
    from ragcli.blocks.model import Heading

    return next((b.title for b in blocks if isinstance(b, Heading) and b.title), None)
