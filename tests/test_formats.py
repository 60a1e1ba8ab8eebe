"""Every document format a team folder holds: each file is built with its own writer
library (tests/support/office_files.py) or saved by LibreOffice (tests/data/office/, and the
samples in sample_corpus/docs/), and what a user would see is checked: the text, and the
locator a citation shows."""

from __future__ import annotations

import warnings

import pytest

from ragcli.ingest.loaders import LoadError, Section, load
from tests.support import office_files as make
from tests.support.common import ROOT, SAMPLE
from tests.support.corpus import PYTHON_SOURCE

FIXTURES = ROOT / "tests" / "data" / "office"


def section_with(sections: list[Section], text: str) -> Section:
    found = [s for s in sections if text in s.text]
    assert found, f"{text!r} not in {[s.text[:60] for s in sections]}"
    return found[0]


def test_docx_headings_tables_comments_and_text_boxes(tmp_path):
    sections = load(make.make_docx(tmp_path / "onboarding.docx")).sections
    table = section_with(sections, make.DOCX_TABLE_FACT)
    assert table.heading == "New administrator onboarding > First week > Accounts and hardware"
    # A table row keeps its column names: the fact reads as a sentence would.
    assert f"Task: {make.DOCX_TABLE_FACT}; Owner: Facilities; Due: Day 4" in table.text
    assert make.DOCX_TEXT_BOX in table.text  # the text box sits in the same section
    assert table.text.count(make.DOCX_TEXT_BOX) == 1
    comments = section_with(sections, make.DOCX_COMMENT)
    assert comments.heading == "Comments" and "Tom Becker: " in comments.text


def test_pptx_slides_with_notes_charts_tables_and_alt_text(tmp_path):
    loaded = load(make.make_pptx(tmp_path / "review.pptx"))
    assert loaded.pages == 3
    assert [s.locator for s in loaded.sections] == ["slide 1", "slide 2", "slide 3"]
    growth = loaded.sections[1]
    assert growth.heading == "Cloud growth"
    assert f"Chart: {make.PPTX_CHART_TITLE}" in growth.text
    assert f"Speaker notes: {make.PPTX_NOTES}" in growth.text
    incidents = loaded.sections[2]
    assert "Incident: Relay outage; Duration: 47 minutes; Cause: expired TLS" in incidents.text
    assert f"Picture: {make.PPTX_ALT_TEXT}" in incidents.text


def test_xlsx_rows_keep_their_header_and_row_numbers(tmp_path):
    sections = load(make.make_xlsx(tmp_path / "desks.xlsx")).sections
    desks = section_with(sections, "APAC")
    assert desks.locator == "Desks, rows 2–4"
    assert "Region: APAC; Hours (local): 09:00-17:00 AEST; Phone: +61 2 5550 8811" in desks.text
    row = section_with(sections, "Harbourview Clinics")
    first, last = row.locator.removeprefix("Escalation, rows ").split("–")  # type: ignore
    assert int(first) <= 31 <= int(last)  # the fact is in spreadsheet row 31
    assert "Customer: Harbourview Clinics; Level: 1; Engineer: Joaquim Ferreira" in row.text


@pytest.mark.parametrize("name", ["support_desks.ods", "support_desks.xls"])
def test_spreadsheets_saved_by_libreoffice(name):
    loaded = load(FIXTURES / name)
    row = section_with(loaded.sections, "Harbourview Clinics")
    assert row.locator is not None and row.locator.startswith("Escalation, rows ")
    assert section_with(loaded.sections, "APAC").locator == "Desks, rows 2–4"


def test_office_files_saved_by_libreoffice_read_like_the_library_made_ones():
    docx = load(SAMPLE / "docs" / "onboarding_checklist.docx").sections
    assert section_with(docx, make.DOCX_TABLE_FACT).heading.endswith("Accounts and hardware")
    assert section_with(docx, make.DOCX_COMMENT).heading == "Comments"
    assert section_with(docx, make.DOCX_TEXT_BOX)
    pptx = load(SAMPLE / "docs" / "quarterly_review.pptx").sections
    assert section_with(pptx, make.PPTX_NOTES).locator == "slide 2"
    assert section_with(pptx, make.PPTX_CHART_TITLE).locator == "slide 2"
    assert section_with(pptx, make.PPTX_ALT_TEXT).locator == "slide 3"
    odt = load(FIXTURES / "onboarding_checklist.odt").sections
    table = section_with(odt, make.DOCX_TABLE_FACT)
    assert table.heading == "New administrator onboarding > First week > Accounts and hardware"
    assert "Tom Becker: " + make.DOCX_COMMENT in section_with(odt, make.DOCX_COMMENT).text
    assert make.DOCX_COMMENT not in table.text  # a comment is not read into the paragraph
    rtf = load(FIXTURES / "onboarding_checklist.rtf").sections
    assert make.DOCX_TABLE_FACT in rtf[0].text


