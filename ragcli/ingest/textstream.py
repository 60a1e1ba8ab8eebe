"""Text files read in blocks, so a file of any size is ingested in bounded memory.

`scan_text` makes one pass to decide the encoding (a byte-order mark, else UTF-8, else
what charset-normalizer finds in the first block) and to reject empty and binary files;
`iter_text` then yields the decoded text in pieces of about one block, each cut at a
paragraph, line or word boundary."""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path

from ragcli.ingest.loaders.base import LoadError, NothingOfItsOwn
from ragcli.ingest.loaders.encoding import bom_encoding, detect, note_for

BLOCK = 1 << 20  # bytes read at a time; pieces of text are about this long


def scan_text(path: Path) -> tuple[str, list[str]]:
    """The encoding to read `path` with and a note when it is not UTF-8."""
    utf8 = codecs.getincrementaldecoder("utf-8")()
    is_utf8 = True
    seen_text = False
    with path.open("rb") as handle:
        first = handle.read(BLOCK)
        bom = bom_encoding(first[:4])
        if bom:  # UTF-16 and UTF-32 are full of NUL bytes: the mark says which it is
            return bom, note_for(bom)
        block = first
        while block:
            if b"\x00" in block:
                raise LoadError("binary file (contains NUL bytes)")
            seen_text = seen_text or bool(block.strip())
            if is_utf8:
                try:
                    utf8.decode(block)
                except UnicodeDecodeError:
                    is_utf8 = False
            block = handle.read(BLOCK)
        if is_utf8:
            try:
                utf8.decode(b"", final=True)
            except UnicodeDecodeError:
                is_utf8 = False
    if not seen_text:
        raise NothingOfItsOwn("empty file")
    encoding = "utf-8" if is_utf8 else detect(first)
    return encoding, note_for(encoding)


def _cut(text: str) -> int:
    """Where to end a piece: after the last paragraph break, line break or space."""
    for separator in ("\n\n", "\n", " "):
        at = text.rfind(separator, len(text) // 2)
        if at > 0:
            return at + len(separator)
    return len(text)


def iter_text(path: Path, encoding: str) -> Iterator[str]:
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    buffer = ""
    with path.open("rb") as handle:
        while block := handle.read(BLOCK):
            buffer += decoder.decode(block)
            if len(buffer) >= BLOCK:
                at = _cut(buffer)
                yield buffer[:at]
                buffer = buffer[at:]
    buffer += decoder.decode(b"", final=True)
    if buffer:
        yield buffer


def iter_lines(path: Path, encoding: str) -> Iterator[str]:
    """Lines without their endings, in bounded memory (a huge line comes in pieces)."""
    rest = ""
    for piece in iter_text(path, encoding):
        lines = (rest + piece).split("\n")
        rest = lines.pop()
        yield from (line.rstrip("\r") for line in lines)
        if len(rest) > BLOCK:
            yield rest
            rest = ""
    if rest:
        yield rest.rstrip("\r")
