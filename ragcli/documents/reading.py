"""A stored document read: the path a user typed found among the ingested files, its
chunks read from the store and put back together, a range of it chosen, and its size
bounded for a client that asked for at most so many characters."""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

from ragcli.documents.model import DocumentPart, DocumentSection, StoredDocument
from ragcli.documents.places import Request, Span, span_of
from ragcli.documents.rebuild import outline, rebuild
from ragcli.errors import ConfigError
from ragcli.metadata import from_chroma, is_stored_field
from ragcli.models import ChunkMetadata
from ragcli.store.manifest import FileRecord

# The chunk metadata ingest writes of each chunk (ChunkMetadata's fields, and the
# chunker's extras: a lead-in's code, the policy statements, the chunk's language); any
# other key is the document's own (front matter, a Word file's properties), listed as its
# metadata.
OWN_KEYS = frozenset(ChunkMetadata.model_fields) | {"continues", "triplets", "language"}
SHOWN_CANDIDATES = 5  # paths named when a path is ambiguous


def find_file(records: list[FileRecord], wanted: str, collection: str | None) -> FileRecord:
    """The ingested file `wanted` names: its stored path, its absolute path from here, or
    the end of one stored path (`policies/refund.md`). Several or none is a ConfigError
    that says which, or what to do."""
    exact = [r for r in records if r.path == wanted]
    if not exact and "://" not in wanted and not wanted.startswith("beir:"):
        absolute = os.path.abspath(os.path.expanduser(wanted))
        exact = [r for r in records if r.path == absolute]
    if not exact:
        tail = "/" + re.sub(r"^(?:\./)+", "", wanted.replace(os.sep, "/"))
        exact = [r for r in records if r.path.replace(os.sep, "/").endswith(tail)]
    where = f"collection {collection}" if collection else "any collection"
    if not exact:
        hint = (
            f"; ingest it first: ragcli ingest {wanted}"
            if Path(wanted).expanduser().exists()
            else " (ragcli sources lists what is stored)"
        )
        raise ConfigError(f"{wanted}: not an ingested file in {where}{hint}")
    if len(exact) > 1:
        names = ", ".join(f"{r.path} ({r.collection})" for r in exact[:SHOWN_CANDIDATES])
        more = f" and {len(exact) - SHOWN_CANDIDATES} more" if len(exact) > SHOWN_CANDIDATES else ""
        raise ConfigError(
            f"{wanted}: names {len(exact)} ingested files: {names}{more}; give more of the path"
        )
    return exact[0]


def document_of(record: FileRecord, chunks: list[tuple[str, dict[str, Any]]]) -> StoredDocument:
    """The whole document from its manifest row and its stored chunks."""
    chunks = sorted(chunks, key=lambda chunk: int(chunk[1].get("chunk_index") or 0))
    sections = rebuild((text, ChunkMetadata(**meta)) for text, meta in chunks)
    title, own = document_metadata(chunks[0][1] if chunks else {})
    document = StoredDocument(
        path=record.path,
        collection=record.collection,
        file_type=record.file_type,
        chunks=record.chunk_count,
        pages=record.pages,
        sha256=record.sha256,
        ingested_at=record.ingested_at,
        title=title,
        metadata=own,
        outline=outline(sections),
        sections=sections,
    )
    document.chars = document.shown_chars = len(document.text)
    return document


