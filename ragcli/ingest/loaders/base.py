"""What every loader returns, and the one error a loader raises.

A loader turns a file into `Section`s: text plus where it sits in the file. `locator` is
that place as a citation shows it ("page 3 (OCR)", "slide 4", "Sheet1, rows 20–45",
"cell 7", "lines 12–40"); `heading` is the heading path or title the text sits under."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

OcrMode = Literal["auto", "off", "force"]


class LoadError(Exception):
    """The file cannot be ingested; the message is the reason shown to the user, one line."""


@dataclass
class Section:
    text: str
    page: int | None = None
    heading: str | None = None
    locator: str | None = None


@dataclass
class LoadedFile:
    file_type: str
    sections: list[Section]
    pages: int | None = None  # pages of a PDF, slides of a deck, images of a scan
    notes: list[str] = field(default_factory=list)
    ocr_pages: int = 0  # pages (or images) whose text came from OCR


@dataclass(frozen=True)
class LoadOptions:
    """Settings a loader needs (config.yaml `ingest:`)."""

    ocr: OcrMode = "auto"  # auto: OCR images and PDF pages without a text layer
    ocr_languages: str = "eng"  # Tesseract's form: "eng", "eng+deu"


def lines_locator(first: int, last: int) -> str:
    return f"line {first}" if first == last else f"lines {first}–{last}"
