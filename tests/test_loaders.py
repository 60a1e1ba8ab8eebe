from pathlib import Path

import pytest

from ragcli.ingest.loaders import LoadError, load
from ragcli.ingest.walker import walk

SAMPLE = Path(__file__).resolve().parent.parent / "sample_corpus"


def test_markdown_keeps_the_heading_path(tmp_path):
    doc = tmp_path / "a.md"
    doc.write_text(
        "# Guide\nintro text\n## Install\n### Linux\napt install it\n"
        "```\n# not a heading\n```\n## Usage\nrun it\n"
    )
    sections = load(doc).sections
    headings = [s.heading for s in sections]
    assert headings == ["Guide", "Guide > Install > Linux", "Guide > Usage"]
    assert "# not a heading" in sections[1].text


def test_heading_attribute_blocks_are_not_part_of_the_heading(tmp_path):
    doc = tmp_path / "guide.md"
    doc.write_text(
        "# Tutorial { #tutorial }\n\n## Recap {.note #recap}\n\nKeep it short.\n\n"
        "## Sets {a} and {b}\n\nBraces in a title stay.\n"
    )
    headings = [s.heading for s in load(doc).sections]
    assert headings == ["Tutorial > Recap", "Tutorial > Sets {a} and {b}"]


def test_pdf_text_per_page_with_page_numbers():
    loaded = load(SAMPLE / "docs" / "admin_guide.pdf")
    assert loaded.file_type == "pdf" and loaded.pages == 4
    assert [s.page for s in loaded.sections] == [1, 2, 3, 4]
    assert "9420" in loaded.sections[2].text  # the metrics port lives on page 3
    assert "9420" not in loaded.sections[0].text


def test_html_keeps_visible_text_only():
    text = "\n".join(s.text for s in load(SAMPLE / "docs" / "system_requirements.html").sections)
    assert "Internet Explorer is not supported" in text
    for hidden in (
        "SCRIPT_SHOULD_NOT_BE_INDEXED",
        "STYLESHEET_SHOULD_NOT_BE_INDEXED",
        "dwAnalytics",
    ):
        assert hidden not in text


def test_latin1_text_is_decoded_with_a_note(tmp_path):
    doc = tmp_path / "old.txt"
    doc.write_bytes("Café prices in €: crème brûlée".encode("cp1252"))
    loaded = load(doc)
    assert "Café" in loaded.sections[0].text and "€" in loaded.sections[0].text
    assert loaded.notes == ["not UTF-8: decoded as Windows-1252"]


@pytest.mark.parametrize(
    "name, data, reason",
    [
        ("empty.txt", b"", "empty file"),
        ("blank.md", b"   \n\n  ", "empty file"),
        ("nul.txt", b"text\x00with\x00nul", "binary file"),
        ("bad.pdf", b"%PDF-1.4 this is not really a pdf", "corrupt PDF"),
        ("data.bin", b"\x01\x02", "unsupported file type .bin"),
    ],
)
def test_unreadable_files_raise_a_one_line_reason(tmp_path, name, data, reason):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(LoadError) as error:
        load(path)
    assert reason in str(error.value) and "\n" not in str(error.value)


def test_walk_skips_hidden_entries_and_ragignore(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x.md").write_text("hidden")
    (tmp_path / ".secret.md").write_text("hidden")
    (tmp_path / "drafts").mkdir()
    (tmp_path / "drafts" / "d.md").write_text("ignored")
    (tmp_path / "keep").mkdir()
    (tmp_path / "keep" / "a.md").write_text("kept")
    (tmp_path / "keep" / "b.log").write_text("ignored")
    (tmp_path / ".ragignore").write_text("drafts/\n*.log\n")
    found = sorted(p.relative_to(tmp_path).as_posix() for p in walk(tmp_path))
    assert found == ["keep/a.md"]


def test_walk_survives_a_symlink_loop(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "doc.md").write_text("x")
    (tmp_path / "a" / "loop").symlink_to(tmp_path / "a")
    assert [p.name for p in walk(tmp_path)] == ["doc.md"]


def test_mostly_utf8_with_a_bad_byte_reads_as_utf8_with_a_note(tmp_path):
    """A UTF-8 page with one stray byte is UTF-8 with that byte replaced, said in a note;
    never decoded as UTF-16 into garbage (issue 66)."""
    from ragcli.ingest.loaders import load

    page = tmp_path / "damaged.md"
    page.write_bytes("# Café\n\nNaïve résumé, déjà vu ".encode() + b"\xff" + b" here.\n")
    loaded = load(page)
    assert "Naïve résumé, déjà vu \ufffd here." in loaded.sections[0].text
    assert loaded.notes == ["not valid UTF-8: 1 byte read as \ufffd"]
    ascii_with_junk = tmp_path / "junk.md"
    ascii_with_junk.write_bytes(b"# Notes\n\nPlain text with bytes \xff\xfe\xfd in it.\n" * 3)
    loaded = load(ascii_with_junk)
    assert loaded.sections[0].text.startswith("# Notes\n\nPlain text with bytes")
    assert loaded.notes and "UTF-16" not in loaded.notes[0]
