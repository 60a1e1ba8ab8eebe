"""The parts of answers from table rows (tests/test_table_row_answers.py asks real files):
row lines as units, the rows a question names, each chunk's row numbers, the citation of
quoted rows, HTML tables as rows."""

from __future__ import annotations

import pytest

from ragcli.embedding.embedder import bundled_model_dir
from ragcli.embedding.wordpieces import TokenCounter
from ragcli.ingest.chunker import Chunker
from ragcli.ingest.loaders import Section
from ragcli.ingest.loaders.base import compact_rows, expand_rows, rows_locator
from ragcli.ingest.loaders.markup import html_sections
from ragcli.ingest.loaders.sheets import sheet_sections
from ragcli.ingest.loaders.tables import row_line
from ragcli.llm.answer_parse import parse_answer
from ragcli.llm.segment import units
from ragcli.llm.table_rows import named_rows
from ragcli.models import ChunkMetadata, RetrievedChunk
from ragcli.pipeline.row_citations import cite_quoted_rows


@pytest.mark.parametrize("first", ["", "# Prices\n"])
def test_a_row_line_is_a_unit_of_its_own(first):
    text = first + "Item: Brontide lamp; Price: 349; Currency: EUR\nItem: Osprey chair; Price: 285"
    found = units(text)
    assert [u.kind for u in found] == (["heading"] if first else []) + ["row", "row"]
    assert found[-2].text == "Item: Brontide lamp; Price: 349; Currency: EUR"


def test_prose_with_a_colon_is_not_a_row():
    text = "Note: restart the service after an upgrade; the old workers stop at once.\nMore."
    assert [u.kind for u in units(text)] == ["sentence", "sentence"]


def test_a_row_is_named_by_a_distinctive_cell_in_full():
    rows = [
        "Item: Brontide lamp; Category: Lamp; Currency: EUR",
        "Item: Solace lamp; Category: Lamp; Currency: EUR",
        "Item: Osprey chair; Category: Chair; Currency: EUR",
        "Item: Pallas table; Category: Table; Currency: EUR",
    ]
    assert named_rows("What does the Brontide lamp cost?", rows) == {0}  # not every lamp
    assert named_rows("Prices in EUR?", rows) == set()  # every row holds EUR
    assert named_rows("Compare the Osprey chair and the Pallas table", rows) == {2, 3}
    assert named_rows("Which lamps do you sell?", rows) == {0, 1}
    assert named_rows("What does a sofa cost?", rows) == set()
    # Every word of a cell: "desk" does not name the "IT desk" (a stopword is a word too).
    owners = ["Task: Order a key; Owner: IT desk", "Task: Book a room; Owner: Facilities"]
    assert named_rows("What is the phone number of the support desk?", owners) == set()
    assert named_rows("What does the IT desk do?", owners) == {0}


def test_sheet_sections_keep_each_lines_row_number():
    rows = [["Item", "Price"], ["A lamp", 3], [None, None], ["A chair", 4]]
    (section,) = sheet_sections("Prices", rows)
    assert section.rows == (2, 4)  # the empty row 3 has no line
    assert section.locator == "Prices, rows 2–4"


@pytest.mark.parametrize("first", ["", "# Prices\n"])
def test_a_split_sheet_section_gives_each_chunk_its_own_rows(first):
    lines = [f"Item: Product number {n}; Price: {n * 7}; Currency: EUR" for n in range(2, 80)]
    section = Section(
        first + "\n".join(lines), heading="Prices", locator="x", rows=tuple(range(2, 80))
    )
    chunks = Chunker(TokenCounter(bundled_model_dir()), max_tokens=128).chunk([section])
    assert len(chunks) > 2
    for chunk in chunks:
        numbers = expand_rows(chunk.extra["rows"])
        body = [ln for ln in chunk.text.split("\n") if ln and not ln.startswith("#")]
        assert body == [f"Item: Product number {n}; Price: {n * 7}; Currency: EUR" for n in numbers]
        assert chunk.extra["locator"] == f"Prices, rows {numbers[0]}–{numbers[-1]}"


def test_rows_are_stored_compactly_and_read_back():
    assert compact_rows([2, 3, 4, 6, 9, 10]) == "2-4,6,9-10"
    assert expand_rows("2-4,6,9-10") == [2, 3, 4, 6, 9, 10]
    assert rows_locator("Prices", [42]) == "Prices, row 42"
    assert rows_locator(None, [4, 6]) == "rows 4, 6"
    assert rows_locator("Prices", [20, 21, 22]) == "Prices, rows 20–22"


