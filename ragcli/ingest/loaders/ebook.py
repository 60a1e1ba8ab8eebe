"""EPUB with ebooklib: chapters in reading order (the spine), each under its title from
the table of contents, else its first heading."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ragcli.ingest.loaders.base import LoadedFile, LoadError, Section
from ragcli.ingest.loaders.containers import check_zip, library_error
from ragcli.ingest.loaders.markup import html_sections


def load_epub(path: Path) -> LoadedFile:
    check_zip(path, "EPUB book")
    import warnings

    from ebooklib import ITEM_DOCUMENT, epub

    try:
        with warnings.catch_warnings():  # ebooklib warns about its own future defaults
            warnings.simplefilter("ignore")
            book = epub.read_epub(str(path), {"ignore_ncx": True})
        titles = _toc_titles(book.toc)
        sections: list[Section] = []
        for number, (item_id, _linear) in enumerate(book.spine, start=1):
            item = book.get_item_with_id(item_id)
            if item is None or item.get_type() != ITEM_DOCUMENT:
                continue
            html = item.get_content().decode("utf-8", errors="replace")
            for section in html_sections(html):
                title = titles.get(item.get_name()) or _first_heading(html) or section.heading
                section.heading = title
                section.locator = title or f"chapter {number}"
                sections.append(section)
    except LoadError:
        raise
    except Exception as exc:  # ebooklib raises many kinds on damaged books
        raise library_error("EPUB book", exc) from None
    return LoadedFile("epub", sections)


def _toc_titles(toc: Iterable[Any]) -> dict[str, str]:
    """Chapter file → its title in the table of contents (first entry wins)."""
    titles: dict[str, str] = {}
    for entry in toc:
        if isinstance(entry, tuple):  # (Section, [children])
            head, children = entry
            _add_title(titles, head)
            titles.update({k: v for k, v in _toc_titles(children).items() if k not in titles})
        else:
            _add_title(titles, entry)
    return titles


def _add_title(titles: dict[str, str], entry: Any) -> None:
    href = getattr(entry, "href", None)
    title = (getattr(entry, "title", None) or "").strip()
    if href and title:
        titles.setdefault(posixpath.normpath(href.split("#")[0]), title)


def _first_heading(html: str) -> str | None:
    from bs4 import BeautifulSoup

    heading = BeautifulSoup(html, "html.parser").find(["h1", "h2", "h3"])
    text = heading.get_text(" ", strip=True) if heading else ""
    return text or None
