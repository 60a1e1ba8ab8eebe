"""Stores a benchmark keeps between runs (`howto_benchmark.py --stores`), made again when
the code that reads and chunks documents has changed.

An ingest re-reads a file only when the file or its format's reading version
(ingest/loaders READINGS) changed. A change to the reading code that does not raise that
version, such as a second change folded into a version raised earlier in the same piece
of work, leaves a kept store holding the old chunks, and the benchmark then measures the
old reading without saying so. Each kept store therefore records a fingerprint of that
code, and a store whose fingerprint differs is made again from scratch."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
# The code whose output is a store's chunk texts and citations (the text layer too: the
# chunker cuts paragraphs at its sentence ends, the readers write version notes with it).
READING_CODE = (
    "blocks",
    "ingest/chunker.py",
    "ingest/loaders",
    "embedding/wordpieces.py",
    "text",
)
FINGERPRINT_FILE = "reading-code.sha256"


def reading_fingerprint(package: Path = PACKAGE) -> str:
    """A digest of the reading code's Python files: their paths and contents."""
    digest = hashlib.sha256()
    for part in READING_CODE:
        where = package / part
        files = sorted(where.rglob("*.py")) if where.is_dir() else [where]
        for path in files:
            digest.update(path.relative_to(package).as_posix().encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
            digest.update(b"\0")
    return digest.hexdigest()


def prepare(store: Path, fingerprint: str) -> str | None:
    """Ready `store` for an ingest by the code of `fingerprint`; what was done, when it
    was not plain reuse. A store this module marked with another fingerprint is removed. A
    folder it did not mark is never removed (it may be somebody's store): it is reused and
    marked, with a warning, since nothing says which code made it."""
    recorded = store / FINGERPRINT_FILE
    note = None
    if recorded.is_file():
        if recorded.read_text(encoding="utf-8").strip() == fingerprint:
            return None
        shutil.rmtree(store)
        note = f"{store}: made by other reading code ({', '.join(READING_CODE)}): made again"
    elif store.exists() and any(store.iterdir()):
        note = f"{store}: reused, but nothing says which reading code made it"
    store.mkdir(parents=True, exist_ok=True)
    recorded.write_text(fingerprint + "\n", encoding="utf-8")
    return note
