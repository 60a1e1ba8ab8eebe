"""The text under an Org headline, read into blocks: paragraphs, list items, source and
example blocks (`#+begin_src python`), tables, special blocks (`#+begin_note`) as
admonitions, each with its lines in the file.

The outline itself (headlines, TODO state, tags, properties, planning) is orgparse's
(ingest/loaders/org.py); orgparse leaves a headline's body as lines, and Org's block syntax
is line-based (a block opens and closes on a line of its own, a table row is a line that
starts with `|`), so the body is read a line at a time here. Inline markup is rendered as
Org's exporters show it: a link as its description (else its target), `=verbatim=` and
`~code~` as code spans, emphasis dropped."""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field

from ragcli.blocks.inline import code_span
from ragcli.blocks.model import Admonition, Block, CodeBlock, ListItem, Paragraph, Table

BEGIN = re.compile(r"^\s*#\+begin_(\w+)(?:[ \t]+(.*?))?\s*$", re.I)
KEYWORD = re.compile(r"^\s*#\+\w+(?:\[[^\]]*\])?:", re.I)
COMMENT = re.compile(r"^\s*#(?:\s|$)")
DRAWER = re.compile(r"^\s*:([\w-]+):\s*$")
DRAWER_END = re.compile(r"^\s*:end:\s*$", re.I)
PLANNING = re.compile(r"^\s*(?:SCHEDULED|DEADLINE|CLOSED|CLOCK):")
FIXED_WIDTH = re.compile(r"^\s*:(?: |$)")
TABLE_ROW = re.compile(r"^\s*\|")
TABLE_RULE = re.compile(r"^\s*\|[-+:|\s]*$")
RULE = re.compile(r"^\s*-{5,}\s*$")
ITEM = re.compile(r"^(\s*)([-+]|\d{1,9}[.)]|\s\*)\s+(.*)$")
CHECKBOX = re.compile(r"^\[([ xX-])\]\s+")
DESCRIPTION = re.compile(r"^(.*?)\s+::(?:\s+|$)")

# Special blocks Org's HTML export writes as `<div class="note">`: read as admonitions.
ADMONITIONS = {"note", "tip", "warning", "important", "caution", "danger", "hint", "info"}
# Blocks whose content is text to read (a quotation, a poem, centred lines).
TEXT_BLOCKS = {"quote", "verse", "center"}
# Blocks that are not the document's text: comments, raw output for one exporter.
SKIPPED_BLOCKS = {"comment", "export", "html", "latex"}

# Inline markup, with Org's own rules for where emphasis may open and close.
LINK = re.compile(r"\[\[([^\]]+)\](?:\[([^\]]*)\])?\]")
PRE = r"(?:(?<=[\s\-({'\"])|^)"
POST = r"(?=[\s\-.,;:!?')}\"\]]|$)"
VERBATIM = re.compile(PRE + r"([=~])(\S|\S.*?\S)\1" + POST)
EMPHASIS = re.compile(PRE + r"([*/_+])(\S|\S.*?\S)\1" + POST)
FOOTNOTE_REF = re.compile(r"\[fn:[\w-]*\]")
# An active or inactive timestamp (`<2010-08-16 Mon 10:00>`, `[2010-08-08 Sun]`): its date.
TIMESTAMP = re.compile(r"[<\[](\d{4}-\d\d-\d\d(?: [^<>\[\]\n]*)?)[>\]]")


@dataclass
class OrgBody:
    blocks: list[Block] = field(default_factory=list)
    # Each block's first and last line in the file (by the block's id), as Document keeps.
    lines: dict[int, tuple[int, int]] = field(default_factory=dict)

    def add(self, block: Block, first: int, last: int) -> None:
        self.blocks.append(block)
        self.lines[id(block)] = (first, last)


