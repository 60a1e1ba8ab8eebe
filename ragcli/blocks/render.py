"""Blocks as normalised Markdown: the text a chunk holds, embeds and shows.

Written so that markdown.py reads it back into the same blocks: paragraphs and list items
on one line each, code always fenced (an include block's target in the info string),
tables as GitHub tables, admonitions as GitHub callouts (`> [!NOTE] Title`). Characters
that would read as markup are escaped only where they would (a `*` between words, a `<`
before a letter, a `1.` opening a paragraph), so identifiers such as `max_length` stay
whole for the keyword index."""

from __future__ import annotations

import re

from ragcli.blocks.model import (
    Admonition,
    Block,
    CodeBlock,
    Heading,
    ListItem,
    Paragraph,
    Table,
)

# Code spans, kept as they are; the text between them is escaped.
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
# Inline markup a literal character could open.
INLINE_MARKUP = re.compile(
    r"\\(?=[!-/:-@\[-`{-~])|\*|(?<!\w)_|_(?!\w)|<(?=[A-Za-z/!?])|&(?=#?\w+;)"
)
LINK_LIKE = re.compile(r"\[(?=[^\]]*\](?:[(\[:]))")
# What opens a block when a line starts with it.
BLOCK_START = re.compile(
    r"^(?:#{1,6}(?=\s|$)|>|[-+*](?=\s|$)|\d{1,9}(?=[.)](?:\s|$))|[=_-]{3,}\s*$|`{3,}|~{3,}"
    r"|!!!|\?\?\?|/{3,}|:|\||\{.*\}\s*$|<)"
)


def render(blocks: list[Block] | tuple[Block, ...]) -> str:
    """`blocks` as normalised Markdown, a blank line between blocks (a list's items and a
    table's rows on consecutive lines)."""
    parts: list[str] = []
    # The item before (None after any other block) and the depth it was written at: items
    # nest relative to the one before, a list after other blocks starts at the margin.
    previous: ListItem | None = None
    depth = 0
    for block in blocks:
        if parts:
            parts.append("\n" if isinstance(block, ListItem) and previous else "\n\n")
        if isinstance(block, ListItem):
            if previous is None:
                depth = 0
            elif block.depth > previous.depth:
                depth += 1
            else:
                depth = max(0, depth - (previous.depth - block.depth))
            parts.append(list_item(block, depth))
            previous = block
        else:
            previous = None
            parts.append(render_block(block))
    return "".join(parts)


def render_block(block: Block) -> str:
    if isinstance(block, Heading):
        # A heading's title is inline text: "## 8. Your rights" opens no list, so only
        # inline markup is escaped (an escaped "8\." kept the chunk from seeing its title).
        title = escape_text(block.title).rstrip()
        if title.endswith("#"):
            title = title[:-1] + "\\#"
        return f"{'#' * block.level} {title}"
    if isinstance(block, Paragraph):
        return escape_line(" ".join(block.text.split()))
    if isinstance(block, ListItem):
        return list_item(block)
    if isinstance(block, CodeBlock):
        return fenced(block)
    if isinstance(block, Table):
        return table(block)
    assert isinstance(block, Admonition)
    return admonition(block)


def list_item(item: ListItem, depth: int | None = None) -> str:
    # Nested items sit under their parent's text: four spaces reach it after any marker.
    indent = "    " * (item.depth if depth is None else depth)
    return f"{indent}{item.marker} {escape_line(' '.join(item.text.split()))}"


def fenced(block: CodeBlock) -> str:
    fence = "```"
    while fence in block.text:
        fence += "`"
    info = block.language
    if block.include is not None:
        info = f"{info} include={block.include}".strip()
    return f"{fence}{info}\n{block.text}\n{fence}"


def table(block: Table) -> str:
    width = max([len(block.header), *(len(row) for row in block.rows)] or [1])

    def row(cells: tuple[str, ...]) -> str:
        cells = cells + ("",) * (width - len(cells))
        return "| " + " | ".join(_cell(c) for c in cells) + " |"

    lines = [row(block.header), "|" + " --- |" * width]
    lines.extend(row(r) for r in block.rows)
    return "\n".join(lines)


def table_rows(block: Table, rows: tuple[tuple[str, ...], ...]) -> str:
    """Some of a table's rows, under its header (a table cut between chunks)."""
    return table(Table(block.header, rows))


def admonition(block: Admonition) -> str:
    head = f"> [!{block.kind.upper()}]"
    if block.title:
        head += f" {escape_line(block.title)}"
    body = render(block.blocks)
    lines = [head, *(f"> {line}" if line else ">" for line in body.split("\n"))] if body else [head]
    return "\n".join(lines)


def _cell(text: str) -> str:
    return escape_text(" ".join(text.split())).replace("|", "\\|")


def escape_line(text: str) -> str:
    """A line of text that markdown.py reads back as this very text."""
    escaped = escape_text(text)
    if BLOCK_START.match(escaped):
        first = escaped[0]
        if first.isdigit():  # "1996. A year" would open an ordered list
            digits = len(escaped) - len(escaped.lstrip("0123456789"))
            return escaped[:digits] + "\\" + escaped[digits:]
        return "\\" + escaped
    return escaped


def escape_text(text: str) -> str:
    """`text` with the characters that would open inline markup escaped, code spans
    aside."""
    parts = []
    start = 0
    for span in CODE_SPAN.finditer(text):
        parts.append(_escape_plain(text[start : span.start()]))
        parts.append(span.group())
        start = span.end()
    parts.append(_escape_plain(text[start:]))
    return "".join(parts)


def _escape_plain(text: str) -> str:
    if not text:
        return text
    text = INLINE_MARKUP.sub(lambda m: "\\" + m.group(), text)
    text = LINK_LIKE.sub(r"\\[", text)
    return text.replace("`", "\\`")
