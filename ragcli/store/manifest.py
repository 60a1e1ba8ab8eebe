"""The file manifest: what was ingested into each collection, keyed by absolute path.

A file's row is written only after its chunks are stored, so an interrupted ingest
leaves files that look new or changed, and the next run redoes exactly those."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import astuple, dataclass
from pathlib import Path


@dataclass
class FileRecord:
    collection: str
    path: str
    sha256: str
    size: int
    mtime_ns: int
    file_type: str
    chunk_count: int
    pages: int | None
    ingested_at: str


class Manifest:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        # Ingest reads the manifest from its prefetch thread: one lock serialises all use.
        self.db = sqlite3.connect(path, timeout=30, check_same_thread=False)
        self._lock = threading.RLock()
        self._batch: dict[tuple[str, str], FileRecord] | None = None
        self.db.execute("PRAGMA journal_mode=WAL")
        with self.db:
            self.db.execute(
                """CREATE TABLE IF NOT EXISTS files (
                    collection TEXT NOT NULL,
                    path TEXT NOT NULL,
                    sha256 TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    mtime_ns INTEGER NOT NULL,
                    file_type TEXT NOT NULL,
                    chunk_count INTEGER NOT NULL,
                    pages INTEGER,
                    ingested_at TEXT NOT NULL,
                    PRIMARY KEY (collection, path)
                )"""
            )
            # The ingest journal: files whose chunks are being written or deleted. A row is
            # written before the first chunk of a file is touched and cleared once every
            # index holding its chunks is durable; rows left by a killed run are repaired by
            # the next ingest (ragcli/ingest/recovery.py).
            self.db.execute(
                """CREATE TABLE IF NOT EXISTS journal (
                    collection TEXT NOT NULL,
                    path TEXT NOT NULL,
                    sha256 TEXT NOT NULL,
                    PRIMARY KEY (collection, path)
                )"""
            )

    def get(self, collection: str, path: str) -> FileRecord | None:
        with self._lock:
            if self._batch is not None and (collection, path) in self._batch:
                return self._batch[(collection, path)]
            row = self.db.execute(
                "SELECT * FROM files WHERE collection = ? AND path = ?", (collection, path)
            ).fetchone()
        return FileRecord(*row) if row else None

    def put(self, record: FileRecord) -> None:
        with self._lock:
            if self._batch is not None:
                self._batch[(record.collection, record.path)] = record
                return
            self._write([record])

    def _write(self, records: list[FileRecord]) -> None:
        with self.db:
            self.db.executemany(
                "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [astuple(r) for r in records],
            )

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Puts inside the block are written in one transaction when it ends (one commit
        per ingest flush instead of one per file), or not at all if it raises."""
        with self._lock:
            nested = self._batch is not None
            if not nested:
                self._batch = {}
        if nested:  # already batching: the outer block writes
            yield
            return
        try:
            yield
            with self._lock:
                records = list(self._batch.values())
                self._batch = None
                if records:
                    self._write(records)
        finally:
            with self._lock:
                self._batch = None

    def remove(self, collection: str, path: str) -> None:
        with self._lock, self.db:
            self.db.execute(
                "DELETE FROM files WHERE collection = ? AND path = ?", (collection, path)
            )

    def files(self, collection: str | None = None) -> list[FileRecord]:
        with self._lock:
            if collection is None:
                rows = self.db.execute("SELECT * FROM files ORDER BY collection, path").fetchall()
            else:
                rows = self.db.execute(
                    "SELECT * FROM files WHERE collection = ? ORDER BY path", (collection,)
                ).fetchall()
        return [FileRecord(*row) for row in rows]

    def begin(self, collection: str, path: str, sha256: str) -> None:
        """Journal a file before its chunks are written (sha256) or deleted ("")."""
        with self._lock, self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO journal VALUES (?, ?, ?)", (collection, path, sha256)
            )

    def begin_many(self, collection: str, files: list[tuple[str, str]]) -> None:
        """Journal several files (path, sha256) in one transaction."""
        with self._lock, self.db:
            self.db.executemany(
                "INSERT OR REPLACE INTO journal VALUES (?, ?, ?)",
                [(collection, path, sha) for path, sha in files],
            )

    def journaled(self, collection: str) -> list[tuple[str, str]]:
        with self._lock:
            rows = self.db.execute(
                "SELECT path, sha256 FROM journal WHERE collection = ? ORDER BY path",
                (collection,),
            ).fetchall()
        return [(path, sha) for path, sha in rows]

    def settle(self, collection: str, paths: list[str] | None = None) -> None:
        """Clear journal rows: of `paths`, or all of the collection's."""
        with self._lock, self.db:
            if paths is None:
                self.db.execute("DELETE FROM journal WHERE collection = ?", (collection,))
            else:
                self.db.executemany(
                    "DELETE FROM journal WHERE collection = ? AND path = ?",
                    [(collection, p) for p in paths],
                )

    def close(self) -> None:
        with self._lock:
            self.db.close()
