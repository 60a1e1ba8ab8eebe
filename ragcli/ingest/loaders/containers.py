"""Checks made before a zip-based document (.docx .pptx .xlsx .ods .odt .epub) is handed
to its library: a damaged or truncated container, an encrypted Office file and a zip bomb
each get a one-line reason instead of a library's traceback or an exhausted memory."""

from __future__ import annotations

import zipfile
from pathlib import Path

from ragcli.ingest.loaders.base import LoadError, NothingOfItsOwn

# An Office file saved with a password is not a zip at all but an OLE compound file that
# holds the encrypted package; legacy .doc/.ppt/.xls files start the same way.
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
# Bytes a document may decompress to, in all. Zip's own size fields bound what Python's
# zipfile will inflate (it stops at the declared size and fails the CRC check past it),
# so checking them before reading bounds the work. A million-row spreadsheet is ~150 MB.
MAX_UNZIPPED = 1 << 30
# A member that inflates more than this many times over is a bomb, not a document (XML
# compresses 5-20 times, a sheet of repeated cells rarely 100 times; deflate's limit,
# reached by a run of zeros, is 1032).
MAX_RATIO = 300
RATIO_FLOOR = 16 << 20  # small members may compress any amount


def check_zip(path: Path, kind: str) -> None:
    """Raise LoadError with the reason when `path` is not a sound `kind` container."""
    with path.open("rb") as handle:
        head = handle.read(8)
    if not head:
        raise NothingOfItsOwn("empty file")
    if head.startswith(OLE_MAGIC):
        raise LoadError(f"password-protected or encrypted {kind} (save it without a password)")
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except zipfile.BadZipFile:
        raise LoadError(f"corrupt {kind} (not a readable zip container)") from None
    except (OSError, ValueError) as exc:
        raise LoadError(f"corrupt {kind} ({type(exc).__name__})") from None
    total = 0
    for member in members:
        total += member.file_size
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > RATIO_FLOOR and ratio > MAX_RATIO:
            raise LoadError(
                f"refused: {member.filename} inflates {ratio:.0f}× to "
                f"{member.file_size >> 20} MB (a zip bomb)"
            )
    if total > MAX_UNZIPPED:
        raise LoadError(
            f"refused: unpacks to {total >> 20} MB, over the {MAX_UNZIPPED >> 20} MB limit "
            "(a zip bomb or an oversized document)"
        )


def library_error(kind: str, exc: Exception) -> LoadError:
    """A library's failure on a damaged file, as a one-line reason."""
    detail = str(exc).splitlines()[0][:80] if str(exc) else ""
    name = type(exc).__name__
    return LoadError(f"corrupt {kind} ({name}: {detail})" if detail else f"corrupt {kind} ({name})")
