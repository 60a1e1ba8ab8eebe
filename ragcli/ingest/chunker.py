"""Token-aware chunking with the embedder's own tokenizer.

No chunk exceeds `max_tokens` word pieces with [CLS]/[SEP] included, so nothing is
silently truncated at embedding time. Text is split at headings (the loader's
sections), then paragraphs, then sentences, and only then cut at token boundaries."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ragcli.ingest.loaders import Section
from ragcli.ingest.loaders.base import compact_rows, rows_locator
from ragcli.store.tokenizer import TokenCounter

PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|\n+")
# WordPiece reads a run of more than 100 word characters (its max_input_chars_per_word) as
# one unknown token, so a hex dump or a base64 blob would count as one token however long
# it is and end up as one enormous chunk: such runs are broken every 100 characters.
LONG_WORD = re.compile(r"\w{101,}")
WORD_CHARS = 100
# How finely a chunk's text had to be split, coarsest first.
METHODS = ("section", "paragraph", "sentence", "token")


@dataclass
class Piece:
    text: str
    tokens: int
    method: str
    new_paragraph: bool
    line: int | None = None  # a table row's piece: the index of its line in the section


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
            yield from self._chunk_section(section)

    def _chunk_section(self, section: Section) -> list[Chunk]:
        text = LONG_WORD.sub(_break_long_word, section.text.strip())
        tokens = self.counter.count(text)
        if tokens <= self.budget:
            return [self._make(text, tokens, "section", section)]
        # A table's rows are split between lines only, so each chunk holds whole rows.
        pieces = self._row_pieces(text) if section.rows else self._pieces(text)
        chunks: list[Chunk] = []
        current: list[Piece] = []
        used = 0
        for piece in pieces:
            if current and used + piece.tokens > self.budget:
                chunks.append(self._join(current, section))
                current = self._overlap_tail(current, room=self.budget - piece.tokens)
                used = sum(p.tokens for p in current)
            current.append(piece)
            used += piece.tokens
        if current:
            chunks.append(self._join(current, section))
        return chunks

    def _pieces(self, text: str) -> list[Piece]:
        pieces: list[Piece] = []
        for paragraph in PARAGRAPH_BREAK.split(text):
            paragraph = paragraph.strip()
            if not paragraph:
                continue
            tokens = self.counter.count(paragraph)
            if tokens <= self.budget:
                pieces.append(Piece(paragraph, tokens, "paragraph", True))
                continue
            first = True
            for sentence in SENTENCE_BREAK.split(paragraph):
                sentence = sentence.strip()
                if not sentence:
                    continue
                for part, part_tokens, method in self._sentence_parts(sentence):
                    pieces.append(Piece(part, part_tokens, method, first))
                    first = False
        return pieces

    def _row_pieces(self, text: str) -> list[Piece]:
        pieces = []
        for index, line in enumerate(text.split("\n")):
            if line.strip():
                for part, tokens, method in self._sentence_parts(line.strip()):
                    pieces.append(Piece(part, tokens, method, False, index))
        return pieces

    def _sentence_parts(self, sentence: str) -> list[tuple[str, int, str]]:
        tokens = self.counter.count(sentence)
        if tokens <= self.budget:
            return [(sentence, tokens, "sentence")]
        # A sentence longer than the model's window: cut between words where possible, since
        # a word cut in half re-tokenizes into different (often more) pieces.
        offsets = self.counter.offsets(sentence)
        parts = []
        start = 0
        while start < len(offsets):
            end = min(start + self.budget, len(offsets))
            if end < len(offsets):
                cut = end
                while cut > start + 1 and offsets[cut][0] == offsets[cut - 1][1]:
                    cut -= 1
                end = cut if cut > start + 1 else end
            while True:
                stop = offsets[end][0] if end < len(offsets) else len(sentence)
                part = sentence[offsets[start][0] : stop].strip()
                count = self.counter.count(part)
                if count <= self.budget or end - start <= 1:
                    break
                end -= max(1, (count - self.budget))
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

    def _join(self, pieces: list[Piece], section: Section) -> Chunk:
        parts = [pieces[0].text]
        for before, piece in zip(pieces, pieces[1:], strict=False):
            if piece.new_paragraph:
                parts.append("\n\n")
            else:  # a row keeps its own line; the parts of one over-long row share it
                parts.append("\n" if piece.line != before.line else " ")
            parts.append(piece.text)
        text = "".join(parts)
        method = max((p.method for p in pieces), key=METHODS.index)
        lines = sorted({p.line for p in pieces if p.line is not None})
        return self._make(text, self.counter.count(text), method, section, lines)

    def _make(
        self, text: str, tokens: int, method: str, section: Section, lines: list[int] | None = None
    ) -> Chunk:
        total = tokens + self.counter.special
        if tokens > self.budget:  # joining never adds pieces; this guards that belief
            raise AssertionError(f"chunk of {total} word pieces exceeds the limit")
        extra: dict[str, Any] = {"locator": section.locator} if section.locator else {}
        if section.rows:
            rows = _rows_of(section, lines)
            extra["rows"] = compact_rows(rows)
            extra["locator"] = rows_locator(section.heading, rows, span=True)
        return Chunk(text, total, method, section.page, section.heading, extra)


def _rows_of(section: Section, lines: list[int] | None) -> list[int]:
    """The row numbers of a chunk's lines (all the section's when it is whole). Rows are
    matched to the section's last lines: a line put before them (a heading) has no row."""
    rows = section.rows or ()
    if lines is None:
        return list(rows)
    offset = len(section.text.strip().split("\n")) - len(rows)
    return [rows[i - offset] for i in lines if 0 <= i - offset < len(rows)]


def _break_long_word(match: re.Match[str]) -> str:
    word = match.group()
    return " ".join(word[i : i + WORD_CHARS] for i in range(0, len(word), WORD_CHARS))