def document_metadata(first_chunk: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """A document's title (a stored title, else its first chunk's top heading) and its
    own metadata, from its first chunk's metadata."""
    own = {
        k: v
        for k, v in first_chunk.items()
        if k not in OWN_KEYS and not is_stored_field(k) and v not in (None, "")
    }
    read = from_chroma(first_chunk) or {}  # front matter, properties: as read (metadata.py)
    own.update(read)
    heading = str(first_chunk.get("heading") or "")
    named = read.get("title")
    title = first_chunk.get("title") or named or heading.split(" > ")[0].strip() or None
    return (title if isinstance(title, str) else None), own


def document_unit(document: StoredDocument) -> str | None:
    """The unit a range of this document counts in: its parts' most common place kind
    (lines of a Markdown file, pages of a PDF, slides, rows), or None when its parts have
    no place (plain text, a Word file): then a range counts lines of the text shown."""
    kinds = Counter(
        span.unit
        for section in document.sections
        for part in section.parts
        if (span := span_of(part.locator)) is not None
    )
    return kinds.most_common(1)[0][0] if kinds else None


def select(document: StoredDocument, request: Request) -> StoredDocument:
    """The document cut to the range asked for: the parts whose place meets it, or, for a
    document whose parts have no place, those lines of its text."""
    if request.whole or request.first is None or request.last is None:
        return document
    first, last = request.first, request.last
    unit = document_unit(document)
    if unit is None:
        sections = _lines_of(document.sections, first, last)
        named = f"lines {first}–{last}" if last != first else f"line {first}"
    else:
        sections = _parts_meeting(document.sections, Span(unit, first, last))  # type: ignore[arg-type]
        plural = {
            "line": "lines",
            "page": "pages",
            "slide": "slides",
            "row": "rows",
            "cell": "cells",
        }
        named = f"{plural[unit]} {first}–{last}" if last != first else f"{unit} {first}"
    chosen = document.model_copy(update={"sections": sections, "requested": named})
    chosen.shown_chars = len(chosen.text)
    if not sections:
        raise ConfigError(
            f"{request.shown()}: nothing stored at {named}; the document has "
            f"{_extent(document, unit)}"
        )
    return chosen


def bounded(document: StoredDocument, max_chars: int, request: Request) -> StoredDocument:
    """At most `max_chars` of the document: its first parts (or, for a document whose parts
    have no place, its first lines), with a note of what was left out and the request that
    shows the rest. A first part longer than the bound alone is cut inside."""
    if len(document.text) <= max_chars:
        return document
    unit = document_unit(document)
    end: int | None
    if unit is None:
        sections, resume, end = _first_lines(document, max_chars, request)
    else:
        sections, resume = _first_parts(document, max_chars, unit)
        end = request.last or _last_of(document, unit)
    cut = document.model_copy(update={"sections": sections})
    cut.shown_chars = len(cut.text)
    if resume is not None and end is not None and resume <= end:
        cut.next = f"{request.path}:{resume}-{end}"
    cut.note = (
        f"cut at {cut.shown_chars:,} of {document.shown_chars:,} characters "
        f"(at most {max_chars:,} are shown)" + (f"; the rest: {cut.next}" if cut.next else "")
    )
    return cut


def _first_parts(
    document: StoredDocument, max_chars: int, unit: str
) -> tuple[list[DocumentSection], int | None]:
    """The sections cut to the parts that fit, and where the first part left out starts."""
    kept: list[DocumentSection] = []
    used = 0
    for section in document.sections:
        parts: list[DocumentPart] = []
        for part in section.parts:
            size = len(part.text) + (len(part.joiner) if parts else (2 if kept else 0))
            if used + size > max_chars:
                if not kept and not parts:  # one part longer than the bound: its start
                    shown = part.model_copy(update={"text": part.text[:max_chars]})
                    kept.append(section.model_copy(update={"text": shown.text, "parts": [shown]}))
                    return kept, _start_after(document, part, unit)
                if parts:
                    kept.append(section.model_copy(update={"text": _joined(parts), "parts": parts}))
                span = span_of(part.locator)
                return kept, span.first if span is not None and span.unit == unit else None
            used += size
            parts.append(part)
        kept.append(section)
    return kept, None


def _start_after(document: StoredDocument, cut: DocumentPart, unit: str) -> int | None:
    """Where the part after `cut` starts, for a request that moves past a part too long
    to show whole."""
    after = False
    for section in document.sections:
        for part in section.parts:
            if after and (span := span_of(part.locator)) is not None and span.unit == unit:
                return span.first
            after = after or part is cut
    return None


def _first_lines(
    document: StoredDocument, max_chars: int, request: Request
) -> tuple[list[DocumentSection], int | None, int]:
    """The lines of the text shown that fit, the number of the first left out, and of the
    last line asked for (a range's lines count from its first)."""
    lines = document.text.split("\n")
    taken = used = 0
    for line in lines:
        if used + len(line) + 1 > max_chars and taken:
            break
        used += len(line) + 1
        taken += 1
    first = request.first or 1
    sections = _lines_of(document.sections, 1, taken)
    if used > max_chars:  # one line longer than the bound
        sections = [s.model_copy(update={"text": s.text[:max_chars]}) for s in sections[:1]]
    return sections, first + taken, first + len(lines) - 1


def _parts_meeting(sections: list[DocumentSection], wanted: Span) -> list[DocumentSection]:
    chosen: list[DocumentSection] = []
    for section in sections:
        parts = [
            part
            for part in section.parts
            if (span := span_of(part.locator)) is not None
            and span.unit == wanted.unit
            and span.meets(wanted.first, wanted.last)
        ]
        if not parts:
            continue
        whole = len(parts) == len(section.parts)
        text = section.text if whole else _joined(parts)
        chosen.append(section.model_copy(update={"text": text, "parts": parts}))
    return chosen


def _lines_of(sections: list[DocumentSection], first: int, last: int) -> list[DocumentSection]:
    """Lines `first` to `last` of the sections' text as shown (a blank line between
    sections), each section cut to those of its lines."""
    chosen: list[DocumentSection] = []
    line = 1
    for section in sections:
        lines = section.text.split("\n")
        start, end = line, line + len(lines) - 1
        if start <= last and first <= end:
            kept = lines[max(first, start) - start : min(last, end) - start + 1]
            chosen.append(section.model_copy(update={"text": "\n".join(kept)}))
        line = end + 2  # the blank line between sections
    return chosen


def _joined(parts: list[DocumentPart]) -> str:
    return "".join((part.joiner if n else "") + part.text for n, part in enumerate(parts))


def _last_of(document: StoredDocument, unit: str | None) -> int | None:
    if unit is None:
        return document.text.count("\n") + 1
    spans = [
        span.last
        for section in document.sections
        for part in section.parts
        if (span := span_of(part.locator)) is not None and span.unit == unit
    ]
    return max(spans, default=None)


def _extent(document: StoredDocument, unit: str | None) -> str:
    last = _last_of(document, unit)
    plural = {"line": "lines", "page": "pages", "slide": "slides", "row": "rows", "cell": "cells"}
    return f"{plural.get(unit or 'line', 'lines')} 1–{last}"
