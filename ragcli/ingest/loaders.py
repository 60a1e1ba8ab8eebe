"""Loaders turn a file into sections of text: a page of a PDF, a heading's section of a
Markdown file, or a whole text file. A file that cannot be read raises LoadError with a
one-line reason."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

FILE_TYPES = {
    ".txt": "txt",
    ".md": "md",
    ".markdown": "md",
    ".pdf": "pdf",
    ".html": "html",
    ".htm": "html",
}


class LoadError(Exception):
    """The file cannot be ingested; the message is the reason shown to the user."""


@dataclass
class Section:
    text: str
    page: int | None = None
    heading: str | None = None


@dataclass
class LoadedFile:
    file_type: str
    sections: list[Section]
    pages: int | None = None
    notes: list[str] = field(default_factory=list)


def file_type_of(path: Path) -> str | None:
    return FILE_TYPES.get(path.suffix.lower())


def load(path: Path) -> LoadedFile:
    file_type = file_type_of(path)
    if file_type is None:
        raise LoadError(f"unsupported file type {path.suffix or '(none)'}")
    if file_type == "pdf":
        loaded = _load_pdf(path)
    else:
        text, notes = read_text(path)
        sections = {"txt": _text_sections, "md": _markdown_sections, "html": _html_sections}[
            file_type
        ](text)
        loaded = LoadedFile(file_type, sections, notes=notes)
    loaded.sections = [s for s in loaded.sections if s.text.strip()]
    if not loaded.sections:
        raise LoadError(
            loaded.notes[-1] if file_type == "pdf" and loaded.notes else "no text found"
        )
    return loaded


# Encodings tried in order, with the note each one leaves. Not UTF-8: Windows-1252, then
# Latin-1 (which decodes any bytes), are by far the most common other encodings of text.
ENCODINGS: tuple[tuple[str, list[str]], ...] = (
    ("utf-8-sig", []),
    ("cp1252", ["not UTF-8: decoded as Windows-1252"]),
    ("latin-1", ["not UTF-8: decoded as Latin-1"]),
)


def read_text(path: Path) -> tuple[str, list[str]]:
    data = path.read_bytes()
    if not data.strip():
        raise LoadError("empty file")
    if b"\x00" in data[:8192]:
        raise LoadError("binary file (contains NUL bytes)")
    for encoding, note in ENCODINGS[:-1]:
        try:
            return data.decode(encoding), list(note)
        except UnicodeDecodeError:
            continue
    encoding, note = ENCODINGS[-1]
    return data.decode(encoding), list(note)


def _text_sections(text: str) -> list[Section]:
    return [Section(text)]


HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def _markdown_sections(text: str) -> list[Section]:
    return list(iter_markdown_sections(text.splitlines()))


def iter_markdown_sections(
    lines: Iterable[str], max_chars: int = 1 << 20
) -> Iterator[Section]:
    """Split at headings; each section keeps its heading path ("Install > Linux").

    A section longer than `max_chars` comes in several parts under the same heading, so
    a huge file streams through in bounded memory."""
    path: list[tuple[int, str]] = []
    buffered: list[str] = []
    size = 0
    in_fence = False

    def flush() -> Iterator[Section]:
        body = "\n".join(buffered).strip()
        # A heading with nothing under it before the next heading is not a section.
        if any(line.strip() and not HEADING.match(line) for line in buffered):
            heading = " > ".join(title for _, title in path) or None
            yield Section(body, heading=heading)
        buffered.clear()

    for line in lines:
        if FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else HEADING.match(line)
        if match:
            yield from flush()
            size = 0
            level = len(match.group(1))
            path[:] = [(lvl, title) for lvl, title in path if lvl < level]
            path.append((level, match.group(2)))
        elif size > max_chars:
            yield from flush()
            size = 0
        buffered.append(line)
        size += len(line) + 1
    yield from flush()


def iter_sections(path: Path, file_type: str, encoding: str) -> Iterator[Section]:
    """Sections of a large text or Markdown file, read in blocks (see textstream.py)."""
    from ragcli.ingest.textstream import iter_lines, iter_text

    if file_type == "md":
        sections: Iterable[Section] = iter_markdown_sections(iter_lines(path, encoding))
    else:
        sections = (Section(piece) for piece in iter_text(path, encoding))
    return (s for s in sections if s.text.strip())


def _html_sections(text: str) -> list[Section]:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(text, "html.parser")
    for hidden in soup(["script", "style", "noscript", "template", "head", "svg"]):
        hidden.decompose()
    visible = soup.get_text("\n")
    # Collapse the blank runs left by markup into paragraph breaks.
    lines = [re.sub(r"[ \t\xa0]+", " ", line).strip() for line in visible.splitlines()]
    body = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    title = soup.title.get_text(strip=True) if soup.title else None
    return [Section(body, heading=title)]


def _load_pdf(path: Path) -> LoadedFile:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(path)
        if reader.is_encrypted:
            try:
                if not reader.decrypt(""):
                    raise LoadError("encrypted PDF (needs a password)")
            except LoadError:
                raise
            except Exception:
                raise LoadError("encrypted PDF (needs a password)") from None
        sections = [
            Section(page.extract_text() or "", page=number)
            for number, page in enumerate(reader.pages, start=1)
        ]
    except LoadError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise LoadError(f"corrupt PDF ({type(exc).__name__}: {str(exc)[:80]})") from None
    except Exception as exc:  # pypdf raises a wide range of errors on damaged files
        raise LoadError(f"corrupt PDF ({type(exc).__name__})") from None
    notes = []
    if not any(s.text.strip() for s in sections):
        notes.append("PDF has no text layer (a scanned PDF needs OCR first)")
    return LoadedFile("pdf", sections, pages=len(sections), notes=notes)
