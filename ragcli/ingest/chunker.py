"""Token-aware chunking with the embedder's own tokenizer.

No chunk exceeds `max_tokens` word pieces with [CLS]/[SEP] included, so nothing is
silently truncated at embedding time. Text is split at headings (the loader's
sections), then between blocks (a section read into blocks: ragcli/blocks/) or paragraphs
(plain text), then sentences, and only then cut at token boundaries. A code block longer
than the window is cut between lines into blocks that each keep their fences; a table, into
tables that each keep the header.

Every chunk of a section with a heading path starts with that path as a Markdown heading
line (`# Report > Introduction`, models.heading_line), counted inside the window, unless
the chunk already begins with its heading (a Markdown section's `## Heading` line, a
slide's title): a heading Word, a sheet or a slide keeps outside the text is then
embedded and indexed like a Markdown one, in every format alike."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ragcli import triplets
from ragcli.blocks.model import Admonition, Block, CodeBlock, ListItem, Table
from ragcli.blocks.render import fenced, render_block
from ragcli.embedding.wordpieces import TokenCounter
from ragcli.ingest.loaders import Section
from ragcli.ingest.loaders.base import compact_rows, rows_locator, spans_locator
from ragcli.languages.detect import detect_languages
from ragcli.metadata import Metadata
from ragcli.models import heading_line
from ragcli.text.lead_ins import LEAD_IN_END
from ragcli.text.sentences import chunk_cuts

PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
# WordPiece reads a run of more than 100 word characters (its max_input_chars_per_word) as
# one unknown token, so a hex dump or a base64 blob would count as one token however long
# it is and end up as one enormous chunk: such runs are broken every 100 characters.
LONG_WORD = re.compile(r"\w{101,}")
WORD_CHARS = 100
# How finely a chunk's text had to be split, coarsest first.
METHODS = ("section", "paragraph", "sentence", "token")
# A heading line may take at most this share of a chunk's window; a longer path is cut.
HEADING_SHARE = 4
# Heading marks and spaces before a heading's text, for "does the chunk begin with it".
HEADING_MARKS = re.compile(r"^[#\s]+")
# A backslash before punctuation: a rendered heading's escapes (`\_private`) are its title.
MARKDOWN_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


@dataclass
class Piece:
    text: str
    tokens: int
    method: str
    # What goes between it and the piece before it in a chunk: a blank line between
    # blocks, a line break between a list's items or a table's rows, a space between the
    # sentences of one paragraph.
    separator: str
    line: int | None = None  # a table row's piece: the index of its line in the section
    # The first and last line in the file of the block it comes from (reST), if known.
    lines: tuple[int, int] | None = None
    # A code block, whole or a fenced part of one, that shows code (not an include's
    # reference): what a lead-in ending the chunk before it introduces.
    code: bool = False
    # A list item's first piece: the item's depth in its list. A chunk indents its items
    # relative to its first (_joined): one opening with a nested item written at that
    # depth's indent would read as an indented code block.
    depth: int | None = None


@dataclass
class Chunk:
    text: str
    token_count: int  # special tokens included
    method: str
    page: int | None
    heading: str | None
    # Further metadata stored with the chunk: `locator`, where in its file a citation
    # points ("slide 4", "Sheet1, rows 20–45", "lines 12–40"); a table's chunk also has
    # `rows`, the row number of each of its lines ("20-24,26-45").
    extra: dict[str, Any] = field(default_factory=dict)
    # Its document's metadata merged with its section's (ragcli/metadata.py), stored with
    # it for filters.
    metadata: Metadata = field(default_factory=dict)


class Chunker:
    def __init__(self, counter: TokenCounter, max_tokens: int = 256, overlap_tokens: int = 32):
        self.counter = counter
        self.budget = max_tokens - counter.special
        self.overlap = min(overlap_tokens, self.budget // 4)

    def chunk(self, sections: list[Section]) -> list[Chunk]:
        return list(self.iter_chunks(sections))

    def iter_chunks(self, sections: Iterable[Section]) -> Iterator[Chunk]:
        """Chunks one section at a time, for files too large to hold in memory."""
        for section in sections:
            yield from with_languages(self._chunk_section(section))

    def _chunk_section(self, section: Section) -> list[Chunk]:
        text = LONG_WORD.sub(_break_long_word, section.text.strip())
        line, line_tokens = self._heading_line(section.heading)
        prefix = f"{line}\n\n" if line else ""
        # The first chunk needs no heading line when the text already opens with it.
        opens = not line or _opens_with(text, section.heading or "")
        budget = self.budget - line_tokens
        tokens = self.counter.count(text)
        if opens and tokens <= self.budget:
            return [self._make(text, "section", section, tokens)]
        if tokens <= budget:  # word pieces add up across the line break
            return [self._make(prefix + text, "section", section, tokens + line_tokens)]
        bodies: list[list[Piece]] = []
        current: list[Piece] = []
        used = 0
        carried = [0]  # how many pieces each body repeats from the one before (overlap)
        # A table's rows are split between lines only, so each chunk holds whole rows.
        if section.rows:
            pieces = self._row_pieces(text, budget)
        elif section.blocks is not None:
            pieces = self._block_pieces(section.blocks, budget, section.block_lines)
        else:
            pieces = self._pieces(text, budget)
        for piece in pieces:
            if current and used + piece.tokens > budget:
                bodies.append(current)
                current = self._overlap_tail(current, room=budget - piece.tokens)
                carried.append(len(current))
                used = sum(p.tokens for p in current)
            current.append(piece)
            used += piece.tokens
        if current:
            bodies.append(current)
        chunks = []
        for number, pieces in enumerate(bodies):
            method = max((p.method for p in pieces), key=METHODS.index)
            head = "" if number == 0 and opens else prefix
            lines = sorted({p.line for p in pieces if p.line is not None})
            chunk = self._make(head + _joined(pieces), method, section, lines=lines)
            spans = [p.lines for p in pieces if p.lines is not None]
            if spans:  # cited by its own lines, not its section's
                chunk.extra["locator"] = spans_locator(spans)
            if number + 1 < len(bodies):
                opening = bodies[number + 1][carried[number + 1] :]
                if follows := _introduced_code(pieces[-1], opening):
                    chunk.extra["continues"] = follows
            chunks.append(chunk)
        return chunks

    def _heading_line(self, heading: str | None) -> tuple[str, int]:
        """The section's heading line and its word pieces; ("", 0) without a heading. A
        path longer than its share of the window is cut between words."""
        if not heading or not heading.strip():
            return "", 0
        line = heading_line(LONG_WORD.sub(_break_long_word, heading))
        limit = self.budget // HEADING_SHARE
        offsets = self.counter.offsets(line)
        if len(offsets) > limit:
            cut = limit
            while cut > 1 and offsets[cut][0] == offsets[cut - 1][1]:
                cut -= 1  # not inside a word
            if cut <= 1:  # one word longer than the share: cut inside it
                cut = limit
            line = line[: offsets[cut][0]].rstrip()
        return line, self.counter.count(line)

    def _pieces(self, text: str, budget: int) -> list[Piece]:
        """Plain text's pieces: paragraphs (at blank lines), else their sentences."""
        pieces: list[Piece] = []
        for paragraph in (p.strip() for p in PARAGRAPH_BREAK.split(text)):
            if paragraph:
                pieces.extend(self._prose(paragraph, budget))
        return pieces

    def _prose(self, text: str, budget: int, separator: str = "\n\n") -> list[Piece]:
        """`text` as one piece, or as its sentences (a sentence longer than the window cut
        between words) when it is longer than the window."""
        tokens = self.counter.count(text)
        if tokens <= budget:
            return [Piece(text, tokens, "paragraph", separator)]
        pieces: list[Piece] = []
        for sentence in chunk_cuts(text):
            for part, part_tokens, method in self._sentence_parts(sentence, budget):
                pieces.append(Piece(part, part_tokens, method, " " if pieces else separator))
        return pieces

    def _block_pieces(
        self,
        blocks: Iterable[Block],
        budget: int,
        spans: tuple[tuple[int, int] | None, ...] | None = None,
    ) -> list[Piece]:
        """A section's blocks as pieces: each block whole when it fits the window, else a
        code block's lines, a table's rows, an admonition's blocks, a paragraph's
        sentences. `spans`: each block's lines in the file, given to its pieces."""
        pieces: list[Piece] = []
        previous: Block | None = None
        for number, block in enumerate(blocks):
            tight = isinstance(block, ListItem) and isinstance(previous, ListItem)
            separator = "\n" if tight else "\n\n"
            previous = block
            text = render_block(block)
            tokens = self.counter.count(text)
            start = len(pieces)
            span = spans[number] if spans and number < len(spans) else None
            shows_code = isinstance(block, CodeBlock) and not block.is_reference
            if tokens <= budget:
                pieces.append(Piece(text, tokens, "paragraph", separator, code=shows_code))
            elif isinstance(block, CodeBlock):
                parts = self._code_parts(block, budget, _code_start(block, span))
                for part in parts:
                    part.code = shows_code
                pieces.extend(parts or self._prose(text, budget))
            elif isinstance(block, Table):
                pieces.extend(self._table_parts(block, budget, _first_row_line(block, span)))
            elif isinstance(block, Admonition):
                pieces.extend(self._block_pieces(block.blocks, budget))
            else:
                pieces.extend(self._prose(text, budget, separator))
            for piece in pieces[start:]:
                piece.lines = piece.lines or span
            if isinstance(block, ListItem) and len(pieces) > start:
                pieces[start].depth = block.depth
        return pieces

    def _code_parts(
        self, block: CodeBlock, budget: int, first_line: int | None = None
    ) -> list[Piece]:
        """A code block longer than the window, cut between lines into blocks that each
        keep the fences, so that every chunk holds code that reads (and renders) as code.
        None fit when the fence lines themselves take half the window: cut like prose.
        `first_line`: the file's line of the block's first line, which each part is then
        cited from."""
        opening, _, rest = fenced(block).partition("\n")
        closing = rest.rsplit("\n", 1)[-1]
        room = budget - self.counter.count(f"{opening}\n{closing}")
        if room < budget // 2:
            return []
        parts: list[Piece] = []
        group: list[str] = []
        used = 0
        begun = 0  # the index of the group's first line in the block

        def close() -> None:
            nonlocal used
            if group:
                piece = self._code_piece(opening, group, closing)
                parts.extend(_cited([piece], first_line, begun, len(group)))
                group.clear()
            used = 0

        for index, line in enumerate(block.text.split("\n")):
            tokens = self.counter.count(line)
            if tokens > room:  # one line longer than the window: cut like prose
                close()
                for part, _, method in self._sentence_parts(line.strip(), room):
                    piece = self._code_piece(opening, [part], closing, method)
                    parts.extend(_cited([piece], first_line, index, 1))
                continue
            if group and used + tokens > room:
                close()
            if not group:
                begun = index
            group.append(line)
            used += tokens
        close()
        return parts

    def _code_piece(
        self, opening: str, lines: list[str], closing: str, method: str = "paragraph"
    ) -> Piece:
        text = "\n".join([opening, *lines, closing])
        return Piece(text, self.counter.count(text), method, "\n\n")

    def _table_parts(
        self, block: Table, budget: int, first_row_line: int | None = None
    ) -> list[Piece]:
        """A table longer than the window, as tables of some of its rows that each keep
        the header; a row longer than the window alone, cut like prose. `first_row_line`:
        the file's line of its first row, each row on a line of its own (Markdown), which
        each part is then cited from."""
        head = self.counter.count(render_block(Table(block.header, ())))
        parts: list[Piece] = []
        group: list[tuple[str, ...]] = []
        used = head
        begun = 0  # the index of the group's first row

        def close() -> None:
            if group:
                text = render_block(Table(block.header, tuple(group)))
                piece = Piece(text, self.counter.count(text), "paragraph", "\n\n")
                parts.extend(_cited([piece], first_row_line, begun, len(group)))
                group.clear()

        for index, row in enumerate(block.rows):
            tokens = self.counter.count(render_block(Table((), (row,))).rsplit("\n", 1)[-1])
            if head + tokens > budget:
                close()
                used = head
                parts.extend(_cited(self._prose(" | ".join(row), budget), first_row_line, index, 1))
                continue
            if group and used + tokens > budget:
                close()
                used = head
            if not group:
                begun = index
            group.append(row)
            used += tokens
        close()
        return parts

    def _row_pieces(self, text: str, budget: int) -> list[Piece]:
        pieces = []
        for index, line in enumerate(text.split("\n")):
            if line.strip():
                parts = self._sentence_parts(line.strip(), budget)
                for number, (part, tokens, method) in enumerate(parts):
                    pieces.append(Piece(part, tokens, method, " " if number else "\n", index))
        return pieces

    def _sentence_parts(self, sentence: str, budget: int) -> list[tuple[str, int, str]]:
        tokens = self.counter.count(sentence)
        if tokens <= budget:
            return [(sentence, tokens, "sentence")]
        # A sentence longer than the model's window: cut between words where possible, since
        # a word cut in half re-tokenizes into different (often more) pieces.
        offsets = self.counter.offsets(sentence)
        parts = []
        start = 0
        while start < len(offsets):
            end = min(start + budget, len(offsets))
            if end < len(offsets):
                cut = end
                while cut > start + 1 and offsets[cut][0] == offsets[cut - 1][1]:
                    cut -= 1
                end = cut if cut > start + 1 else end
            while True:
                stop = offsets[end][0] if end < len(offsets) else len(sentence)
                part = sentence[offsets[start][0] : stop].strip()
                count = self.counter.count(part)
                if count <= budget or end - start <= 1:
                    break
                end -= max(1, (count - budget))
            parts.append((part, count, "token"))
            start = end
        return parts

    def _overlap_tail(self, pieces: list[Piece], room: int) -> list[Piece]:
        """The last few pieces of a finished chunk, repeated at the start of the next."""
        tail: list[Piece] = []
        used = 0
        for piece in reversed(pieces[1:]):
            if used + piece.tokens > min(self.overlap, room):
                break
            tail.insert(0, piece)
            used += piece.tokens
        return tail

    def _make(
        self,
        text: str,
        method: str,
        section: Section,
        tokens: int | None = None,
        lines: list[int] | None = None,
    ) -> Chunk:
        """A chunk of `text`, whose word pieces are counted unless known (`tokens`); a
        table's chunk made of some of its section's `lines` is cited by their rows."""
        tokens = self.counter.count(text) if tokens is None else tokens
        total = tokens + self.counter.special
        if tokens > self.budget:  # joining never adds pieces; this guards that belief
            raise AssertionError(f"chunk of {total} word pieces exceeds the limit")
        extra: dict[str, Any] = {"locator": section.locator} if section.locator else {}
        if section.rows:
            rows = _rows_of(section, lines)
            extra["rows"] = compact_rows(rows)
            extra["locator"] = rows_locator(section.heading, rows, span=True)
        # Its policy statements, for tos mode's triplets signal (offline, deterministic).
        extra[triplets.METADATA_KEY] = triplets.encode(triplets.extract(text))
        return Chunk(text, total, method, section.page, section.heading, extra, section.metadata)