def org_body(lines: list[str], first_line: int) -> OrgBody:
    """The blocks of `lines`, a headline's body (or the text before the first headline),
    whose first line is line `first_line` of the file."""
    body = OrgBody()
    for block, first, last in _blocks(lines, 0, len(lines)):
        body.add(block, first + first_line, last + first_line)
    return body


def inline(text: str) -> str:
    """A line of Org text as it reads: links as their descriptions, verbatim and code as
    code spans, timestamps as their dates, emphasis and footnote marks dropped."""
    text = LINK.sub(lambda m: _link_text(m.group(1), m.group(2)), text)
    text = FOOTNOTE_REF.sub("", text)
    text = TIMESTAMP.sub(r"\1", text)
    parts: list[str] = []
    start = 0
    for match in VERBATIM.finditer(text):
        parts.append(_plain(text[start : match.start()]))
        parts.append(code_span(match.group(2)))
        start = match.end()
    parts.append(_plain(text[start:]))
    return " ".join("".join(parts).split())


def _plain(text: str) -> str:
    previous = None
    while previous != text:  # emphasis nests: */bold italic/*
        previous, text = text, EMPHASIS.sub(r"\2", text)
    return text


def _link_text(target: str, description: str | None) -> str:
    if description:
        return description
    for scheme in ("file:", "id:", "#", "*"):
        if target.startswith(scheme):
            return target[len(scheme) :]
    return target


def _blocks(lines: list[str], start: int, end: int) -> Iterator[tuple[Block, int, int]]:
    """Blocks of lines[start:end], each with its first and last index."""
    paragraph: list[str] = []
    paragraph_start = start
    index = start

    def flush(upto: int) -> Iterator[tuple[Block, int, int]]:
        if paragraph and (text := inline(" ".join(paragraph))):
            yield Paragraph(text), paragraph_start, upto - 1
        paragraph.clear()

    while index < end:
        line = lines[index]
        if begin := BEGIN.match(line):
            yield from flush(index)
            close = _closing(lines, index, end, begin.group(1))
            yield from _special(lines, index, close, begin.group(1).lower(), begin.group(2) or "")
            index = close + 1
        elif DRAWER.match(line) and (drawer_end := _drawer_end(lines, index, end)) is not None:
            yield from flush(index)
            index = drawer_end + 1
        elif TABLE_ROW.match(line):
            yield from flush(index)
            last = index
            while last + 1 < end and TABLE_ROW.match(lines[last + 1]):
                last += 1
            if (table := _table(lines[index : last + 1])) is not None:
                yield table, index, last
            index = last + 1
        elif FIXED_WIDTH.match(line):
            yield from flush(index)
            last = index
            while last + 1 < end and FIXED_WIDTH.match(lines[last + 1]):
                last += 1
            code = "\n".join(_fixed_width(text) for text in lines[index : last + 1])
            yield CodeBlock("", code), index, last
            index = last + 1
        elif ITEM.match(line):
            yield from flush(index)
            index = yield from _list(lines, index, end)
        elif (
            not line.strip()
            or RULE.match(line)
            or KEYWORD.match(line)
            or COMMENT.match(line)
            or PLANNING.match(line)
        ):
            yield from flush(index)
            index += 1
        else:
            if not paragraph:
                paragraph_start = index
            paragraph.append(line.strip())
            index += 1
    yield from flush(end)


def _closing(lines: list[str], index: int, end: int, name: str) -> int:
    """The index of the `#+end_NAME` closing the block opened at `index`; an unclosed
    block runs to the end, as Org reads it as text but a reader expects its content."""
    closing = re.compile(rf"^\s*#\+end_{re.escape(name)}\s*$", re.I)
    for number in range(index + 1, end):
        if closing.match(lines[number]):
            return number
    return end - 1 if end - 1 > index else index


def _drawer_end(lines: list[str], index: int, end: int) -> int | None:
    for number in range(index + 1, end):
        if DRAWER_END.match(lines[number]):
            return number
    return None