def test_epub_chapters_in_reading_order_under_their_titles(tmp_path):
    sections = load(make.make_epub(tmp_path / "handbook.epub")).sections
    chapters = [
        s
        for s in sections
        if s.locator in ("Getting started", "Working offline", "Keyboard shortcuts")
    ]
    assert [s.locator for s in chapters] == [
        "Getting started",
        "Working offline",
        "Keyboard shortcuts",
    ]
    assert "keeps both versions of a paragraph" in chapters[1].text


def test_notebook_cells_without_outputs(tmp_path):
    loaded = load(make.make_ipynb(tmp_path / "churn.ipynb"))
    assert [s.locator for s in loaded.sections] == ["cell 1", "cell 2", "cell 3", "cell 4"]
    assert "2.4 % a month" in loaded.sections[2].text
    assert loaded.sections[2].heading == "Churn analysis"
    assert "pd.read_csv" in loaded.sections[1].text
    assert not any("OUTPUT_NOT_INDEXED" in s.text for s in loaded.sections)


def test_rtf_and_odt_text(tmp_path):
    rtf = load(make.make_rtf(tmp_path / "cafe.rtf")).sections
    assert "The café on the third floor opens at 07:30" in rtf[0].text
    odt = load(make.make_odt(tmp_path / "moves.odt")).sections
    assert section_with(odt, "Avenida da Liberdade").heading == "Office moves"
    assert section_with(odt, "garage").heading == "Office moves > Parking"


def test_code_splits_at_definitions_with_line_ranges(tmp_path):
    source = tmp_path / "billing.py"
    source.write_text(PYTHON_SOURCE)
    loaded = load(source)
    assert loaded.file_type == "python"
    by_name = {s.heading: s for s in loaded.sections}
    assert by_name["round_total"].locator == "lines 8–10"  # with the comment above it
    assert by_name["round_total"].text.startswith("# Rounds half up")
    assert by_name["Invoice"].locator == "lines 13–18"
    assert by_name[None].locator == "lines 1–5"  # docstring, import and constant together


def test_long_code_is_cut_between_lines_keeping_exact_ranges(tmp_path):
    source = tmp_path / "big.js"
    body = "\n".join(f"  const value{i} = compute({i});" for i in range(200))
    source.write_text(f"function build() {{\n{body}\n  return 1;\n}}\n")
    sections = load(source).sections
    assert len(sections) > 3
    lines = source.read_text().splitlines()
    for section in sections:
        first, _, last = section.locator.removeprefix("lines ").partition("–")  # type: ignore
        assert section.text == "\n".join(lines[int(first) - 1 : int(last)])


def test_rst_sections_under_their_titles_with_line_ranges(tmp_path):
    doc = tmp_path / "guide.rst"
    doc.write_text("Guide\n=====\n\nIntro.\n\nInstall\n-------\n\nRun pip install.\n")
    sections = load(doc).sections
    # A section is cited from its title, which a reader jumping to it looks for.
    assert [(s.heading, s.locator) for s in sections] == [
        ("Guide", "lines 1–4"),
        ("Guide > Install", "lines 6–9"),
    ]


@pytest.mark.parametrize(
    "encoding, note",
    [
        ("utf-8-sig", None),
        ("utf-16", "UTF-16"),
        ("cp932", "Shift-JIS (cp932)"),
        ("cp1252", "Windows-1252"),
    ],
)
def test_text_in_common_encodings_is_never_mojibake(tmp_path, encoding, note):
    text = {
        "cp932": "名前,部署\n山田太郎,経理部\n佐藤花子,営業部\n",
        "cp1252": "Name,Team\nRenée Müller,Façade crew\nJosé Núñez,Café\n",
    }.get(encoding, "Name,Team\nZoë Ångström,Überwachung 東京\n")
    path = tmp_path / "people.csv"
    path.write_bytes(text.encode(encoding))
    loaded = load(path)
    rows = text.splitlines()
    header = rows[0].split(",")
    for row in rows[1:]:
        values = row.split(",")
        assert f"{header[0]}: {values[0]}; {header[1]}: {values[1]}" in loaded.sections[0].text
    assert loaded.notes == ([f"not UTF-8: decoded as {note}"] if note else [])


