"""AsciiDoc read by Asciidoctor into the blocks Markdown and reST read into, from real files
(tests/data/formats/README.md): sections and their levels, lists, source blocks with their
language, tables, admonitions, includes as references, attributes substituted."""

from __future__ import annotations

import shutil

import pytest

from ragcli.blocks.model import Admonition, CodeBlock, Table
from ragcli.ingest.loaders import LoadError, load
from tests.support.common import ROOT

DATA = ROOT / "tests" / "data" / "formats" / "adoc"

pytestmark = pytest.mark.skipif(
    shutil.which("ruby") is None, reason="Asciidoctor is not installed (scripts/install.sh)"
)


def blocks_of(sections, kind):
    return [b for s in sections for b in s.blocks or () if isinstance(b, kind)]


def test_sections_lists_tables_and_admonitions_of_asciidoctors_own_sample():
    loaded = load(DATA / "sample.adoc")
    assert loaded.metadata == {"author": "Doc Writer", "email": "thedoc@asciidoctor.org"}
    headings = [s.heading for s in loaded.sections]
    assert headings == [
        "Document Title",
        "Document Title > Section A",
        "Document Title > Section A > Section A Subsection",
        "Document Title > Section B",
    ]
    assert loaded.sections[2].locator == "lines 14–16"
    (note,) = blocks_of(loaded.sections, Admonition)
    assert note.kind == "note" and "This is test, only a test." in loaded.sections[0].text
    (table,) = blocks_of(loaded.sections, Table)
    assert table.header == ("a", "b", "c") and table.rows == (("1", "2", "3"),)
    assert "Section B list:\n\n- Item 1\n- Item 2" in loaded.sections[3].text


def test_a_real_readme_attributes_substituted_source_language_and_revision():
    loaded = load(DATA / "asciidoctor-README.adoc")
    assert loaded.metadata["revnumber"] == "2.0.18"
    assert loaded.metadata["authors"] == ["Dan Allen", "Sarah White"]
    text = "\n".join(s.text for s in loaded.sections)
    assert "{" not in text.split("```")[0]  # attribute references are substituted
    api = next(s for s in loaded.sections if s.heading == "Asciidoctor > Usage > Ruby API")
    code = [b for b in api.blocks or () if isinstance(b, CodeBlock)]
    assert code and code[0].language == "ruby"  # `:source-language: ruby` applies
    assert "require 'asciidoctor'" in code[0].text
    kinds = [b.kind for b in blocks_of(loaded.sections, Admonition)]
    assert kinds == ["caution", "warning"]  # a `[CAUTION]` block, a `WARNING:` paragraph


def test_includes_are_references_and_a_loop_is_one_note(tmp_path):
    loaded = load(DATA / "parent-include.adoc")
    (reference,) = blocks_of(loaded.sections, CodeBlock)
    assert reference.include == "child-include.adoc"
    assert reference.text == "text included from child-include.adoc"
    assert "first line of parent" in loaded.sections[0].text
    (tmp_path / "a.adoc").write_text("= A\n\nText of a.\n\ninclude::b.adoc[]\n")
    (tmp_path / "b.adoc").write_text("Text of b.\n\ninclude::a.adoc[]\n")
    looped = load(tmp_path / "a.adoc")
    assert looped.notes == [
        "include loop: a.adoc → b.adoc → a.adoc (includes are read as references)"
    ]
    assert "Text of a." in looped.sections[0].text


def test_an_attributes_file_is_included_so_its_attributes_are_substituted(tmp_path):
    (tmp_path / "attributes.adoc").write_text(":product: Frobnicator\n// shared\n")
    (tmp_path / "page.adoc").write_text(
        "= Guide\ninclude::attributes.adoc[]\n\nInstall {product} first.\n"
    )
    loaded = load(tmp_path / "page.adoc")
    assert "Install Frobnicator first." in loaded.sections[0].text


def test_a_listing_of_an_included_file_is_a_code_reference():
    loaded = load(DATA / "admonition.adoc")
    references = [b for b in blocks_of(loaded.sections, CodeBlock) if b.is_reference]
    assert references and all("admonition.adoc" in (b.include or "") for b in references)
    assert loaded.notes == []  # callouts of an included listing are not warned about


def test_without_asciidoctor_the_file_fails_with_what_to_install(tmp_path, monkeypatch):
    from ragcli.blocks import asciidoc

    monkeypatch.setattr(asciidoc, "_instance", None)
    monkeypatch.setattr(asciidoc.shutil, "which", lambda name: None)
    (tmp_path / "x.adoc").write_text("= X\n\nText.\n")
    with pytest.raises(LoadError, match="apt-get install asciidoctor"):
        load(tmp_path / "x.adoc")
