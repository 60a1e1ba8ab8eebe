"""Headings, titles and sheet names are searchable in every format: each chunk's text
starts with its heading path (issue 29), Word headings are known by outline level, and the
offline backend reads the path line as the section's heading, never as an answer."""

from __future__ import annotations

import pytest

from ragcli import service
from ragcli.embedding.embedder import bundled_model_dir
from ragcli.embedding.wordpieces import TokenCounter
from ragcli.ingest.chunker import Chunker
from ragcli.ingest.loaders import load
from tests.support import office_files as make
from tests.support.common import offline_backend, settings_for

# Each format family's fixture whose loader gives its sections a heading path.
FIXTURES = {
    "onboarding.docx": make.make_docx,
    "warehouse.docx": make.make_localized_docx,
    "review.pptx": make.make_pptx,
    "desks.xlsx": make.make_xlsx,
    "handbook.epub": make.make_epub,
    "churn.ipynb": make.make_ipynb,
    "moves.odt": make.make_odt,
}


@pytest.fixture(scope="module")
def counter():
    return TokenCounter(bundled_model_dir())


def test_word_headings_are_known_by_outline_level_whatever_the_style_id_or_name(tmp_path):
    sections = load(make.make_localized_docx(tmp_path / "warehouse.docx")).sections
    by_text = {s.text.split("\n\n")[0]: s.heading for s in sections}
    title, section = make.LOCALIZED_TITLE, make.LOCALIZED_SECTION
    assert by_text[make.LOCALIZED_FACT] == f"{title} > {section} > {make.LOCALIZED_SUBSECTION}"
    # A style based on a heading style is a heading; a paragraph's own level makes one; a
    # style that sets level 9 (body text) is not a heading, whatever it is based on.
    assert by_text["Trucks unload between six and ten in the morning."] == (
        f"{title} > {make.LOCALIZED_INHERITED}"
    )
    assert make.LOCALIZED_BODY in next(s.text for s in sections if "Trucks" in s.text)
    assert by_text["Guests collect a pass at the gate and return it when leaving."] == (
        f"{title} > {make.LOCALIZED_OWN_LEVEL}"
    )
    headings = {make.LOCALIZED_SECTION, make.LOCALIZED_SUBSECTION, make.LOCALIZED_TITLE}
    assert not any(h in s.text for s in sections for h in headings)  # not body text


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_every_chunk_carries_its_heading_path_in_its_text(tmp_path, counter, name):
    sections = load(FIXTURES[name](tmp_path / name)).sections
    chunks = Chunker(counter, max_tokens=128, overlap_tokens=8).chunk(sections)
    headed = [c for c in chunks if c.heading]
    assert headed, f"no section of {name} has a heading"
    for chunk in headed:
        first_line = chunk.text.split("\n", 1)[0]
        own_title = chunk.heading.rsplit(" > ", 1)[-1]  # type: ignore[union-attr]
        # Either the path line, or the text opens with the heading itself (a slide title).
        assert first_line == f"# {chunk.heading}" or first_line.lstrip("# ").startswith(
            own_title
        ), (name, chunk.heading, chunk.text[:80])
        assert chunk.token_count == counter.count(chunk.text) + counter.special <= 128


@pytest.mark.slow
def test_a_question_naming_a_section_a_sheet_or_a_slide_finds_it(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    make.make_localized_docx(folder / "warehouse.docx")
    make.make_xlsx(folder / "desks.xlsx")
    make.make_pptx(folder / "review.pptx")
    settings = settings_for(tmp_path / "store")
    report = service.ingestor(settings).run([folder], "docs")
    assert report.count("failed") == 0, report.to_dict()

    def top(query: str):
        return service.search(settings, query, top_k=1, mode="bm25").results[0]

    assert make.LOCALIZED_FACT in top("forklift recertification").text
    assert top("escalation sheet").locator.startswith("Escalation, rows ")
    assert "Only trained staff" in top("Gabelstapler-Schulung").text
    assert top("incident summary").locator == "slide 3"
    # The offline backend quotes the fact, never the path line above it.
    answer = service.ask(settings, "How often do forklift drivers renew their card?").answer
    assert "36 months" in answer and make.LOCALIZED_TITLE not in answer


def test_the_offline_backend_reads_the_path_line_as_a_heading_not_an_answer(tmp_path):
    from ragcli.models import ChunkMetadata, RetrievedChunk

    backend = offline_backend(tmp_path)
    heading = " > ".join((make.LOCALIZED_TITLE, make.LOCALIZED_SECTION, make.LOCALIZED_SUBSECTION))
    sections = load(make.make_localized_docx(tmp_path / "warehouse.docx")).sections
    counter = TokenCounter(bundled_model_dir())
    (chunk,) = [c for c in Chunker(counter).chunk(sections) if c.heading == heading]
    retrieved = RetrievedChunk(
        content=chunk.text,
        score=0.5,
        metadata=ChunkMetadata(
            chunk_id="c1", source_file="warehouse.docx", file_type="docx", heading=heading
        ),
    )
    scored = backend.scored_sentences("How often do drivers renew their card?", [retrieved])
    assert [s.candidate.text for s in scored] == [make.LOCALIZED_FACT]
    # The section the fact sits under is the path's last part, as the metadata says.
    assert scored[0].candidate.section == make.LOCALIZED_SUBSECTION


def test_chunks_under_a_heading_path_still_quote_their_heading_of_their_own(tmp_path):
    """A Markdown heading inside the chunk still names the section of what follows it."""
    from ragcli.models import ChunkMetadata, RetrievedChunk

    backend = offline_backend(tmp_path)
    text = "# Guide > Install\n\nRun the installer as an administrator.\n\n## Linux\n\n"
    text += "Unpack the tarball into the opt folder first."
    retrieved = RetrievedChunk(
        content=text,
        score=0.5,
        metadata=ChunkMetadata(
            chunk_id="c1", source_file="guide.md", file_type="md", heading="Guide > Install"
        ),
    )
    sections = {
        s.candidate.text: s.candidate.section
        for s in backend.scored_sentences("How do I install on Linux?", [retrieved])
    }
    assert sections == {
        "Run the installer as an administrator.": "Install",
        "Unpack the tarball into the opt folder first.": "Linux",
    }


def test_a_pdf_outline_gives_each_page_its_heading_path(tmp_path):
    from pypdf import PdfWriter

    from tests.support.common import SAMPLE

    writer = PdfWriter(clone_from=SAMPLE / "docs" / "admin_guide.pdf")
    guide = writer.add_outline_item(title="Administrator guide", page_number=0)
    writer.add_outline_item(title="Security", page_number=1, parent=guide)
    writer.add_outline_item(title="Operations", page_number=2, parent=guide)
    path = tmp_path / "guide.pdf"
    writer.write(path)
    sections = load(path).sections
    assert [s.heading for s in sections] == [
        "Administrator guide",
        "Administrator guide > Security",
        "Administrator guide > Operations",
        "Administrator guide > Operations",
    ]
    counter = TokenCounter(bundled_model_dir())
    for chunk in Chunker(counter).chunk(sections):
        assert chunk.text.startswith(f"# {sections[chunk.page - 1].heading}\n\n")