def with_languages(chunks: list[Chunk]) -> list[Chunk]:
    """Each chunk's language as its metadata `language` (languages/detect.py), where the
    detector is sure of one: its BM25 analyzer, and `ragcli status`'s language mix."""
    for chunk, language in zip(chunks, detect_languages([c.text for c in chunks]), strict=True):
        if language:
            chunk.extra["language"] = language
    return chunks


def _introduced_code(last: Piece, opening: list[Piece]) -> str:
    """The code block opening the next chunk when `last`, the piece ending this one, is
    the lead-in that introduces it ("An example of how to use it is like this:"), cut from
    it by the window; else "". Stored with the chunk (ChunkMetadata.continues), so an answer
    quoting the lead-in shows its code, while what is embedded and indexed stays as it is."""
    if not opening or not opening[0].code or not LEAD_IN_END.search(last.text):
        return ""
    return opening[0].text


def _joined(pieces: list[Piece]) -> str:
    """The pieces of a chunk as its text; list items nest relative to the item before, and
    a list after other blocks starts at the margin, as render.render writes them."""
    parts: list[str] = []
    previous: int | None = None  # the depth of the item being written, None outside a list
    indent = 0
    for piece in pieces:
        if parts:
            parts.append(piece.separator)
        text = piece.text
        if piece.depth is not None:
            if previous is None:
                indent = 0
            elif piece.depth > previous:
                indent += 1
            else:
                indent = max(0, indent - (previous - piece.depth))
            text = "    " * indent + text.lstrip(" ")
            previous = piece.depth
        elif piece.separator != " ":  # a block, not the next sentence of an item
            previous = None
        parts.append(text)
    return "".join(parts)


