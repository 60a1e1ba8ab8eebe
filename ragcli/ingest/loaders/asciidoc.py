"""AsciiDoc (.adoc .asciidoc): read by Asciidoctor into blocks (ragcli/blocks/asciidoc.py),
one section per heading, each cited by its lines; the document's author, revision date,
keywords and description are its metadata."""

from __future__ import annotations

from pathlib import Path

from ragcli.ingest.loaders.base import LoadedFile, LoadError, Section, spans_locator
from ragcli.ingest.loaders.encoding import read_text


def load_asciidoc(path: Path) -> LoadedFile:
    from ragcli.blocks.asciidoc import (
        AsciidoctorFailed,
        AsciidoctorMissing,
        include_loop,
        read_asciidoc,
    )
    from ragcli.blocks.markdown import with_paths
    from ragcli.ingest.loaders.text import block_sections

    text, notes = read_text(path)
    try:
        document = read_asciidoc(path, text)
    except (AsciidoctorMissing, AsciidoctorFailed) as exc:
        raise LoadError(str(exc)) from None
    loop = include_loop(path)
    if loop:
        notes.append(f"include loop: {' → '.join(loop)} (includes are read as references)")
    notes += [f"Asciidoctor warned: {warning}" for warning in document.warnings]
    blocks = with_paths(document.blocks)
    for old, new in zip(document.blocks, blocks, strict=True):
        if new is not old and id(old) in document.lines:  # a heading given its path
            document.lines[id(new)] = document.lines[id(old)]
    sections: list[Section] = []
    for section in block_sections(blocks):
        spans = tuple(document.lines.get(id(block)) for block in section.blocks or ())
        known = [span for span in spans if span is not None]
        if known:
            section.locator = spans_locator(known)
            section.block_lines = spans
        sections.append(section)
    return LoadedFile("adoc", sections, notes=notes, metadata=document.metadata)
