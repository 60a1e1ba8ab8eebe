"""Small real documents of each format, written with each format's own writer library
(python-docx, python-pptx, openpyxl, ebooklib, odfpy, Pillow), for the loader tests and
for scripts/make_office_samples.py. Each holds facts found nowhere else, so a retrieval
test can tell which file and which place an answer came from."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

DOCX_TABLE_FACT = "Order the YubiKey 5C NFC token"
DOCX_COMMENT = "Ask Priya Raman for the staging server password."
DOCX_TEXT_BOX = "Badge photos are taken on Thursdays in room 4.12."
PPTX_NOTES = "Mention that the Sydney region opens on 14 November."
PPTX_CHART_TITLE = "Weekly active workspaces by region"
PPTX_ALT_TEXT = "Diagram of the Relay failover between Frankfurt and Oregon"
SAMPLE_SCAN_LINES = [
    "MEMO: Frankfurt data centre maintenance",
    "Driftwood Cloud in the EU region will be read-only on",
    "Saturday 9 November from 02:00 to 04:00 CET while the",
    "storage cluster is moved to new hardware.",
    "Contact: Lena Hoffmann, operations lead.",
]


def make_docx(path: Path) -> Path:
    import docx
    from docx.oxml import parse_xml

    document = docx.Document()
    document.add_heading("New administrator onboarding", level=0)
    document.add_paragraph("This checklist covers the first week of a Driftwood administrator.")
    document.add_heading("First week", level=1)
    intro = document.add_paragraph("Shadow the on-call administrator for two shifts.")
    document.add_comment(intro.runs, text=DOCX_COMMENT, author="Tom Becker")
    document.add_heading("Accounts and hardware", level=2)
    table = document.add_table(rows=1, cols=3)
    for cell, name in zip(table.rows[0].cells, ("Task", "Owner", "Due"), strict=True):
        cell.text = name
    for row in (
        ("Enable two-factor sign-in", "Security team", "Day 2"),
        ("Request a Relay licence key", "IT desk", "Day 3"),
        (DOCX_TABLE_FACT, "Facilities", "Day 4"),
    ):
        cells = table.add_row().cells
        for cell, value in zip(cells, row, strict=True):
            cell.text = value
    holder = document.add_paragraph("See the facilities note.")
    # A text box (VML, as older Word and LibreOffice write them) anchored to the paragraph.
    holder._p.append(
        parse_xml(
            '<w:r xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
            'xmlns:v="urn:schemas-microsoft-com:vml"><w:pict><v:shape style="width:200pt;'
            'height:40pt"><v:textbox><w:txbxContent><w:p><w:r><w:t>'
            f"{DOCX_TEXT_BOX}</w:t></w:r></w:p></w:txbxContent></v:textbox></v:shape>"
            "</w:pict></w:r>"
        )
    )
    document.add_heading("Second week", level=1)
    document.add_paragraph("Run a restore drill from the nightly backup on the staging server.")
    document.save(str(path))
    return path


# A Word document as a localized Word saves it: the heading styles' ids are not `HeadingN`
# and their names are not English; only their outline level (w:outlineLvl) says what they
# are. No section's text repeats the words of its heading.
LOCALIZED_TITLE = "Lagerhalle Nord"
LOCALIZED_SECTION = "Gabelstapler-Schulung"  # heading 1: a style with id "1"
LOCALIZED_SUBSECTION = "Forklift recertification"  # heading 2: style id "2"
LOCALIZED_FACT = "Drivers renew their card every 36 months with Ingrid Solberg."
LOCALIZED_INHERITED = "Loading dock rota"  # a style based on heading 1's, no level of its own
LOCALIZED_OWN_LEVEL = "Visitor badges"  # a plain paragraph with its own outline level
LOCALIZED_BODY = "Kept as body text although its style is based on a heading."


def make_localized_docx(path: Path) -> Path:
    import docx
    from docx.enum.style import WD_STYLE_TYPE
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    def outline(properties, level: int) -> None:
        element = OxmlElement("w:outlineLvl")
        element.set(qn("w:val"), str(level))
        properties.append(element)

    document = docx.Document()
    styles = document.styles
    top = styles.add_style("見出し 1", WD_STYLE_TYPE.PARAGRAPH)
    top.element.set(qn("w:styleId"), "1")
    outline(top.element.get_or_add_pPr(), 0)
    second = styles.add_style("見出し 2", WD_STYLE_TYPE.PARAGRAPH)
    second.element.set(qn("w:styleId"), "2")
    outline(second.element.get_or_add_pPr(), 1)
    green = styles.add_style("Kop groen", WD_STYLE_TYPE.PARAGRAPH)
    green.base_style = top
    body = styles.add_style("Kop tekst", WD_STYLE_TYPE.PARAGRAPH)
    body.base_style = top
    outline(body.element.get_or_add_pPr(), 9)  # outline level 9: body text

    document.add_paragraph(LOCALIZED_TITLE, style="Title")
    document.add_paragraph("Rules for everyone working in the north building.")
    document.add_paragraph(LOCALIZED_SECTION, style=top)
    document.add_paragraph("Only trained staff may drive in the aisles.")
    document.add_paragraph(LOCALIZED_SUBSECTION, style=second)
    document.add_paragraph(LOCALIZED_FACT)
    document.add_paragraph(LOCALIZED_INHERITED, style=green)
    document.add_paragraph("Trucks unload between six and ten in the morning.")
    document.add_paragraph(LOCALIZED_BODY, style=body)
    badges = document.add_paragraph(LOCALIZED_OWN_LEVEL)
    outline(badges._p.get_or_add_pPr(), 0)
    document.add_paragraph("Guests collect a pass at the gate and return it when leaving.")
    document.save(str(path))
    return path


def make_pptx(path: Path) -> Path:
    from pptx import Presentation
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches

    deck = Presentation()
    title_slide = deck.slides.add_slide(deck.slide_layouts[0])
    title_slide.shapes.title.text = "Driftwood Q3 2024 review"
    title_slide.placeholders[1].text = "Tidewater Labs, October 2024"

    growth = deck.slides.add_slide(deck.slide_layouts[5])  # title only
    growth.shapes.title.text = "Cloud growth"
    data = CategoryChartData()
    data.categories = ["EU", "US", "APAC"]
    data.add_series("Workspaces", (4120, 6310, 980))
    frame = growth.shapes.add_chart(
        XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(1.5), Inches(6), Inches(4), data
    )
    frame.chart.has_title = True
    frame.chart.chart_title.text_frame.text = PPTX_CHART_TITLE
    growth.notes_slide.notes_text_frame.text = PPTX_NOTES

    incidents = deck.slides.add_slide(deck.slide_layouts[5])
    incidents.shapes.title.text = "Incident summary"
    rows = [
        ("Incident", "Duration", "Cause"),
        ("Relay outage", "47 minutes", "expired TLS certificate"),
        ("Sync delay", "3 hours", "queue backlog"),
    ]
    table = incidents.shapes.add_table(3, 3, Inches(0.5), Inches(1.5), Inches(8), Inches(2))
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.table.cell(r, c).text = value
    picture_file = path.with_suffix(".diagram.png")
    Image.new("RGB", (60, 40), "navy").save(picture_file)
    picture = incidents.shapes.add_picture(str(picture_file), Inches(6), Inches(4.5))
    picture._element.nvPicPr.cNvPr.set("descr", PPTX_ALT_TEXT)
    deck.save(str(path))
    picture_file.unlink()
    return path


XLSX_DESKS = [
    ("Region", "Hours (local)", "Phone", "Languages"),
    ("EMEA", "08:00-18:00 CET", "+49 30 5557 1200", "English, German, French"),
    ("Americas", "07:00-19:00 ET", "+1 503 555 0144", "English, Spanish"),
    ("APAC", "09:00-17:00 AEST", "+61 2 5550 8811", "English, Japanese"),
]
XLSX_ESCALATION_ROWS = 40  # rows of the second sheet; the fact sits in row 31


def make_xlsx(path: Path) -> Path:
    import openpyxl

    workbook = openpyxl.Workbook()
    desks = workbook.active
    desks.title = "Desks"
    for row in XLSX_DESKS:
        desks.append(row)
    escalation = workbook.create_sheet("Escalation")
    escalation.append(("Ticket", "Customer", "Level", "Engineer"))
    for number in range(1, XLSX_ESCALATION_ROWS + 1):
        engineer = "Joaquim Ferreira" if number == 30 else f"Engineer {number % 7 + 1}"
        customer = "Harbourview Clinics" if number == 30 else f"Customer {number}"
        escalation.append((f"T-{4100 + number}", customer, 1 + number % 3, engineer))
    workbook.save(path)
    return path


def make_epub(path: Path) -> Path:
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("driftwood-handbook")
    book.set_title("The Driftwood Handbook")
    book.set_language("en")
    chapters = []
    for number, (title, body) in enumerate(
        [
            ("Getting started", "Install the desktop client and sign in with your work email."),
            (
                "Working offline",
                "Edits made offline are merged when the laptop reconnects; "
                "the merge keeps both versions of a paragraph edited on two devices.",
            ),
            ("Keyboard shortcuts", "Press Ctrl+Shift+K to open the command palette."),
        ],
        start=1,
    ):
        chapter = epub.EpubHtml(title=title, file_name=f"chap_{number}.xhtml", lang="en")
        chapter.content = f"<h1>{title}</h1><p>{body}</p>"
        book.add_item(chapter)
        chapters.append(chapter)
    book.toc = chapters
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *chapters]
    epub.write_epub(str(path), book)
    return path


def make_ipynb(path: Path) -> Path:
    cells = [
        {
            "cell_type": "markdown",
            "metadata": {},
            "source": ["# Churn analysis\n", "Monthly churn by plan."],
        },
        {
            "cell_type": "code",
            "metadata": {},
            "execution_count": 1,
            "outputs": [
                {"output_type": "stream", "name": "stdout", "text": ["OUTPUT_NOT_INDEXED\n"]}
            ],
            "source": ["import pandas as pd\n", "df = pd.read_csv('churn.csv')"],
        },
        {
            "cell_type": "markdown",
            "metadata": {},
            "source": [
                "The Team plan churned 2.4 % a month in 2024, half the Starter plan's rate."
            ],
        },
        {
            "cell_type": "code",
            "metadata": {},
            "execution_count": 2,
            "outputs": [],
            "source": ["df.groupby('plan').churn.mean()"],
        },
    ]
    notebook = {
        "cells": cells,
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook, indent=1), encoding="utf-8")
    return path


def make_odt(path: Path) -> Path:
    from odf.opendocument import OpenDocumentText
    from odf.text import H, P

    document = OpenDocumentText()
    document.text.addElement(H(outlinelevel=1, text="Office moves"))
    document.text.addElement(P(text="The Lisbon office moves to Avenida da Liberdade 110 in May."))
    document.text.addElement(H(outlinelevel=2, text="Parking"))
    document.text.addElement(P(text="Visitors park in the garage under the building."))
    document.save(str(path))
    return path


RTF = (
    r"{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0 Times New Roman;}}"
    r"\pard\b Caf\'e9 opening hours\b0\par"
    r"\pard The caf\'e9 on the third floor opens at 07:30 and closes at 15:00.\par}"
)


def make_rtf(path: Path) -> Path:
    path.write_text(RTF, encoding="ascii")
    return path


def text_image(lines: list[str], width: int = 2480, height: int = 3508) -> Image.Image:
    """An A4 page at 300 dpi with `lines` printed on it, as a scanner would deliver it."""
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=44)  # Pillow's bundled font: no system font needed
    y = 300
    for line in lines:
        draw.text((220, y), line, fill=0, font=font)
        y += 110
    return image


def scanned_png(path: Path, lines: list[str]) -> Path:
    text_image(lines).save(path)
    return path


def scanned_pdf(path: Path, lines: list[str], blank_pages: int = 0) -> Path:
    """A PDF whose pages are images only (no text layer), like a scanner's output."""
    # One bit per pixel, as office scanners save text pages: a few KB a page.
    pages = [text_image(lines).convert("1")] + [
        text_image([]).convert("1") for _ in range(blank_pages)
    ]
    pages[0].save(path, "PDF", resolution=300, save_all=True, append_images=pages[1:])
    return path
