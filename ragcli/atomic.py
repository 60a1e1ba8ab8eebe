"""Files replaced whole or not at all: a killed or failed write leaves the old file (and
at most a stray temp file beside it), never a half-written one."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def atomic_path(dest: Path) -> Iterator[Path]:
    """A temp path in `dest`'s folder (a rename never crosses file systems) for the block
    to write; when it succeeds, the file is synced to disk, renamed onto `dest`, and the
    folder synced, so the rename itself survives a power cut."""
    dest = Path(dest)
    fd, name = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        _fsync(tmp, os.O_RDONLY)
        os.replace(tmp, dest)
        _fsync(dest.parent, os.O_RDONLY)
    finally:
        tmp.unlink(missing_ok=True)


def write_text_atomically(dest: Path, text: str) -> None:
    with atomic_path(dest) as tmp:
        tmp.write_text(text, encoding="utf-8")


def _fsync(path: Path, flags: int) -> None:
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
