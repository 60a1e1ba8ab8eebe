"""Tables in a PDF's text layer, found by pdfplumber from their ruling lines, read as the
`header: value; …` rows a sheet's are (tables.py) and cited by page, table and row
(`page 4, table 2, row 7`).

pdfplumber parses a page's every character and line (pdfminer.six), many times slower
than pypdf's text: only pages whose drawing could rule a table (their path objects'
bounds, counted by pypdfium2 in C) are given to it. On those pages its text outside the
tables replaces pypdf's, so a table's words are not read twice. A table drawn without
ruling lines is read as the page's text, as before. A page ruled like a table where none
was found is named in the ingest notes."""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from ragcli.ingest.loaders.base import Section, rows_locator
from ragcli.ingest.loaders.sheets import SECTION_CHARS
from ragcli.ingest.loaders.tables import cell_text, header_names, row_line

# A page is given to pdfplumber when its drawing could rule a table: at least this many
# distinct horizontal and vertical rules (a table of two rows and two columns has three
# of each; a code example's frame two), or one path of many segments (a grid drawn at
# once).
MIN_RULES = 3
GRID_SEGMENTS = 12
# A path object this thin (points) is a rule; a thicker one a box, whose four sides count.
THIN = 3.0
# A grid more than this share of whose places merged cells cover is a drawing (a diagram's
# overlapping boxes), not a table: a real table's merged cells are a few headings.
MAX_COVERED = 0.3

Box = tuple[float, float, float, float]


@dataclass
class PageTables:
    number: int
    text: str  # the page's text outside its tables
    tables: list[list[list[str]]] = field(default_factory=list)


def ruled_pages(path: Path, pages: int) -> list[int]:
    """The pages (1-based) whose drawing could rule a table, from their path objects'
    bounds alone (pypdfium2, in C: a fraction of pypdf's time to read the text)."""
    import pypdfium2 as pdfium

    found = []
    try:
        document = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError:
        return []
    try:
        for index in range(min(pages, len(document))):
            page = document[index]
            try:
                if _ruled(page):
                    found.append(index + 1)
            finally:
                page.close()
    finally:
        document.close()
    return found


def _ruled(page: Any) -> bool:
    import pypdfium2.raw as pdfium_c

    rows: set[int] = set()
    columns: set[int] = set()
    for obj in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_PATH], max_depth=2):
        if pdfium_c.FPDFPath_CountSegments(obj.raw) >= GRID_SEGMENTS:
            return True
        # pypdfium2 5 names it get_bounds, 4 get_pos.
        left, bottom, right, top = (getattr(obj, "get_bounds", None) or obj.get_pos)()
        width, height = right - left, top - bottom
        if height <= THIN < width:
            rows.add(round(bottom))
        elif width <= THIN < height:
            columns.add(round(left))
        elif width > THIN and height > THIN:
            rows.update((round(bottom), round(top)))
            columns.update((round(left), round(right)))
        if len(rows) >= MIN_RULES and len(columns) >= MIN_RULES:
            return True
    return False


def read_tables(
    path: Path, pages: list[int], stopping: Callable[[], bool]
) -> tuple[list[PageTables], list[int]]:
    """The tables of `pages`, and the pages ruled like a table where none was found."""
    import pdfplumber

    # pdfminer logs what it makes of each font ("Could not get FontBBox …") as warnings,
    # which would print over the progress line: nothing a reader of the tables can act on.
    logging.getLogger("pdfminer").setLevel(logging.ERROR)
    found: list[PageTables] = []
    ruled_empty: list[int] = []
    with pdfplumber.open(path) as pdf:
        for number in pages:
            if stopping():
                break
            page = pdf.pages[number - 1]
            try:
                tables = [t for t in page.find_tables() if _is_table(t)]
                if not tables:
                    if _grid(page):
                        ruled_empty.append(number)
                    continue
                outside = page.filter(partial(_outside, [t.bbox for t in tables]))
                text = outside.extract_text() or ""
                found.append(PageTables(number, text, [cells(t) for t in tables]))
            finally:
                page.close()  # pdfplumber keeps every object of a page until closed
    return found, ruled_empty


