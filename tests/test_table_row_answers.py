"""Answers from table rows: a spreadsheet, CSV or Word/HTML table row is a unit an answer
can quote, with its column names, cited by its own row (`Prices, row 42`). Real files are
written with openpyxl, python-docx and the csv module, ingested, and asked in standard
mode with the offline backend."""

from __future__ import annotations

import csv
import random
import re
from pathlib import Path

import pytest

from ragcli import service
from ragcli.ingest.chunker import Chunker
from ragcli.llm.offline.rendering import NO_ANSWER
from tests.support.common import settings_for

ADJECTIVES = "Alder Birch Cedar Dune Ember Fjord Granite Heron Iris Juniper Linden Marlow".split()
THINGS = "stool shelf desk rug kettle mirror vase clock curtain bench".split()
LAMP_ROW = 42  # the Brontide lamp's row in the Prices sheet (row 1 is the header)
CHAIR_ROW = 9


def catalogue(path: Path) -> Path:
    """Prices (Item, Price, Currency) over three sections, and a sheet about stock."""
    import openpyxl

    names = [f"{a} {t}" for a in ADJECTIVES for t in THINGS]
    random.Random(7).shuffle(names)
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Prices"
    sheet.append(["Item", "Price", "Currency"])
    prices = random.Random(11)
    for row in range(2, 61):
        if row == LAMP_ROW:
            sheet.append(["Brontide lamp", 349, "EUR"])
        elif row == CHAIR_ROW:
            sheet.append(["Osprey chair", 285, "EUR"])
        else:
            sheet.append([names.pop(), prices.randint(20, 900), "EUR"])
    stock = book.create_sheet("Opening hours")
    stock.append(["Shop", "Weekdays", "Saturday"])
    stock.append(["Harbour Street", "9:00–18:00", "10:00–16:00"])
    stock.append(["Old Town", "10:00–19:00", "closed"])
    book.save(path)
    return path


def suppliers(path: Path) -> Path:
    rows = [
        ("Amsel Paper", "Germany", 12),
        ("Brightwater Glass", "Ireland", 20),
        ("Halvard Textiles", "Norway", 35),
        ("Corvo Ceramics", "Italy", 18),
        ("Morrow Metals", "Scotland", 9),
        ("Tejo Cork", "Portugal", 27),
        ("Vltava Wood", "Czechia", 14),
    ]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Supplier", "Country", "Lead time (days)"])
        writer.writerows(rows)
    return path