def test_csv_rows_carry_their_row_numbers(tmp_path):
    path = tmp_path / "orders.csv"
    rows = ["order;city;amount"] + [f"{n};Porto;{n * 3}" for n in range(1, 200)]
    path.write_text("\n".join(rows))  # semicolons, as Excel writes in much of Europe
    sections = load(path).sections
    hit = section_with(sections, "order: 150;")
    first, last = hit.locator.removeprefix("rows ").split("–")  # type: ignore[union-attr]
    assert int(first) <= 151 <= int(last)  # order 150 is on line 151, under the header


def test_legacy_binary_office_files_are_refused_with_what_to_do():
    with pytest.raises(LoadError, match=r"save it as \.docx"):
        load(FIXTURES / "onboarding_checklist.doc")


def test_ocr_reads_a_png_and_an_image_only_pdf_page(tmp_path):
    lines = ["The backup generator is tested on the first Monday of each month."]
    png = load(make.scanned_png(tmp_path / "note.png", lines))
    assert png.sections[0].locator == "page 1 (OCR)" and png.ocr_pages == 1
    assert lines[0] in " ".join(png.sections[0].text.split())
    pdf = load(make.scanned_pdf(tmp_path / "scan.pdf", lines, blank_pages=1))
    assert [s.locator for s in pdf.sections] == ["page 1 (OCR)"]
    assert lines[0] in " ".join(pdf.sections[0].text.split())
    assert pdf.ocr_pages == 2 and pdf.pages == 2
    # The blank page is reported, not silently empty.
    assert pdf.notes == ["OCR read 2 of 2 pages", "OCR found no text on page 2"]


def test_a_palette_png_with_a_transparent_colour_is_read_without_a_warning(tmp_path):
    # Logos and icons are often saved so; Pillow warns when such an image is converted
    # straight to RGB, and the warning broke the ingest's progress line.
    lines = ["Harbour lights are checked every evening."]
    path = tmp_path / "logo.png"
    image = make.text_image(lines).convert("P")
    image.save(path, transparency=image.getpixel((0, 0)).to_bytes(1, "big"))
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        png = load(path)
    assert [str(w.message) for w in shown] == []
    assert lines[0] in " ".join(png.sections[0].text.split())


def test_ocr_off_reports_a_scan_instead_of_reading_it(tmp_path):
    from ragcli.ingest.loaders import LoadOptions

    scan = make.scanned_pdf(tmp_path / "scan.pdf", ["Nothing to see"])
    with pytest.raises(LoadError, match="no text layer and OCR is off"):
        load(scan, LoadOptions(ocr="off"))
    with pytest.raises(LoadError, match="OCR, which is off"):
        load(make.scanned_png(tmp_path / "a.png", ["x"]), LoadOptions(ocr="off"))


def test_a_missing_ocr_language_names_the_package_to_install(tmp_path):
    from ragcli import service
    from ragcli.errors import ConfigError
    from tests.support.common import settings_for

    settings = settings_for(tmp_path / "store", **{"ingest.ocr_languages": "eng+klingon"})
    with pytest.raises(ConfigError, match=r"pip install tessdata-klingon"):
        service.ingestor(settings)


@pytest.mark.slow
def test_the_ingest_summary_counts_the_pages_ocr_read(tmp_path):
    import json

    from tests.support.storecheck import cli_env, ragcli

    docs = tmp_path / "docs"
    docs.mkdir()
    lines = ["Fire doors are inspected every quarter by the facilities team."]
    make.scanned_png(docs / "note.png", lines)
    make.scanned_pdf(docs / "scan.pdf", lines, blank_pages=1)
    (docs / "plain.md").write_text("# Plain\n\nNo scanning here.\n")
    store = str(tmp_path / "store")
    report = ragcli("ingest", str(docs), "--store", store, "--json", cwd=tmp_path, env=cli_env())
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["ocr_pages"] == 3  # the image, and both PDF pages
    (docs / "plain.md").write_text("# Plain\n\nStill no scanning here.\n")
    shown = ragcli("ingest", str(docs), "--store", store, cwd=tmp_path, env=cli_env(COLUMNS="80"))
    assert "ocr" not in shown.stdout  # nothing was read by OCR this time
    (docs / "note.png").unlink()
    make.scanned_png(docs / "note.png", lines + ["Exits stay clear."])
    shown = ragcli("ingest", str(docs), "--store", store, cwd=tmp_path, env=cli_env(COLUMNS="80"))
    assert "1 page read by OCR" in shown.stdout