def _is_table(table: Any) -> bool:
    """Two rows and two columns with text, and not mostly merged cells."""
    rows = table.extract()
    filled = [row for row in rows if any(cell_text(c) for c in row)]
    if len(filled) < 2 or max((len(r) for r in filled), default=0) < 2:
        return False
    places = [cell for row in table.rows for cell in row.cells]
    return sum(cell is None for cell in places) <= MAX_COVERED * len(places)


def _grid(page: Any) -> bool:
    edges = page.edges
    horizontal = sum(1 for e in edges if e["orientation"] == "h")
    vertical = sum(1 for e in edges if e["orientation"] == "v")
    return horizontal >= MIN_RULES and vertical >= MIN_RULES


def _outside(boxes: list[Box], obj: dict[str, Any]) -> bool:
    """Whether `obj` is no character of a table (lines and boxes are no text)."""
    if obj.get("object_type") != "char":
        return True
    x = (obj["x0"] + obj["x1"]) / 2
    y = (obj["top"] + obj["bottom"]) / 2
    return not any(x0 <= x <= x1 and top <= y <= bottom for x0, top, x1, bottom in boxes)


def cells(table: Any) -> list[list[str]]:
    """A table's cells, each merged cell's text in every place it covers, as a reader reads
    it: a heading over two columns heads both, a value spanning rows is each row's.
    pdfplumber gives None for the places a merged cell covers beyond its first; the cell
    covering each is found from the grid's geometry."""
    text = table.extract()
    boxes = [cell for row in table.rows for cell in row.cells if cell is not None]
    xs = sorted({round(box[0], 1) for box in boxes} | {round(max(b[2] for b in boxes), 1)})
    ys = sorted({round(box[1], 1) for box in boxes} | {round(max(b[3] for b in boxes), 1)})
    result: list[list[str]] = []
    for r, row in enumerate(table.rows):
        line = []
        for c, box in enumerate(row.cells):
            if box is not None:
                line.append(_cell(text[r][c]))
            else:
                line.append(_covering(text, table.rows, xs, ys, r, c))
        result.append(line)
    return result


def _covering(text: Any, rows: Any, xs: list[float], ys: list[float], r: int, c: int) -> str:
    """The text of the merged cell covering place (r, c): one above or to its left."""
    if c + 1 >= len(xs) or r + 1 >= len(ys):
        return ""
    x, y = (xs[c] + xs[c + 1]) / 2, (ys[r] + ys[r + 1]) / 2
    for r2 in range(r, -1, -1):
        for c2 in range(c, -1, -1):
            box = rows[r2].cells[c2] if c2 < len(rows[r2].cells) else None
            if box is not None and box[0] <= x <= box[2] and box[1] <= y <= box[3]:
                return _cell(text[r2][c2])
    return ""


def _cell(value: str | None) -> str:
    """A cell's text on one line, without the private-use glyphs of icon fonts."""
    glyphs = "".join(ch for ch in value or "" if unicodedata.category(ch) != "Co")
    return cell_text(glyphs)


def table_sections(
    heading: str | None, number: int, tables: list[list[list[str]]]
) -> list[Section]:
    """Each table's rows as a sheet's are (`header: value; …`), under `page 4, table 2`
    (after the page's outline heading, when it has one), rows numbered from the first
    below the header; a few rows per section, so a chunk's rows are its own."""
    sections: list[Section] = []
    for index, rows in enumerate(tables, start=1):
        name = f"page {number}, table {index}"
        title = f"{heading} > {name}" if heading else name
        # A blank header cell is named by its column's letter, as a sheet's is: a row's
        # first field then reads `A: Population`, which answers quote as a row.
        header = header_names(rows[0])
        lines: list[str] = []
        numbers: list[int] = []
        size = 0
        for row_number, row in enumerate(rows[1:], start=1):
            line = row_line(header, row)
            if not line:
                continue
            if lines and size + len(line) > SECTION_CHARS:
                sections.append(_section(title, number, lines, numbers))
                lines, numbers, size = [], [], 0
            lines.append(line)
            numbers.append(row_number)
            size += len(line) + 1
        if lines:
            sections.append(_section(title, number, lines, numbers))
    return sections


def _section(title: str, page: int, lines: list[str], numbers: list[int]) -> Section:
    locator = rows_locator(title, numbers, span=True)
    return Section("\n".join(lines), page=page, heading=title, locator=locator, rows=tuple(numbers))