def warranty(path: Path) -> Path:
    import docx

    document = docx.Document()
    document.add_heading("After-sales handbook", level=0)
    document.add_heading("Warranty terms", level=1)
    document.add_paragraph("Every product carries a warranty against manufacturing faults.")
    rows = [
        ("Product", "Warranty", "Service contact"),
        ("Kestrel fan", "5 years", "Ines Duarte"),
        ("Brontide lamp", "2 years", "Tomas Lind"),
        ("Pallas table", "10 years", "Ines Duarte"),
        ("Umber blanket", "1 year", "Carla Jensen"),
    ]
    table = document.add_table(rows=len(rows), cols=3)
    for row, values in zip(table.rows, rows, strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    document.add_paragraph("Claims are answered within ten working days.")
    document.save(str(path))
    return path


def heading_first(chunk):
    """A chunk as the heading-path prefix writes it: its heading as the first line."""
    if chunk.heading and not chunk.text.startswith("#"):
        chunk.text = f"# {chunk.heading}\n{chunk.text}"
    return chunk


@pytest.fixture(scope="module", params=["plain", "heading first"])
def shop(request, tmp_path_factory):
    """The three files and a page of prose, ingested; with "heading first", every chunk's
    text begins with its heading path as a Markdown heading line."""
    root = tmp_path_factory.mktemp("shop")
    docs = root / "docs"
    docs.mkdir()
    catalogue(docs / "catalogue.xlsx")
    suppliers(docs / "suppliers.csv")
    warranty(docs / "warranty.docx")
    (docs / "notes.md").write_text(
        "# Shop notes\n\nThe shop opens at nine. Deliveries arrive on Tuesdays and are "
        "checked by the warehouse team before they are shelved.\n"
    )
    settings = settings_for(root / "store")
    with pytest.MonkeyPatch.context() as patch:
        if request.param == "heading first":
            make = Chunker._make
            patch.setattr(Chunker, "_make", lambda *a, **k: heading_first(make(*a, **k)))
        report = service.ingestor(settings).run([docs], "docs")
    assert report.count("failed") == 0, report.to_dict()
    return settings, service.Resources(settings)


def ask(shop, question: str):
    settings, resources = shop
    return service.ask(settings, question, "standard", resources=resources)


def cited(result, file_name: str) -> list[str]:
    """The locators of the sources from `file_name` that the answer cites."""
    numbers = {int(n) for n in re.findall(r"\[(\d+)\]", result.answer)}
    return [
        s.metadata.place
        for n, s in enumerate(result.sources, start=1)
        if n in numbers and Path(s.metadata.source_file).name == file_name
    ]


def assert_answered(result):
    assert result.answer_type == "answer"
    assert NO_ANSWER not in result.answer
    assert all(s.supported for s in result.support), result.support


@pytest.mark.parametrize(
    "question",
    [
        "What does the Brontide lamp cost?",
        "How much is the Brontide lamp?",
        "What is the price of the Brontide lamp?",
    ],
)
def test_a_value_is_answered_by_its_row_cited_by_row_number(shop, question):
    result = ask(shop, question)
    assert_answered(result)
    assert "Item: Brontide lamp; Price: 349; Currency: EUR" in result.answer
    assert cited(result, "catalogue.xlsx") == [f"Prices, row {LAMP_ROW}"]
    assert "Osprey" not in result.answer  # the row, not the chunk of rows around it
    # What --json and the MCP server show: the row's locator.
    sources = result.to_json_dict()["sources"]
    assert f"Prices, row {LAMP_ROW}" in [s["metadata"].get("locator") for s in sources]


@pytest.mark.parametrize(
    "question", ["What do we know about the Osprey chair?", "Show the Osprey chair entry"]
)
def test_a_row_is_answered_by_that_row(shop, question):
    result = ask(shop, question)
    assert_answered(result)
    assert "Item: Osprey chair; Price: 285; Currency: EUR" in result.answer
    assert cited(result, "catalogue.xlsx") == [f"Prices, row {CHAIR_ROW}"]
    assert result.answer.count("Price:") == 1


@pytest.mark.parametrize(
    "question",
    [
        "Which costs more, the Brontide lamp or the Osprey chair?",
        "Compare the prices of the Osprey chair and the Brontide lamp",
    ],
)
def test_two_rows_are_quoted_each_cited_by_its_row(shop, question):
    result = ask(shop, question)
    assert_answered(result)
    assert "Item: Brontide lamp; Price: 349; Currency: EUR" in result.answer
    assert "Item: Osprey chair; Price: 285; Currency: EUR" in result.answer
    assert result.answer.count("Price:") == 2
    assert sorted(cited(result, "catalogue.xlsx")) == sorted(
        [f"Prices, row {LAMP_ROW}", f"Prices, row {CHAIR_ROW}"]
    )


def test_a_csv_row_is_quoted_with_its_column_names(shop):
    result = ask(shop, "Which country is Halvard Textiles from?")
    assert_answered(result)
    assert "Supplier: Halvard Textiles; Country: Norway; Lead time (days): 35" in result.answer
    assert cited(result, "suppliers.csv") == ["row 4"]  # a CSV file has no sheet name


def test_two_csv_rows_share_one_citation_of_both_rows(shop):
    result = ask(shop, "Compare the lead times of Halvard Textiles and Morrow Metals")
    assert_answered(result)
    assert "Lead time (days): 35" in result.answer and "Lead time (days): 9" in result.answer
    assert result.answer.count("Supplier:") == 2
    assert cited(result, "suppliers.csv") == ["rows 4, 6"]


def test_a_word_table_row_is_quoted_with_its_column_names(shop):
    result = ask(shop, "What warranty does the Kestrel fan have?")
    assert_answered(result)
    assert "Product: Kestrel fan; Warranty: 5 years; Service contact: Ines Duarte" in (
        result.answer
    )
    assert "Pallas" not in result.answer
    assert cited(result, "warranty.docx")


def test_prose_is_still_answered_by_its_sentence(shop):
    result = ask(shop, "When do deliveries arrive?")
    assert_answered(result)
    assert "Deliveries arrive on Tuesdays" in result.answer
    assert "Price:" not in result.answer


def test_a_markdown_row_is_quoted_on_a_line_of_its_own(tmp_path):
    """Without its header, a quoted `| a | b |` row is no table: as a line under a sentence
    it ran on into that sentence's paragraph. It is a list item of its own, and names its
    columns (the table is a block whose rows read `header: value; …`)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ports.md").write_text(
        "# Ports\n\nClients reach the server on two ports, and both must be open in the "
        "firewall.\n\n| Setting | Default | Purpose |\n| --- | --- | --- |\n"
        "| web_port | 7420 | Port for the web app and API |\n"
        "| sync_port | 7421 | Port for client WebSocket sync connections |\n"
    )
    settings = settings_for(tmp_path / "store")
    service.ingestor(settings).run([docs], "docs")
    result = service.ask(settings, "What is the default sync_port?", "standard")
    assert_answered(result)
    lines = result.answer.splitlines()
    row = (
        "- Setting: sync_port; Default: 7421; "
        "Purpose: Port for client WebSocket sync connections [1]"
    )
    assert row in lines, result.answer
    assert not any(line.startswith("|") for line in lines), result.answer


def test_a_row_written_as_a_list_item_keeps_its_one_marker(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "prices.md").write_text(
        "# Price list\n\n- Item: Osprey chair; Price: 285; Currency: EUR\n"
        "- Item: Kestrel fan; Price: 64; Currency: EUR\n"
    )
    settings = settings_for(tmp_path / "store")
    service.ingestor(settings).run([docs], "docs")
    result = service.ask(settings, "What does the Osprey chair cost?", "standard")
    assert_answered(result)
    assert "- Item: Osprey chair; Price: 285; Currency: EUR [1]" in result.answer.splitlines()
