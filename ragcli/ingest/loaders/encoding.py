"""Which encoding a text file is in: UTF-8 (with or without BOM) and UTF-16/32 by their
marks, anything else by charset-normalizer, so a Windows-1252 note or a CSV saved by
Japanese Excel (cp932) is read as its author wrote it, never as mojibake. A UTF-8 file with
a few invalid bytes is read as UTF-8, those bytes replaced and said so in a note."""

from __future__ import annotations

import codecs
import unicodedata
from pathlib import Path

from ragcli.ingest.loaders.base import LoadError, NothingOfItsOwn

BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
# What the ingest report calls an encoding.
NAMES = {
    "cp1252": "Windows-1252",
    "cp932": "Shift-JIS (cp932)",
    "shift_jis": "Shift-JIS",
    "utf-16": "UTF-16",
    "utf-32": "UTF-32",
    "latin_1": "Latin-1",
    "latin-1": "Latin-1",
}
# Encodings in which a byte may be part of a character: charset-normalizer's choice of one
# of these is trusted over the Windows-1252 default below. Not UTF-16 or UTF-32: without a
# byte-order mark, and without the NUL bytes their Latin text is half made of (a file with
# those is refused as binary first), they are a guess that turns text into CJK garbage.
MULTI_BYTE = (
    "cp932",
    "shift_jis",
    "euc_jp",
    "iso2022",
    "gb",
    "big5",
    "hz",
    "euc_kr",
    "cp949",
    "johab",
    "cp950",
)
NEVER_GUESSED = ("utf_16", "utf_32", "utf-16", "utf-32")
SAMPLE = 1 << 20  # bytes charset-normalizer looks at


def bom_encoding(head: bytes) -> str | None:
    for bom, name in BOMS:
        if head.startswith(bom):
            return name
    return None


def note_for(encoding: str) -> list[str]:
    if encoding in ("utf-8", "utf-8-sig", "utf_8"):
        return []
    name = NAMES.get(encoding, encoding)
    if name.startswith("cp125"):  # the Windows code pages: cp1251 is Windows-1251
        name = "Windows-" + name[2:]
    return [f"not UTF-8: decoded as {name}"]


def _plausibly_western(data: bytes, encoding: str) -> bool:
    """Western European text: decodes into letters and punctuation with accented letters
    the exception (Cyrillic read as Windows-1252 is nearly all accents). Latin-1 allows a
    few C1 control characters: bytes Windows-1252 leaves undefined, such as 0x81."""
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError:
        return False
    letters = accented = controls = 0
    for char in text:
        if char.isascii():
            letters += char.isalpha()
            continue
        category = unicodedata.category(char)
        if category.startswith("C"):
            controls += 1
        elif category.startswith("L"):
            letters += 1
            accented += 1
    allowed_controls = 0 if encoding == "cp1252" else max(1, len(text) // 100)
    return controls <= allowed_controls and accented <= 0.3 * max(letters, 1)


def detect(data: bytes) -> str:
    """The encoding of `data`, which is not UTF-8 and has no byte-order mark."""
    from charset_normalizer import from_bytes

    best = from_bytes(data[:SAMPLE]).best()
    if best is not None and best.encoding.startswith(MULTI_BYTE):
        return str(best.encoding)
    # Short Western text is ambiguous between the Latin code pages; the one Windows and
    # Excel write by far most often wins when it reads as plausible text.
    for western in ("cp1252", "latin-1"):
        if _plausibly_western(data[:SAMPLE], western):
            return western
    if best is not None and not best.encoding.startswith(NEVER_GUESSED):
        return str(best.encoding)
    return "latin-1"  # decodes any bytes


def decode(data: bytes) -> tuple[str, list[str]]:
    """The text of a file's bytes and a note when it was not UTF-8. Raises LoadError for an
    empty or binary file."""
    bom = bom_encoding(data[:4])
    if bom:
        text = data.decode(bom, errors="replace")
        if not text.strip("\ufeff \t\r\n"):
            raise NothingOfItsOwn("empty file")
        return text.lstrip("\ufeff"), note_for(bom)
    if not data.strip():
        raise NothingOfItsOwn("empty file")
    if b"\x00" in data[:8192]:
        raise LoadError("binary file (contains NUL bytes)")
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError:
        pass
    damaged = _mostly_utf8(data)
    if damaged is not None:
        return damaged
    encoding = detect(data)
    return data.decode(encoding, errors="replace"), note_for(encoding)


def _mostly_utf8(data: bytes) -> tuple[str, list[str]] | None:
    """UTF-8 with some bytes that are not (a file damaged, or one stray Latin-1 byte in a
    UTF-8 page): its valid multi-byte characters outnumber its invalid bytes. Read as
    UTF-8, each invalid byte a replacement character, and said so; None for another
    encoding (no multi-byte character of UTF-8 at all, or more invalid bytes than them)."""
    text = data.decode("utf-8", errors="replace")
    invalid = text.count("\ufffd") - data.count("\ufffd".encode())
    valid = sum(1 for char in text if ord(char) > 127 and char != "\ufffd")
    if invalid <= 0 or valid <= invalid:
        return None
    plural = "s" if invalid > 1 else ""
    return text, [f"not valid UTF-8: {invalid} byte{plural} read as \ufffd"]


def read_text(path: Path) -> tuple[str, list[str]]:
    return decode(path.read_bytes())