@pytest.mark.parametrize("first", ["", "# Prices\n"])
def test_a_source_is_cited_by_the_rows_its_answer_quotes(first):
    text = first + "Item: A; Price: 1\nItem: B; Price: 2\nItem: C; Price: 3"
    meta = ChunkMetadata(
        chunk_id="c", source_file="/x/prices.xlsx", file_type="xlsx", heading="Prices",
        locator="Prices, rows 20–22", rows="20-22",
    )  # fmt: skip
    source = RetrievedChunk(content=text, score=1.0, metadata=meta)
    one = cite_quoted_rows(parse_answer("- Item: B; Price: 2 [1]"), [source])
    assert one[0].metadata.locator == "Prices, row 21"
    two = cite_quoted_rows(
        parse_answer("- Item: A; Price: 1 [1]\n- Item: C; Price: 3 [1]"), [source]
    )
    assert two[0].metadata.locator == "Prices, rows 20, 22"
    paraphrase = cite_quoted_rows(parse_answer("B costs 2. [1]"), [source])
    assert paraphrase[0].metadata.locator == "Prices, rows 20–22"
    assert source.metadata.locator == "Prices, rows 20–22"  # the retrieved chunk is kept


def test_an_html_data_table_reads_as_rows_with_column_names():
    page = (
        "<html><head><title>Price list</title></head><body><p>Our lamps.</p><table>"
        "<tr><th>Item</th><th>Price</th></tr><tr><td>Brontide <b>lamp</b></td><td>349</td></tr>"
        "</table><table><tr><td><p>A layout cell.</p></td><td>menu</td></tr></table></body></html>"
    )
    (section,) = html_sections(page)
    rows = [u.text for u in units(section.text) if u.kind == "row"]
    assert rows == ["Item: Brontide lamp; Price: 349"]  # as an answer quotes the row
    assert "A layout cell." in section.text  # a layout table keeps its text


def test_a_sphinx_html_table_reads_as_rows_though_its_cells_are_paragraphs():
    """Sphinx writes each cell of a table as a `<p>` (a line block as `<div>`s): such a
    table had read as layout, a paragraph a cell, so that `%j` stood apart from "Day of the
    year". A table naming its columns is data unless a cell holds a page's structure."""
    code = '<code class="docutils literal notranslate"><span class="pre">%j</span></code>'
    page = (
        "<html><body><h1>strftime</h1><table class='docutils'><thead><tr>"
        "<th class='head'><p>Directive</p></th><th class='head'><p>Meaning</p></th>"
        "<th class='head'><p>Example</p></th></tr></thead><tbody><tr>"
        f"<td><p>{code}</p></td><td><p>Day of the year as a\nzero-padded number.</p></td>"
        "<td><div class='line-block'><div class='line'>001, 002,</div>"
        "<div class='line'>…, 366</div></div></td></tr></tbody></table>"
        "<table><tr><th>Menu</th></tr><tr><td><h2>News</h2><p>Text.</p></td></tr></table>"
        "</body></html>"
    )
    sections = html_sections(page)
    rows = [u.text for s in sections for u in units(s.text) if u.kind == "row"]
    assert rows == [
        "Directive: `%j`; Meaning: Day of the year as a zero-padded number.; "
        "Example: 001, 002, …, 366"
    ]
    # The second table, whose cell holds a heading, stays layout (no "Menu: News …" row).
    assert any(s.text.startswith("## News") for s in sections)
    # A `<th>` opening each row names the row, not the columns (docutils' field lists as
    # a table): its cells of paragraphs and lists are read as blocks, as before.
    fields = (
        "<html><body><h1>f</h1><table class='docutils field-list'><tr>"
        "<th>Parameters:</th><td><ul><li>x – the value</li></ul></td></tr><tr>"
        "<th>Returns:</th><td><p>a thing</p></td></tr></table></body></html>"
    )
    (section,) = html_sections(fields)
    assert "- x – the value" in section.text
    assert [u for u in units(section.text) if u.kind == "row"] == []


def test_a_tables_empty_corner_cell_names_nothing():
    # `|  | Community | Team |` over `| Price | Free | $6 |`: the first column names the row.
    assert row_line(["", "Community", "Team"], ["Price", "Free", "$6"]) == (
        "Price; Community: Free; Team: $6"
    )
