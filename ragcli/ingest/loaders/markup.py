"""HTML: the visible text of a page, under its title. Block elements (paragraphs, list
items, headings, table rows) start lines; inline elements (`<code>`, `<a>`, `<em>`) stay
inside their sentence, so "the <code>?</code> operator" reads as one sentence. A data
table's rows read as `header: value; header: value` lines, as a Word table's do."""

from __future__ import annotations

import re
from pathlib import Path

from ragcli.ingest.loaders.base import LoadedFile, Section
from ragcli.ingest.loaders.encoding import read_text
from ragcli.ingest.loaders.tables import table_lines

BLOCKS = (
    "address article aside blockquote body br dd details div dl dt figcaption figure footer "
    "form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section summary table tr ul"
).split()
# Elements whose text a reader sees on a paragraph of its own: a blank line around them.
PARAGRAPHS = set("blockquote dd dl h1 h2 h3 h4 h5 h6 ol p pre table ul".split())
# A cell holding one of these is a page's layout, not data: such a table keeps its text.
LAYOUT = "address article blockquote div dl form h1 h2 h3 h4 h5 h6 ol p pre section table ul"


def load_html(path: Path) -> LoadedFile:
    text, notes = read_text(path)
    return LoadedFile("html", html_sections(text), notes=notes)


def html_sections(text: str) -> list[Section]:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(text, "html.parser")
    title = soup.title.get_text(strip=True) if soup.title else None
    for hidden in soup(["script", "style", "noscript", "template", "head", "svg"]):
        hidden.decompose()
    for table in reversed(soup.find_all("table")):  # inner tables first
        _data_table_as_rows(table)
    for element in soup.find_all(BLOCKS):
        gap = "\n\n" if element.name in PARAGRAPHS else "\n"
        element.insert_before(gap)
        element.insert_after(gap)
    for cell in soup.find_all(["td", "th"]):  # cells of a row stay on the row's line
        cell.insert_after(" | ")
    visible = soup.get_text()
    # Whitespace inside a line collapses; runs of blank lines become one paragraph break.
    lines = [re.sub(r"[ \t\xa0]+", " ", line).strip() for line in visible.splitlines()]
    body = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    return [Section(body, heading=title or None)]


def _data_table_as_rows(table) -> None:
    """A table of plain cells becomes its rows as `header: value` lines (its first row
    names the columns), so a value keeps the name of its column."""
    rows = [row for row in table.find_all("tr") if row.find_parent("table") is table]
    cells = [row.find_all(["td", "th"], recursive=False) for row in rows]
    if not rows or any(cell.find(LAYOUT.split()) for row in cells for cell in row):
        return
    lines = table_lines([[cell.get_text(" ", strip=True) for cell in row] for row in cells])
    table.replace_with("\n\n" + "\n".join(lines) + "\n\n")
