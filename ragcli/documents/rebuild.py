"""A file's stored chunks put back into its sections, as the loader read them.

The chunker (ingest/chunker.py) cuts a section into chunks that each repeat the last few
pieces of the chunk before (`ingest.overlap_tokens`), and starts every chunk after the
first with the section's heading path as a `# A > B` line (cut when long). Undoing both:
a chunk continues the section before it when it has the same heading and place kind (the
same page, slide, sheet or cell) and opens with that heading line; its text then loses
the line and the longest start that the chunk before ends with, cut at a break between
pieces. A section's first chunk keeps its text as stored, the heading line a loader without
headings in its text was given included, so a Word section reads `# Guide > Setup` first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ragcli.documents.model import DocumentPart, DocumentSection, OutlineEntry
from ragcli.documents.places import span_of
from ragcli.models import ChunkMetadata, heading_line

_BREAK = re.compile(r"\s")
# The shortest overlap taken for one: a shorter match ("|" ending a table row and
# opening the next chunk's) is more likely a coincidence than a repeated piece. Whole
# blocks or lines repeated (ending at a line break) may be shorter ("Check it:").
MIN_OVERLAP = 10
MIN_BLOCK_OVERLAP = 3
_WORD = re.compile(r"\w")
_SENTENCE_END = re.compile(r"[.!?:;)\]\"'`”’]\s*$")
_CLOSING_FENCE = re.compile(r"\n(`{3,}|~{3,})$")
_TABLE_DELIMITER = re.compile(r"^\|(?: ?:?-{3,}:? ?\|)+$")
# A table's line as its loader writes it: `header: value; header: value`.
_ROW = re.compile(r"^[^\n:;]+: [^\n]*;")


def rebuild(chunks: Iterable[tuple[str, ChunkMetadata]]) -> list[DocumentSection]:
    """Sections from a file's chunks in their stored order (chunk_index)."""
    sections: list[DocumentSection] = []
    previous = ""  # the last chunk's body, which the next may repeat the end of
    for text, meta in sorted(chunks, key=lambda chunk: chunk[1].chunk_index):
        current = sections[-1] if sections else None
        body = _without_heading_line(text, meta.heading)
        if current is not None and body is not None and _continues(current, meta):
            own, joiner = _after_overlap(previous, body, meta.chunk_method)
            if own:
                current.parts.append(_part(meta, own, joiner))
                current.text = _mended(current.text, joiner, own)
                current.locator = _joined_locator(current.locator, meta.locator)
            previous = body
            continue
        text = text.strip()
        sections.append(
            DocumentSection(
                heading=meta.heading,
                locator=meta.locator,
                page=meta.page,
                text=text,
                parts=[_part(meta, text, "")],
            )
        )
        previous = body if body is not None else text
    return sections


def outline(sections: list[DocumentSection]) -> list[OutlineEntry]:
    """Each heading path's steps in the order the sections first reach them: "A > B"
    after "A" adds "B" at level 2; a path met again adds nothing."""
    entries: list[OutlineEntry] = []
    seen: set[tuple[str, ...]] = set()
    for section in sections:
        if not section.heading:
            continue
        path = tuple(step.strip() for step in section.heading.split(" > "))
        for depth in range(1, len(path) + 1):
            if path[:depth] not in seen:
                seen.add(path[:depth])
                entries.append(
                    OutlineEntry(heading=path[depth - 1], level=depth, locator=section.locator)
                )
    return entries


def _part(meta: ChunkMetadata, text: str, joiner: str) -> DocumentPart:
    return DocumentPart(
        chunk_id=meta.chunk_id,
        chunk_index=meta.chunk_index,
        locator=meta.locator or (f"page {meta.page}" if meta.page else None),
        text=text,
        joiner=joiner,
    )


def _without_heading_line(text: str, heading: str | None) -> str | None:
    """The chunk's text after the heading line the chunker put first (the whole path or
    its start, when the path was cut to fit); None when it does not open with one, as a
    section's first chunk that opens with its own heading does not."""
    if not heading:
        return text.strip()
    line, gap, rest = text.partition("\n\n")
    full = heading_line(heading)
    if gap and len(line) > 2 and full.startswith(line):
        return rest.strip()
    return None


