"""HTML: the visible text of a page, read into blocks (ragcli/blocks/html.py) and cut into
one section per heading. Inline elements (`<code>`, `<a>`, `<em>`) stay inside their
sentence, so "the <code>?</code> operator" reads as one sentence; a data table is a table
block, whose rows an answer quotes as `header: value; header: value`."""

from __future__ import annotations

from pathlib import Path

from ragcli.ingest.loaders.base import LoadedFile, Section
from ragcli.ingest.loaders.encoding import read_text


def load_html(path: Path) -> LoadedFile:
    text, notes = read_text(path)
    return LoadedFile("html", html_sections(text, main_only=True), notes=notes)


def html_sections(text: str, main_only: bool = False) -> list[Section]:
    """The page's sections; what comes before its first heading sits under its title.
    `main_only`: of its main content, when it marks one (blocks/html.py)."""
    from ragcli.blocks.html import html_document
    from ragcli.blocks.markdown import with_paths
    from ragcli.ingest.loaders.text import block_sections

    title, blocks = html_document(text, main_only)
    sections = list(block_sections(with_paths(blocks)))
    for section in sections:
        section.heading = section.heading or title
    return sections
