"""Org mode (.org): orgparse reads the outline (headlines, their TODO state, priority, tags,
properties and planning); the text under each headline is read into blocks by
blocks/org.py. Each headline is a section under its heading path, cited by its lines, with
its state, tags and properties as the section's metadata (filterable); the file's
`#+TITLE`, `#+AUTHOR`, `#+DATE` and `#+FILETAGS` are the document's."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

from ragcli.blocks.model import Block, Heading, Paragraph
from ragcli.blocks.org import OrgBody, inline, org_body
from ragcli.ingest.loaders.base import LoadedFile, LoadError, Section, spans_locator
from ragcli.ingest.loaders.encoding import read_text

FILE_KEYWORD = re.compile(r"^\s*#\+(\w+):[ \t]*(.*?)\s*$", re.I)
HEADLINE = re.compile(r"^\*+\s")
# The file keywords kept as the document's metadata (lower-case), and what each is called.
DOCUMENT_KEYWORDS = {
    "title": "title",
    "author": "author",
    "date": "date",
    "email": "email",
    "filetags": "tags",
    "description": "description",
    "keywords": "keywords",
}


def load_org(path: Path) -> LoadedFile:
    text, notes = read_text(path)
    import orgparse

    try:
        root = orgparse.loads(text, filename=str(path))
        nodes = list(root[1:])
    except Exception as exc:  # orgparse raises what its regular expressions meet
        raise LoadError(f"cannot read Org file ({type(exc).__name__}: {str(exc)[:80]})") from None
    lines = text.split("\n")
    metadata = _document_metadata(lines)
    title = metadata.get("title")
    shift = 1 if isinstance(title, str) and title else 0
    file_tags = _as_list(metadata.get("tags"))
    sections: list[Section] = []
    starts = [_line_of(node, lines) for node in nodes]
    first_headline = starts[0] if starts else len(lines) + 1
    # What comes before the first headline sits under the title.
    stack: list[tuple[int, str]] = []
    preamble = org_body(lines[: first_headline - 1], 1)
    if shift:
        assert isinstance(title, str)
        stack = [(1, inline(title))]
    sections += _sections(_heading(stack) if shift else None, preamble, {})
    for index, node in enumerate(nodes):
        start = starts[index]
        end = starts[index + 1] - 1 if index + 1 < len(nodes) else len(lines)
        level = node.level + shift
        stack = [(lv, t) for lv, t in stack if lv < level]
        title_text = inline(node.heading) or "(untitled)"
        stack.append((level, title_text))
        heading = _heading(stack)
        body = org_body(lines[start:end], start + 1)
        node_metadata = _node_metadata(node, file_tags)
        status = _status(node_metadata)
        if status:
            body.blocks.insert(0, Paragraph(status))
            body.lines[id(body.blocks[0])] = (start, start)
        sections += _sections(heading, body, node_metadata, start)
    return LoadedFile("org", sections, notes=notes, metadata=metadata)


def _line_of(node: Any, lines: list[str]) -> int:
    """The node's headline's line (1-based)."""
    return int(node.linenumber)


def _heading(stack: list[tuple[int, str]]) -> Heading:
    level, title = stack[-1]
    return Heading(level, title, tuple(t for _, t in stack))


def _sections(
    heading: Heading | None,
    body: OrgBody,
    metadata: dict[str, str | list[str]],
    heading_line: int | None = None,
) -> list[Section]:
    """The headline's section: its heading and its blocks, cited by their lines."""
    from ragcli.ingest.loaders.text import block_sections

    if not body.blocks:
        return []
    blocks: list[Block] = [heading, *body.blocks] if heading else list(body.blocks)
    if heading and heading_line:
        body.lines[id(heading)] = (heading_line, heading_line)
    sections = list(block_sections(blocks))
    for section in sections:
        spans = tuple(body.lines.get(id(block)) for block in section.blocks or ())
        known = [span for span in spans if span is not None]
        if known:
            section.locator = spans_locator(known)
            section.block_lines = spans
        section.heading = section.heading or (" > ".join(heading.path) if heading else None)
        section.metadata = dict(metadata)
    return sections


def _document_metadata(lines: list[str]) -> dict[str, str | list[str]]:
    found: dict[str, str | list[str]] = {}
    for line in lines:
        if HEADLINE.match(line):
            break
        match = FILE_KEYWORD.match(line)
        if match is None or not match.group(2):
            continue
        key = DOCUMENT_KEYWORDS.get(match.group(1).lower())
        if key == "tags":
            found[key] = [t for t in re.split(r"[:\s]+", match.group(2)) if t]
        elif key == "keywords":
            found[key] = [k.strip() for k in re.split(r"[,;]", match.group(2)) if k.strip()]
        elif key:
            found[key] = inline(match.group(2))
    return found


def _node_metadata(node: Any, file_tags: list[str]) -> dict[str, str | list[str]]:
    """A headline's state, priority, tags (its own, its parents' and the file's),
    properties and planning dates, as metadata: keys lower-case."""
    found: dict[str, str | list[str]] = {}
    for key, value in (node.properties or {}).items():
        if str(key).lower() == "effort" and isinstance(value, int):
            value = f"{value // 60}:{value % 60:02d}"  # orgparse reads it as minutes
        text = " ".join(str(value).split())
        if text:
            found[str(key).lower()] = text
    if node.todo:
        found["todo"] = str(node.todo)
    if node.priority:
        found["priority"] = str(node.priority)
    tags = sorted(set(node.tags or ()) | set(file_tags))
    if tags:
        found["tags"] = tags
    for name in ("scheduled", "deadline", "closed"):
        date = getattr(node, name, None)
        if date and getattr(date, "start", None):
            start = date.start  # a date, or a datetime when the stamp has a time
            found[name] = (
                start.isoformat(sep=" ", timespec="minutes")
                if isinstance(start, datetime)
                else start.isoformat()
            )
    return found


def _status(metadata: dict[str, str | list[str]]) -> str:
    """The headline's state as a sentence, so the text says what the agenda shows:
    "DONE, priority A. Tags: work, home. Deadline: 2010-08-10."."""
    parts = []
    first = ", ".join(
        part
        for part in (
            str(metadata.get("todo", "")),
            f"priority {metadata['priority']}" if "priority" in metadata else "",
        )
        if part
    )
    if first:
        parts.append(first[0].upper() + first[1:] + ".")
    tags = _as_list(metadata.get("tags"))
    if tags:
        parts.append(f"Tags: {', '.join(tags)}.")
    for name in ("scheduled", "deadline", "closed"):
        if name in metadata:
            parts.append(f"{name.capitalize()}: {metadata[name]}.")
    return " ".join(parts)


def _as_list(value: str | list[str] | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)
