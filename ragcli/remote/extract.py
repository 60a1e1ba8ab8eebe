"""A fetched HTML page read as the HTML reader reads a file (blocks/html.py), after its
main content is taken out of the navigation, sidebars, footer and banners around it; and
the anchors of its headings, which a chunk's citation links to.

The main content is the page's one `<main>` (or `role="main"`) landmark when it has one,
as documentation generators write (Sphinx, MkDocs, Docusaurus); else what trafilatura
keeps. Measured on Python's HTML documentation (docs/ingest.md): both keep every heading,
code block and table the page body has; readability-lxml dropped headings and code."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urljoin

from ragcli.ingest.loaders.base import Section


@dataclass
class Page:
    title: str | None
    sections: list[Section]
    links: list[str]  # every link on the page, absolute, fragments dropped
    content_links: list[str]  # the links inside its main content
    anchors: dict[str, str] = field(default_factory=dict)  # heading title -> #anchor
    extractor: str = ""  # which took the main content: landmark, trafilatura, whole page


def read_page(html: str, url: str, main_content: bool = True) -> Page:
    from bs4 import BeautifulSoup

    from ragcli.blocks.html import main_landmark
    from ragcli.ingest.loaders.markup import html_sections

    soup = BeautifulSoup(html, "lxml")
    base = url
    if (tag := soup.find("base", href=True)) is not None:
        base = urljoin(url, str(tag["href"]))
    links = _links(soup, base)
    anchors = heading_anchors(soup)
    # A heading's permalink (Sphinx's and MkDocs' `¶`) is no part of its title.
    for permalink in soup.select("a.headerlink"):
        permalink.decompose()
    html = str(soup)
    title = soup.title.get_text(" ", strip=True) if soup.title else None
    body, extractor = (html, "whole page")
    content_links = links
    if main_content:
        main = main_landmark(soup)
        if main is not None:
            body, extractor = _page(title, str(main)), "landmark"
            content_links = _links(main, base)
        elif (kept := _trafilatura(html)) is not None:
            body, extractor = _page(title, kept), "trafilatura"
    return Page(title, html_sections(body), links, content_links, anchors, extractor)


def _page(title: str | None, body: str) -> str:
    from html import escape

    return f"<html><head><title>{escape(title or '')}</title></head><body>{body}</body></html>"


def _trafilatura(html: str) -> str | None:
    import trafilatura

    kept = trafilatura.extract(
        html,
        output_format="html",
        include_tables=True,
        include_formatting=True,
        include_links=False,
        include_comments=False,
        favor_recall=True,
    )
    return kept or None


def _links(soup, base: str) -> list[str]:
    found = []
    for anchor in soup.find_all("a", href=True):
        href = str(anchor["href"]).strip()
        if not href or href.startswith(("#", "mailto:", "javascript:", "tel:", "data:")):
            continue
        found.append(urljoin(base, href).split("#", 1)[0])
    return list(dict.fromkeys(found))


def heading_anchors(soup) -> dict[str, str]:
    """Each heading's title and the anchor a browser scrolls to: its own id, the id of
    the section it opens (Sphinx: `<section id=…><h2>`), or its permalink (`¶`)."""
    from ragcli.blocks.inline import heading_title

    anchors: dict[str, str] = {}
    for heading in soup.find_all(["h1", "h2", "h3", "h4", "h5", "h6"]):
        anchor = heading.get("id")
        parent = heading.parent
        if not anchor and parent is not None and parent.get("id"):
            first = parent.find(["h1", "h2", "h3", "h4", "h5", "h6"])
            if first is heading:
                anchor = parent.get("id")
        if not anchor:
            link = heading.find("a", href=re.compile(r"^#."))
            if link is not None:
                anchor = str(link["href"])[1:]
        if anchor:
            title = heading_title(heading.get_text(" "))
            anchors.setdefault(title, str(anchor))
    return anchors
