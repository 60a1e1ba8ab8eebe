"""What a user sees after ingesting Office files, scans, notebooks and code: `ragcli ask`
retrieves the fact and cites its file with the place in it (slide, rows, OCR'd page,
notebook cell, line range), and `ragcli sources` and the trace show the same."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ragcli import service
from ragcli.cli import app
from ragcli.llm.citations import citation_label
from tests.support import office_files as make
from tests.support.common import settings_for
from tests.support.corpus import PYTHON_SOURCE


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


def sources_of(store, question: str) -> list[dict]:
    result = cli("ask", question, "--store", str(store), "--json")
    assert result.exit_code in (0, 3), result.output
    return json.loads(result.output)["sources"]


def cited_place(sources: list[dict], file_name: str, fact: str) -> str | None:
    """The locator of the source from `file_name` that holds `fact` (None: not retrieved)."""
    for source in sources:
        meta = source["metadata"]
        if meta["source_file"].endswith(file_name) and fact in source["content"]:
            return meta.get("locator")
    return None


@pytest.mark.parametrize(
    "question, file_name, fact, place",
    [
        ("When does the Sydney region open?", "quarterly_review.pptx", "14 November", "slide 2"),
        ("What caused the Relay outage?", "quarterly_review.pptx", "expired TLS", "slide 3"),
        (
            "When is the EU region read-only for maintenance?",
            "scanned_memo.pdf",
            "read-only",
            "page 1 (OCR)",
        ),
        # The answer quotes the APAC row: the sheet's chunk is cited by that row.
        (
            "What is the phone number of the APAC support desk?",
            "support_desks.xlsx",
            "+61 2 5550 8811",
            "Desks, row 4",
        ),
    ],
)
def test_ask_cites_slides_scans_and_sheet_rows(sample_store, question, file_name, fact, place):
    sources = sources_of(sample_store, question)
    assert cited_place(sources, file_name, fact) == place, [
        (s["metadata"]["source_file"], s["metadata"].get("locator")) for s in sources
    ]


def test_sheet_rows_and_docx_tables_are_found_by_their_values(sample_store):
    sources = sources_of(sample_store, "Which engineer handles Harbourview Clinics tickets?")
    place = cited_place(sources, "support_desks.xlsx", "Joaquim Ferreira")
    assert place == "Escalation, row 31"  # the row the answer quotes
    sources = sources_of(sample_store, "Who orders the YubiKey token for a new administrator?")
    hit = [
        s
        for s in sources
        if s["metadata"]["source_file"].endswith("onboarding_checklist.docx")
        and "YubiKey" in s["content"]
    ]
    assert hit and hit[0]["metadata"]["heading"].endswith("First week > Accounts and hardware")


def test_the_terminal_shows_the_place_under_the_file(sample_store):
    out = cli("ask", "When does the Sydney region open?", "--store", str(sample_store)).output
    assert "quarterly_review.pptx" in out and "slide 2 · Cloud growth" in out
    trace = json.loads(cli("trace", "--json", "--store", str(sample_store)).output)
    chunks = next(s for s in trace["steps"] if s["name"] == "retrieve")["details"]["chunks"]
    assert any(c["locator"] == "slide 2" for c in chunks)
    listed = cli("sources", "--store", str(sample_store), "--collection", "docs").output
    types = {
        line.split("\t")[0].rsplit(".", 1)[-1]: line.split("\t")[1] for line in listed.splitlines()
    }
    assert types["pptx"] == "pptx" and types["docx"] == "docx" and types["xlsx"] == "xlsx"


@pytest.fixture(scope="module")
def mixed_store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mixed")
    make.make_ipynb(folder / "churn.ipynb")
    make.make_epub(folder / "handbook.epub")
    (folder / "billing.py").write_text(PYTHON_SOURCE)
    make.scanned_png(
        folder / "generator.png",
        ["The backup generator is tested on the first Monday of each month."],
    )
    store = folder / "store"
    report = service.ingestor(settings_for(store)).run([folder], "docs")
    assert report.count("new") == 4, report.to_dict()
    return store


@pytest.mark.parametrize(
    "question, file_name, fact, place, label",
    [
        (
            "How much did the Team plan churn a month?",
            "churn.ipynb",
            "2.4 %",
            "cell 3",
            "churn.ipynb, cell 3",
        ),
        (
            "What happens to a paragraph edited offline on two devices?",
            "handbook.epub",
            "keeps both versions",
            "Working offline",
            "handbook.epub, Working offline",
        ),
        (
            "How is the invoice total rounded?",
            "billing.py",
            "def round_total",
            "lines 8–10",
            "billing.py:8–10",
        ),
        (
            "When is the backup generator tested?",
            "generator.png",
            "first Monday",
            "page 1 (OCR)",
            "generator.png, page 1 (OCR)",
        ),
    ],
)
def test_notebooks_ebooks_code_and_images_are_cited_precisely(
    mixed_store, question, file_name, fact, place, label
):
    result = service.ask(settings_for(mixed_store), question)
    hits = [
        s
        for s in result.sources
        if s.metadata.source_file.endswith(file_name) and fact in s.content
    ]
    assert hits, [(s.metadata.source_file, s.metadata.locator) for s in result.sources]
    assert hits[0].metadata.locator == place
    assert citation_label(hits[0]).endswith(label)
