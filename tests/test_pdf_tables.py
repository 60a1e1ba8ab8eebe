"""Tables in real PDFs (tests/data/formats/README.md) read as rows, cited by page, table and
row; their words not read again as the page's loose text."""

from __future__ import annotations

from ragcli.ingest.loaders import load
from ragcli.ingest.loaders.base import LoadOptions
from ragcli.ingest.loaders.pdf import load_pdf
from ragcli.text.rows import is_row_line
from tests.support.common import ROOT

DATA = ROOT / "tests" / "data" / "formats" / "pdf"


def test_a_revision_table_is_rows_cited_by_page_table_and_row():
    loaded = load(DATA / "geobase-nhnc1-pages-3-and-14.pdf")
    tables = [s for s in loaded.sections if s.rows]
    assert {s.heading for s in tables} == {"page 1, table 1"}  # the diagram is no table
    rows = "\n".join(s.text for s in tables).split("\n")
    assert len(rows) == 8
    assert rows[7].startswith("Date: August 2004; Version: 2004.1; Description: The object")
    assert rows[1].endswith("major review of the hydro network model through: Proposal of options")
    last = tables[-1]
    assert last.rows[-1] == 8 and last.locator.startswith("page 1, table 1, rows ")
    page_text = next(s for s in loaded.sections if s.page == 1 and not s.rows).text
    assert "Draft 01" not in page_text and "Nova Scotia" not in page_text  # not twice
    assert loaded.notes == ["page 2: ruled like a table, but none found (read as text)"]


def test_merged_cells_are_read_in_every_place_they_cover():
    loaded = load_pdf(DATA / "example.pdf", LoadOptions(), lambda: False)
    (table,) = [s for s in loaded.sections if s.rows]
    continent, capital, currency = table.text.split("\n")[:3]
    assert continent == (
        "A: Continent; Indonesia: Asia; Germany: Europe; Austria: Europe; France: Europe; "
        "Vatican: Europe"  # "Europe" spans four columns
    )
    assert capital.startswith("A: Capital; Indonesia: Jakarta; Germany: Berlin; Austria: Vienna")
    assert currency == (
        "A: Currency; Indonesia: Rupia; Germany: EUR (€); Austria: EUR (€); France: EUR (€); "
        "Vatican: -"
    )
    assert table.rows == (1, 2, 3, 4) and table.page == 1
    assert all(is_row_line(line) for line in table.text.split("\n"))  # answers quote rows
    assert "Jakarta" not in loaded.sections[0].text
    assert "Namespaces are one honking great idea" in loaded.sections[0].text
