"""Text files read in blocks, so a file of any size is ingested in bounded memory.

`scan_text` makes one pass to decide the encoding (UTF-8, else Windows-1252, else Latin-1)
and to reject empty and binary files; `iter_text` then yields the decoded text in pieces
of about one block, each cut at a paragraph, line or word boundary."""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path

from ragcli.ingest.loaders import ENCODINGS, LoadError

BLOCK = 1 << 20  # bytes read at a time; pieces of text are about this long


def scan_text(path: Path) -> tuple[str, list[str]]:
    """The encoding to read `path` with and a note when it is not UTF-8."""
    # The last encoding decodes any bytes: only the ones before it can fail.
    decoders = {name: codecs.getincrementaldecoder(name)() for name, _ in ENCODINGS[:-1]}
    seen_text = False
    with path.open("rb") as handle:
        while block := handle.read(BLOCK):
            if b"\x00" in block:
                raise LoadError("binary file (contains NUL bytes)")
            seen_text = seen_text or bool(block.strip())
            for name, decoder in list(decoders.items()):
                try:
                    decoder.decode(block)
                except UnicodeDecodeError:
                    del decoders[name]
        for name, decoder in list(decoders.items()):
            try:
                decoder.decode(b"", final=True)
            except UnicodeDecodeError:
                del decoders[name]
    if not seen_text:
        raise LoadError("empty file")
    for name, note in ENCODINGS[:-1]:
        if name in decoders:
            return name, list(note)
    name, note = ENCODINGS[-1]
    return name, list(note)


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
