"""Text into the units an answer can quote: sentences, with hard-wrapped lines joined
first (a line break inside a paragraph is a space, as in a PEP, a .txt or an .rst file);
a Markdown list kept as one unit per item, a table as one per row (a Markdown `|` row, or
a `name: value; name: value` line, as the loaders write the rows of sheets, CSV files and
Word and HTML tables); a fenced code block kept whole; a heading on its own. Without
this, a wrapped sentence is cut at every line end and quoted in halves, and a sheet's rows
run together into one "sentence"."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

UnitKind = Literal["sentence", "item", "row", "code", "heading"]

FENCE = re.compile(r"^[ \t]*(```|~~~)")
HEADING = re.compile(r"^[ \t]*#{1,6}\s")
ITEM = re.compile(r"^[ \t]*(?:[-*+•]|\d{1,3}[.)])\s+")
RULE = re.compile(r"^[ \t]*(?:[-=*_]\s*){3,}$")  # a setext underline or a thematic break
TABLE_ROW = re.compile(r"^[ \t]*\|")
TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-{3,}")  # | --- | :--: |
# A field of a loader's table row (ingest/loaders/tables.py): a short column name, ": ", a
# value. A row is a line of such fields joined by "; ", two of them at least.
ROW_FIELD = re.compile(r"^[^\s:;|#>][^:;]{0,47}: \S")
# A sentence ends at . ! or ? (and any closing quote or bracket) before a capital, a digit,
# a quote or a bracket: "e.g. the" and "3.5 times" stay whole.
SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')\]]))\s+(?=[\"'(\[`*]?[A-Z0-9])")


@dataclass(frozen=True)
class Unit:
    text: str
    kind: UnitKind


def units(text: str) -> list[Unit]:
    return list(_segmented(text))


# An answer segments a chunk again for each lead-in it sizes and quotes, and the next
# answer often retrieves the same chunks: the last texts' units are kept (units are frozen).
@lru_cache(maxsize=512)
def _segmented(text: str) -> tuple[Unit, ...]:
    found: list[Unit] = []
    for block in _blocks(text):
        found.extend(_block_units(block))
    return tuple(u for u in found if len(u.text.strip()) > 1)


def sentence_texts(text: str) -> list[str]:
    return [u.text for u in units(text)]


def _blocks(text: str) -> list[str]:
    """Paragraphs, split at blank lines; a fenced code block is a block of its own from
    its opening fence to its closing one, blank lines inside it included."""
    blocks: list[str] = []
    current: list[str] = []
    fence: list[str] | None = None

    def flush() -> None:
        if current:
            blocks.append("\n".join(current))
            current.clear()

    for line in text.replace("\r\n", "\n").split("\n"):
        if fence is not None:
            fence.append(line)
            if FENCE.match(line):
                blocks.append("\n".join(fence))
                fence = None
        elif FENCE.match(line):
            flush()
            fence = [line]
        elif not line.strip():
            flush()
        else:
            current.append(line)
    flush()
    if fence is not None:  # never closed: the rest is code
        blocks.append("\n".join(fence))
    return blocks


def _block_units(block: str) -> list[Unit]:
    lines = [line for line in block.split("\n") if line.strip()]
    if not lines:
        return []
    if FENCE.match(lines[0]):
        return [Unit(block.strip("\n"), "code")]
    found: list[Unit] = []
    paragraph: list[str] = []
    item: list[str] | None = None

    def flush_paragraph() -> None:
        if paragraph:
            joined = " ".join(part.strip() for part in paragraph)
            found.extend(Unit(s.strip(), "sentence") for s in SENTENCE_END.split(joined))
            paragraph.clear()

    def flush_item() -> None:
        nonlocal item
        if item:
            found.append(Unit(" ".join(part.strip() for part in item), "item"))
        item = None

    for line in lines:
        if HEADING.match(line) or RULE.match(line):
            # A line underlined with === or --- is a heading (Markdown's setext, rST).
            underlined = RULE.match(line) and paragraph and set(line.strip()) <= {"=", "-"}
            title = paragraph.pop() if underlined else None
            flush_paragraph()
            flush_item()
            if HEADING.match(line) or title:
                found.append(Unit((title or line).strip(), "heading"))
            continue
        if TABLE_ROW.match(line):  # a table row is a unit of its own, as it was written
            flush_paragraph()
            flush_item()
            if not TABLE_RULE.match(line):
                found.append(Unit(line.strip(), "row"))
            continue
        if is_row_line(line):
            flush_paragraph()
            flush_item()
            found.append(Unit(line.strip(), "row"))
            continue
        if ITEM.match(line):
            flush_paragraph()
            flush_item()
            item = [line]
        elif item is not None and line[:1] in (" ", "\t"):
            item.append(line)  # an item's continuation line, indented
        else:
            flush_item()
            paragraph.append(line)
    flush_paragraph()
    flush_item()
    return found


def is_row_line(line: str) -> bool:
    """A `name: value; name: value` line: a table row as the loaders write it."""
    fields = line.strip().split("; ")
    named = sum(1 for f in fields if ROW_FIELD.match(f))
    return named >= 2 and bool(ROW_FIELD.match(fields[0]))
