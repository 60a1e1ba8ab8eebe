"""Plain text, Markdown and reStructuredText: a whole text file, a Markdown heading's
section, or an reST heading's section with its line range."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from ragcli.ingest.loaders.base import LoadedFile, Section, lines_locator
from ragcli.ingest.loaders.encoding import read_text


def load_text(path: Path, file_type: str) -> LoadedFile:
    text, notes = read_text(path)
    split = {"txt": _text_sections, "md": markdown_sections, "rst": rst_sections}[file_type]
    return LoadedFile(file_type, split(text), notes=notes)


def _text_sections(text: str) -> list[Section]:
    return [Section(text)]


HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
# MkDocs / Pandoc attribute blocks after a heading: `Recap { #recap }`, `{.note}`.
ATTRIBUTES = re.compile(r"\s*\{\s*[#.][^{}]*\}\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def markdown_sections(text: str) -> list[Section]:
    return list(iter_markdown_sections(text.splitlines()))


def iter_markdown_sections(lines: Iterable[str], max_chars: int = 1 << 20) -> Iterator[Section]:
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
            path.append((level, heading_title(match.group(2))))
        elif size > max_chars:
            yield from flush()
            size = 0
        buffered.append(line)
        size += len(line) + 1
    yield from flush()


def heading_title(text: str) -> str:
    """A heading as a reader sees it: without the attribute block a site generator reads."""
    return ATTRIBUTES.sub("", text).strip() or text


# An reST section title is underlined (and may be overlined) with one punctuation character
# repeated at least as long as the title; the order in which styles appear gives the levels.
RST_ADORNMENT = re.compile(r"^([=\-`:'\"~^_*+#<>.])\1{2,}\s*$")


def rst_sections(text: str) -> list[Section]:
    lines = text.splitlines()
    styles: list[str] = []
    path: list[tuple[int, str]] = []
    sections: list[Section] = []
    start = 0  # index of the first line of the current section
    titles: list[tuple[int, int, str, str]] = []  # (title line, next line, title, style)
    index = 1
    while index < len(lines):
        title, under = lines[index - 1].strip(), lines[index]
        match = RST_ADORNMENT.match(under)
        if title and match and len(under.rstrip()) >= len(title) and not RST_ADORNMENT.match(title):
            over = index >= 2 and lines[index - 2].strip() == under.strip()
            style = match.group(1) + ("o" if over else "")
            first = index - 2 if over else index - 1
            titles.append((first, index + 1, title, style))
            index += 2
            continue
        index += 1
    for first, after, title, style in titles:
        _add_rst(sections, lines, start, first, path)
        if style not in styles:
            styles.append(style)
        level = styles.index(style)
        path[:] = [(lvl, name) for lvl, name in path if lvl < level]
        path.append((level, title))
        start = after
    _add_rst(sections, lines, start, len(lines), path)
    return sections


def _add_rst(
    sections: list[Section], lines: list[str], start: int, end: int, path: list[tuple[int, str]]
) -> None:
    body = "\n".join(lines[start:end])
    if not body.strip():
        return
    # The range shown is that of the text, without the blank lines around it.
    while not lines[start].strip():
        start += 1
    while not lines[end - 1].strip():
        end -= 1
    heading = " > ".join(name for _, name in path) or None
    sections.append(Section(body.strip(), heading=heading, locator=lines_locator(start + 1, end)))


def iter_sections(path: Path, file_type: str, encoding: str) -> Iterator[Section]:
    """Sections of a large text or Markdown file, read in blocks (see textstream.py)."""
    from ragcli.ingest.textstream import iter_lines, iter_text

    if file_type == "md":
        sections: Iterable[Section] = iter_markdown_sections(iter_lines(path, encoding))
    else:
        sections = (Section(piece) for piece in iter_text(path, encoding))
    return (s for s in sections if s.text.strip())
