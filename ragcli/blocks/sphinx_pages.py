"""The page a Sphinx `:doc:` or `:ref:` link names, whose title the link shows when it
gives none.

`:doc:`/deploying/index`` names a page by its path without suffix: from the Sphinx source
folder (the one holding conf.py) when it starts with "/", else from the linking page's
folder. Sphinx shows that page's first title ("Deploying to Production"), and so does
ragcli (blocks/rst.py reads it from the page's head). Only the top of the page is read:
its title is there, and parsing every linked page whole would double a Sphinx site's
ingest. A page that is not found, or lies outside the source folder (the linking page's
folder when there is no conf.py), leaves the link as written. A page's title is read
when a page linking to it is read; a new title does not make those pages read again.

`:ref:`label`` names the section after a `.. _label:` line in any page of the source
folder; the pages are searched for such lines (their text, not a parse) once a process,
and only under a folder holding conf.py."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

PAGE_SUFFIXES = (".rst", ".rest", ".md")  # Sphinx's own, and MyST's Markdown
HEAD_LINES = 80  # a page's title is in its first lines, after labels and comments
ROOT_SEARCH_DEPTH = 8  # folders climbed from a page looking for conf.py


def linked_page(target: str, source: str) -> Path | None:
    """The file of the page `target` names, linked from the file `source`; None when it is
    not found or lies outside the source folder."""
    if not source or source.startswith("<"):  # parsed text with no file behind it
        return None
    folder = Path(source).parent
    root = sphinx_root(folder)
    fence = root or folder
    base = fence if target.startswith("/") else folder
    name = target.strip().lstrip("/")
    if not name:
        return None
    fence = fence.resolve()
    for suffix in PAGE_SUFFIXES:
        page = (base / (name + suffix)).resolve()
        if page.is_relative_to(fence) and page.is_file():
            return page
    return None


@lru_cache(maxsize=256)
def sphinx_root(folder: Path) -> Path | None:
    """The nearest folder at or above `folder` holding conf.py."""
    for candidate in [folder, *folder.parents][:ROOT_SEARCH_DEPTH]:
        if (candidate / "conf.py").is_file():
            return candidate
    return None


def page_head(page: Path) -> str:
    """The first lines of `page`, where its title is; "" when it cannot be read."""
    try:
        with page.open(encoding="utf-8", errors="replace") as lines:
            return "".join(line for _, line in zip(range(HEAD_LINES), lines, strict=False))
    except OSError:
        return ""


def labelled_page(label: str, source: str) -> Path | None:
    """The page under the Sphinx source folder of `source` that defines `.. _label:`;
    None outside a Sphinx project (no conf.py above), where there is no folder to search."""
    if not source or source.startswith("<") or not label.strip():
        return None
    root = sphinx_root(Path(source).parent)
    return _pages_by_label(root).get(label.strip().lower()) if root else None


@lru_cache(maxsize=16)
def _pages_by_label(root: Path) -> dict[str, Path]:
    """Each label defined under `root` (lower-cased, as Sphinx matches it): its page. Read
    once a process: an ingest run is short, and a label added while it runs reads as
    written until the next."""
    pages: dict[str, Path] = {}
    for page in sorted([*root.rglob("*.rst"), *root.rglob("*.rest")]):
        try:
            text = page.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            line = line.strip()
            if line.startswith(".. _") and line.endswith(":") and not line.startswith(".. __"):
                pages.setdefault(line[4:-1].strip().lower(), page)
    return pages