def _continues(section: DocumentSection, meta: ChunkMetadata) -> bool:
    """Whether a chunk is the next piece of `section`: the same heading, page, and place
    kind (a line range may move on; a page, slide, cell or sheet may not)."""
    if meta.heading != section.heading or meta.page != section.page:
        return False
    before, after = span_of(section.parts[-1].locator), span_of(meta.locator, meta.page)
    if (before is None) != (after is None):
        return False
    if before is None or after is None:
        return True
    if before.unit != after.unit:
        return False
    if before.unit == "row":  # the same sheet: what the locator names before the rows
        return _sheet(section.parts[-1].locator) == _sheet(meta.locator)
    return before.unit == "line" or (before.first, before.last) == (after.first, after.last)


def _sheet(locator: str | None) -> str:
    return (locator or "").rsplit(",", 1)[0] if "," in (locator or "") else ""


def _after_overlap(before: str, body: str, method: str = "") -> tuple[str, str]:
    """`body` without the longest start of it that `before` ends with, both cut at a
    break between pieces, and the break it then begins with (its joiner). With no overlap,
    the joiner is a space inside a sentence the window cut (the chunk was cut between
    sentences or words, and the one before ends mid-sentence), a line break between rows
    of a table, else a blank line."""
    for cut in sorted((m.start() for m in _BREAK.finditer(body)), reverse=True):
        if cut < MIN_OVERLAP and (cut < MIN_BLOCK_OVERLAP or body[cut] != "\n"):
            continue
        if not _WORD.search(body[:cut]):
            break
        start = len(before) - cut
        if start < 0 or (start > 0 and not before[start - 1].isspace()):
            continue
        if before.endswith(body[:cut]):
            rest = body[cut:]
            own = rest.lstrip()
            return own, rest[: len(rest) - len(own)]
    if before.endswith(body):  # the whole chunk repeats the end of the one before
        return "", ""
    if method in ("sentence", "token") and not _SENTENCE_END.search(before):
        return body, " "
    rows = _ROW.match(before.rsplit("\n", 1)[-1]) and _ROW.match(body)
    return body, "\n" if rows else "\n\n"


def _mended(text: str, joiner: str, own: str) -> str:
    """`own` after `text`, a code block or table the chunker cut between the two made
    whole again: each part had its own fences, or repeated the table's header."""
    closing = _CLOSING_FENCE.search(text)
    if closing:
        fence = closing.group(1)
        opening = next(
            (
                line
                for line in reversed(text[: closing.start()].split("\n"))
                if line.startswith(fence)
            ),
            None,
        )
        first, _, rest = own.partition("\n")
        if opening is not None and first == opening and rest:
            return text[: closing.start()] + "\n" + rest
    head = _table_head(text)
    if head is not None and own.startswith(head + "\n"):
        return text + "\n" + own[len(head) + 1 :]
    return text + joiner + own


def _table_head(text: str) -> str | None:
    """The header and delimiter lines of the table `text` ends with, if it ends with one."""
    lines = text.split("\n")
    if not lines[-1].startswith("|"):
        return None
    for index in range(len(lines) - 1, 0, -1):
        if not lines[index].startswith("|"):
            return None
        if _TABLE_DELIMITER.match(lines[index]):
            return lines[index - 1] + "\n" + lines[index]
    return None


def _joined_locator(first: str | None, last: str | None) -> str | None:
    """A section's place from its first part's to its last's: "lines 7–11" and
    "lines 11–20" make "lines 7–20"; other kinds keep the first's unless a range."""
    a, b = span_of(first), span_of(last)
    if a is None or b is None or a.unit != b.unit or a.unit not in ("line", "row"):
        return first
    low, high = min(a.first, b.first), max(a.last, b.last)
    plural = {"line": "lines", "row": "rows"}[a.unit]
    prefix = first.rsplit(",", 1)[0] + ", " if a.unit == "row" and first and "," in first else ""
    return f"{prefix}{plural} {low}–{high}" if low != high else f"{prefix}{a.unit} {low}"
