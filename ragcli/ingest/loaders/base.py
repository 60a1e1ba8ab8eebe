"""What every loader returns, and the one error a loader raises.

A loader turns a file into `Section`s: text plus where it sits in the file. `locator` is
that place as a citation shows it ("page 3 (OCR)", "slide 4", "Sheet1, rows 20–45",
"cell 7", "lines 12–40"); `heading` is the heading path or title the text sits under."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from ragcli.blocks.model import Block

OcrMode = Literal["auto", "off", "force"]


class LoadError(Exception):
    """The file cannot be ingested; the message is the reason shown to the user, one line."""


class NothingOfItsOwn(LoadError):
    """The file holds no text of its own: it is empty, only whitespace or markup, a blank
    scan, or a Sphinx page that is only a table of contents. Skipped with this reason, not
    failed: the exit code is for files that could not be read."""


@dataclass
class Section:
    text: str
    page: int | None = None
    heading: str | None = None
    locator: str | None = None
    # A table's sections (a sheet, a CSV): the row number of each line of `text`, so a
    # chunk, and an answer quoting some of its lines, can be cited by its own rows.
    rows: tuple[int, ...] | None = None
    # Markdown, reST and HTML: the blocks `text` renders (ragcli/blocks/), which the
    # chunker cuts between; None for text without structure (plain text, a PDF page).
    blocks: tuple[Block, ...] | None = None
    # reST: each block's first and last line in the file (None where unknown), so that a
    # chunk cut from the section is cited by its own lines.
    block_lines: tuple[tuple[int, int] | None, ...] | None = None
    # What the section's document says of itself, beyond its text (issue 66): front
    # matter's tags, categories, keywords, author, date; an e-mail's subject, from, to and
    # date. Keys lower-case; a value a string or a list of strings. Merged over the file's
    # `LoadedFile.metadata` (a key here wins), stored with each chunk, filterable.
    metadata: dict[str, str | list[str]] = field(default_factory=dict)


@dataclass
class LoadedFile:
    file_type: str
    sections: list[Section]
    pages: int | None = None  # pages of a PDF, slides of a deck, images of a scan
    notes: list[str] = field(default_factory=list)
    ocr_pages: int = 0  # pages (or images) whose text came from OCR
    # The document's own metadata (front matter, a Word or PDF file's properties), for
    # every section; see Section.metadata.
    metadata: dict[str, str | list[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class LoadOptions:
    """Settings a loader needs (config.yaml `ingest:`)."""

    ocr: OcrMode = "auto"  # auto: OCR images and PDF pages without a text layer
    ocr_languages: str = "eng"  # Tesseract's form: "eng", "eng+deu"


def lines_locator(first: int, last: int) -> str:
    return f"line {first}" if first == last else f"lines {first}–{last}"


def spans_locator(spans: Sequence[tuple[int, int]]) -> str:
    """The lines of blocks (each its first and last line) together: first to last."""
    return lines_locator(min(first for first, _ in spans), max(last for _, last in spans))


def rows_locator(sheet: str | None, numbers: Sequence[int], span: bool = False) -> str:
    """`Prices, row 42`, `Prices, rows 20–45`, `rows 3, 7` (a CSV has no sheet name):
    consecutive rows as a range, others listed; with `span`, first to last (a section's
    rows, empty rows between them included)."""
    runs = [(min(numbers), max(numbers))] if span else _runs(numbers)
    where = ", ".join(str(first) if first == last else f"{first}–{last}" for first, last in runs)
    label = f"row {where}" if len(set(numbers)) == 1 else f"rows {where}"
    return f"{sheet}, {label}" if sheet else label


def compact_rows(numbers: Sequence[int]) -> str:
    """Row numbers as stored with a chunk: `20-24,26-45` (a store keeps scalars only)."""
    return ",".join(
        str(first) if first == last else f"{first}-{last}" for first, last in _runs(numbers)
    )


def expand_rows(text: str) -> list[int]:
    """The row numbers `compact_rows` wrote; [] for anything else."""
    numbers: list[int] = []
    for part in text.split(","):
        first, _, last = part.strip().partition("-")
        if not first.isdigit() or (last and not last.isdigit()):
            return []
        numbers.extend(range(int(first), int(last or first) + 1))
    return numbers


def _runs(numbers: Sequence[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for number in sorted(set(numbers)):
        if runs and number == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    return runs
