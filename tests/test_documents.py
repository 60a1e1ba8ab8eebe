"""Whole documents put back together from their chunks (ragcli/documents/): the chunker's
overlaps and repeated heading lines taken out, code blocks and tables it cut made whole,
ranges and the size bound; then `ragcli show` on the ingested sample corpus."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ragcli.cli import app
from ragcli.documents.model import StoredDocument
from ragcli.documents.places import Request, parse_request, span_of
from ragcli.documents.reading import bounded, document_of, select
from ragcli.documents.rebuild import outline, rebuild
from ragcli.embedding.embedder import bundled_model_dir
from ragcli.embedding.wordpieces import TokenCounter
from ragcli.ingest.chunker import Chunker
from ragcli.ingest.loaders import Section
from ragcli.ingest.loaders.text import markdown_sections
from ragcli.models import ChunkMetadata
from ragcli.store.manifest import FileRecord

runner = CliRunner()

GUIDE = "\n".join(
    [
        "# Guide",
        "",
        "An opening paragraph about the guide.",
        "",
        "## Setup",
        "",
        *(
            f"Step {n} of the setup copies the file number {n} into the folder and "
            f"checks its hash before it moves on."
            for n in range(1, 40)
        ),
        "",
        "```python",
        *(f"value_{n} = compute({n}, retries=3)  # line {n}" for n in range(1, 60)),
        "```",
        "",
        "| name | value |",
        "| --- | --- |",
        *(f"| setting_{n} | {n * 7} seconds |" for n in range(1, 60)),
        "",
        "## Limits",
        "",
        "Check it:",
        "",
        "- the first limit",
        "- the second limit",
    ]
)


@pytest.fixture(scope="module")
def chunker():
    return Chunker(TokenCounter(bundled_model_dir()), max_tokens=96, overlap_tokens=32)


def stored(sections: list[Section], chunker: Chunker) -> list[tuple[str, ChunkMetadata]]:
    """What ingest stores: each chunk's text and metadata, in order."""
    chunks = chunker.chunk(sections)
    return [
        (
            chunk.text,
            ChunkMetadata(
                chunk_id=f"c{n}",
                source_file="/docs/guide.md",
                file_type="md",
                chunk_index=n,
                heading=chunk.heading,
                page=chunk.page,
                locator=chunk.extra.get("locator"),
                chunk_method=chunk.method,
            ),
        )
        for n, chunk in enumerate(chunks)
    ]


def test_a_markdown_file_is_put_back_as_it_was_read(chunker):
    sections = markdown_sections(GUIDE)
    chunks = stored(sections, chunker)
    assert len(chunks) > 10  # long sections, cut with overlaps, code and table in parts
    rebuilt = rebuild(reversed(chunks))  # stored order does not matter
    assert [s.text for s in rebuilt] == [s.text.strip() for s in sections]
    assert [s.heading for s in rebuilt] == ["Guide", "Guide > Setup", "Guide > Limits"]
    assert rebuilt[1].locator == "lines 5–169"  # the section's lines, first to last part
    assert [(e.heading, e.level) for e in outline(rebuilt)] == [
        ("Guide", 1),
        ("Setup", 2),
        ("Limits", 2),
    ]


def test_plain_text_cut_inside_sentences_loses_and_repeats_nothing(chunker):
    words = " ".join(f"word{n}" for n in range(600))  # one sentence longer than the window
    text = f"First paragraph here.\n\n{words}.\n\nLast paragraph."
    chunks = stored([Section(text, page=3, locator="page 3")], chunker)
    assert len(chunks) > 3
    (section,) = rebuild(chunks)
    assert section.text == text and section.locator == "page 3"


def test_sections_without_headings_in_their_text_keep_the_heading_line(chunker):
    """A Word section's heading is not in its text: its first chunk was given the line,
    which the document keeps, once; the section's later chunks lose theirs."""
    body = " ".join(f"Task {n} is done by the team on day {n}." for n in range(80))
    chunks = stored([Section(body, heading="Onboarding > First week")], chunker)
    (section,) = rebuild(chunks)
    assert section.text == f"# Onboarding > First week\n\n{body}"


def test_places_and_requests_are_read_as_citations_print_them():
    assert span_of("lines 12–40") == span_of("lines 12-40")
    assert (span_of("Sheet1, rows 20–45").unit, span_of("page 3 (OCR)").first) == ("row", 3)
    assert span_of(None, page=4).unit == "page" and span_of("chapter 2") is None
    assert parse_request("guide.md:12–40") == Request("guide.md", 12, 40)
    assert parse_request("guide.md:7") == Request("guide.md", 7, 7)
    assert parse_request("http://host:8080") == Request("http://host:8080")
    assert parse_request("odd:12", frozenset({"odd:12"})) == Request("odd:12")
    with pytest.raises(ValueError, match="ends"):
        parse_request("guide.md:9-3")


def document(chunker) -> StoredDocument:
    record = FileRecord("docs", "/docs/guide.md", "ab" * 32, 1, 0, "md", 0, None, "now")
    chunks = stored(markdown_sections(GUIDE), chunker)
    return document_of(record, [(text, meta.model_dump()) for text, meta in chunks])


def test_a_range_shows_the_parts_holding_those_lines_and_a_bound_says_what_is_next(chunker):
    whole = document(chunker)
    limits = select(whole, Request("guide.md", 172, 180))
    assert [s.heading for s in limits.sections] == ["Guide > Limits"]
    assert limits.requested == "lines 172–180" and "Check it:" in limits.text
    code = select(whole, Request("guide.md", 50, 52))
    assert "value_" in code.text and "Step 1 " not in code.text

    cut = bounded(whole, 1500, Request("guide.md"))
    assert len(cut.text) <= 1500 and cut.text == whole.text[: len(cut.text)]
    assert cut.next is not None and cut.note and cut.next in cut.note
    rest = select(whole, parse_request(cut.next))
    assert rest.text and rest.text not in cut.text  # the rest starts where this stops


@pytest.mark.usefixtures("sample_store")
def test_show_prints_a_stored_document_its_outline_and_ranges(sample_store):
    store = ["--store", str(sample_store)]
    shown = runner.invoke(app, ["show", "policies/refund_policy.md", *store])
    assert shown.exit_code == 0, shown.output
    assert "Outline" in shown.output and "  Annual plans · lines 7–11" in shown.output
    assert "## Monthly plans" in shown.output and "Chargebacks" in shown.output

    pages = runner.invoke(app, ["show", "admin_guide.pdf:2-3", *store, "--json"])
    data = json.loads(pages.output)
    assert data["requested"] == "pages 2–3"
    assert [s["locator"] for s in data["sections"]] == ["page 2", "page 3"]
    assert "Chapter 2" in data["sections"][0]["text"]
    # The chunker's overlap is not repeated: each sentence of the page once.
    page_two = data["sections"][0]["text"]
    assert page_two.count("SCIM access tokens are generated") == 1

    missing = runner.invoke(app, ["show", "nothing.md", *store])
    assert missing.exit_code == 2 and "nothing.md: not an ingested file" in missing.output
    beyond = runner.invoke(app, ["show", "refund_policy.md:200-300", *store])
    assert beyond.exit_code == 2 and "the document has lines 1–45" in beyond.output