def _special(
    lines: list[str], first: int, last: int, name: str, arguments: str
) -> Iterator[tuple[Block, int, int]]:
    inner_end = last if last > first and BEGIN.match(lines[first]) else first + 1
    inner = lines[first + 1 : inner_end]
    if name in ("src", "example"):
        language = arguments.split()[0] if name == "src" and arguments else ""
        yield CodeBlock(language, _dedent(inner)), first, last
    elif name in SKIPPED_BLOCKS:
        return
    elif name in ADMONITIONS:
        blocks = tuple(block for block, _, _ in _blocks(lines, first + 1, inner_end))
        yield Admonition(name, inline(arguments), blocks), first, last
    elif name == "verse":  # its lines stay lines
        for number, line in enumerate(inner, start=first + 1):
            if text := inline(line):
                yield Paragraph(text), number, number
    else:  # quote, center, another exporter's special block: its text
        yield from _blocks(lines, first + 1, inner_end)


def _dedent(lines: list[str]) -> str:
    indents = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    cut = min(indents, default=0)
    # Org escapes a code line that would read as a headline or keyword with a comma.
    text = [line[cut:].rstrip() for line in lines]
    text = [line[1:] if line.startswith((",*", ",#+")) else line for line in text]
    return "\n".join(text).strip("\n")


def _fixed_width(line: str) -> str:
    stripped = line.lstrip()
    return stripped[2:] if stripped.startswith(": ") else ""


def _table(lines: list[str]) -> Table | None:
    """A table; rows above its first rule are its header (as Org's exporters make them),
    else its first row is. A table.el table (`+---+` borders) reads as rows too."""
    groups: list[list[tuple[str, ...]]] = [[]]
    for line in lines:
        if TABLE_RULE.match(line):
            groups.append([])
            continue
        cells = line.strip().strip("|").split("|")
        groups[-1].append(tuple(inline(cell) for cell in cells))
    rows = [row for group in groups for row in group if any(row)]
    if not rows:
        return None
    header_rows = [row for row in groups[0] if any(row)]
    if len(groups) > 1 and header_rows and len(header_rows) < len(rows):
        width = max(len(row) for row in header_rows)
        header = tuple(
            " ".join(row[i] for row in header_rows if i < len(row) and row[i]) for i in range(width)
        )
        return Table(header, tuple(rows[len(header_rows) :]))
    return Table(rows[0], tuple(rows[1:]))


def _list(lines: list[str], index: int, end: int) -> Generator[tuple[Block, int, int], None, int]:
    """The items of the list starting at `index`, each with its continuation lines;
    returns the index after the list (a generator's return value)."""
    indents: list[int] = []
    while index < end:
        match = ITEM.match(lines[index])
        if match is None:
            break
        indent = len(match.group(1)) + (1 if match.group(2) == " *" else 0)
        while indents and indent < indents[-1]:
            indents.pop()
        if not indents or indent > indents[-1]:
            indents.append(indent)
        first = index
        text = [match.group(3)]
        index += 1
        blank = 0
        while index < end:
            line = lines[index]
            if not line.strip():
                blank += 1
                if blank > 1:
                    break
                index += 1
                continue
            content = len(line) - len(line.lstrip())
            if content <= indent or ITEM.match(line) or BEGIN.match(line) or TABLE_ROW.match(line):
                break
            text.append(line.strip())
            blank = 0
            index += 1
        marker = match.group(2).strip()
        yield (
            ListItem(
                _item_text(" ".join(text)), "-" if marker in "-+*" else marker, len(indents) - 1
            ),
            first,
            index - 1 - blank,
        )
        if blank and index < end and not ITEM.match(lines[index]):
            break
    return index


def _item_text(text: str) -> str:
    text = CHECKBOX.sub(lambda m: "[x] " if m.group(1) in "xX" else "[ ] ", text)
    if (term := DESCRIPTION.match(text)) is not None:
        rest = text[term.end() :]
        return f"{inline(term.group(1))}: {inline(rest)}" if rest else inline(term.group(1))
    return inline(text)