def _cited(pieces: list[Piece], start: int | None, first: int, count: int) -> list[Piece]:
    """`pieces` cited by `count` lines from the `first` (0-based) of a block whose first line
    in the file is `start`; left as they are when `start` is unknown."""
    if start is not None:
        for piece in pieces:
            piece.lines = (start + first, start + first + count - 1)
    return pieces


def _code_start(block: CodeBlock, span: tuple[int, int] | None) -> int | None:
    """The file's line of `block`'s first line, when its `span` is its code's lines alone (a
    span that holds a directive's or a fence's lines too cannot say where the code is)."""
    if span is None or span[1] - span[0] + 1 != block.text.count("\n") + 1:
        return None
    return span[0]


def _first_row_line(block: Table, span: tuple[int, int] | None) -> int | None:
    """The file's line of `block`'s first row, when its `span` is a header line, a delimiter
    line and a line for each row (a Markdown table); a grid table's borders cannot say."""
    if span is None or not block.header or span[1] - span[0] + 1 != len(block.rows) + 2:
        return None
    return span[0] + 2


def _rows_of(section: Section, lines: list[int] | None) -> list[int]:
    """The row numbers of a chunk's lines (all the section's when it is whole). Rows are
    matched to the section's last lines: a line put before them has no row."""
    rows = section.rows or ()
    if not lines:
        return list(rows)
    offset = len(section.text.strip().split("\n")) - len(rows)
    return [rows[i - offset] for i in lines if 0 <= i - offset < len(rows)]


def _opens_with(text: str, heading: str) -> bool:
    """Whether `text` begins with its heading: the whole path, or its last part (the
    section's own title, as a Markdown section or a slide begins), heading marks aside."""
    start = HEADING_MARKS.sub("", text[: len(heading) + 32])
    start = " ".join(MARKDOWN_ESCAPE.sub(r"\1", start).split()).casefold()
    wanted = " ".join(heading.split()).casefold()
    own = wanted.rsplit(" > ", 1)[-1]
    return any(re.match(re.escape(h) + r"(?!\w)", start) for h in (wanted, own))


def _break_long_word(match: re.Match[str]) -> str:
    word = match.group()
    return " ".join(word[i : i + WORD_CHARS] for i in range(0, len(word), WORD_CHARS))
