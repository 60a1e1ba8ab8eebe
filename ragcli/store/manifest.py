"""The file manifest: what was ingested into each collection, keyed by absolute path.

A file's row is written only after its chunks are stored, so an interrupted ingest
leaves files that look new or changed, and the next run redoes exactly those."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections import Counter
from dataclasses import astuple, dataclass, field, fields
from pathlib import Path
from typing import Any


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
    # The version of the reading its chunks were made with (ingest/loaders READINGS): a
    # file read by an older one is read again by the next ingest, though unchanged.
    reading: int = 1
    # Its chunks' languages and how many of each ("de:12,en:3"; languages/detect.py), for
    # `ragcli status`; "" for a file ingested before languages were detected.
    languages: str = ""
    # What the document says of itself, over all its sections (ragcli/metadata.py): what
    # `status` counts and `--meta` is resolved against. Empty for files stored before.
    metadata: dict[str, str | list[str]] = field(default_factory=dict)

    def row(self) -> tuple[Any, ...]:
        """The values a manifest row holds: the metadata as JSON, NULL when there is none."""
        metadata = json.dumps(self.metadata, ensure_ascii=False) if self.metadata else None
        return (*astuple(self)[:-1], metadata)

    @classmethod
    def of_row(cls, row: tuple[Any, ...]) -> FileRecord:
        record = cls(*row[:-1])
        record.metadata = _metadata(row[-1])
        return record


# Named, not `*`: columns are added by ALTER TABLE, in whatever order a store met them.
FILE_COLUMNS = ", ".join(f.name for f in fields(FileRecord))


def _metadata(text: str | None) -> dict[str, str | list[str]]:
    if not text:
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


@dataclass
class ProblemRecord:
    """A file that was skipped or failed, as it was then: an unchanged file gets the same
    verdict again, so the next ingest summarises it instead of listing it."""

    collection: str
    path: str
    sha256: str
    size: int
    mtime_ns: int
    status: str  # skipped | failed
    reason: str


class Manifest:
    def __init__(self, path: Path):
        self.path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Ingest reads the manifest from its prefetch thread: one lock serialises all use.
        self.db = sqlite3.connect(path, timeout=30, check_same_thread=False)
        self._lock = threading.RLock()
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
            # Manifests written before readings had versions: their files were read by the
            # first version of each reading.
            columns = {row[1] for row in self.db.execute("PRAGMA table_info(files)")}
            if "reading" not in columns:
                self.db.execute("ALTER TABLE files ADD COLUMN reading INTEGER NOT NULL DEFAULT 1")
            if "languages" not in columns:
                self.db.execute("ALTER TABLE files ADD COLUMN languages TEXT NOT NULL DEFAULT ''")
            if "metadata" not in columns:  # JSON; NULL: none, or stored before metadata was
                self.db.execute("ALTER TABLE files ADD COLUMN metadata TEXT")
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

            # Renames and copies are found by content: a file whose hash is stored under
            # another path reuses that path's chunks and embeddings.
            self.db.execute(
                "CREATE INDEX IF NOT EXISTS files_by_sha256 ON files (collection, sha256)"
            )
            self.db.execute(
                """CREATE TABLE IF NOT EXISTS problems (
                    collection TEXT NOT NULL,
                    path TEXT NOT NULL,
                    sha256 TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    mtime_ns INTEGER NOT NULL,
                    status TEXT NOT NULL,
                    reason TEXT NOT NULL,
                    PRIMARY KEY (collection, path)
                )"""
            )

    def get(self, collection: str, path: str) -> FileRecord | None:
        with self._lock:
            row = self.db.execute(
                f"SELECT {FILE_COLUMNS} FROM files WHERE collection = ? AND path = ?",
                (collection, path),
            ).fetchone()
        return FileRecord.of_row(row) if row else None

    def with_sha256(self, collection: str, sha256: str) -> list[FileRecord]:
        """The files of `collection` stored with this content, in path order."""
        with self._lock:
            rows = self.db.execute(
                f"SELECT {FILE_COLUMNS} FROM files WHERE collection = ? AND sha256 = ? "
                "ORDER BY path",
                (collection, sha256),
            ).fetchall()
        return [FileRecord.of_row(row) for row in rows]

    def put(self, record: FileRecord) -> None:
        with self._lock:
            self._write([record])

    def put_many(self, records: list[FileRecord]) -> None:
        """Several rows in one transaction (a commit costs a sync)."""
        if records:
            with self._lock:
                self._write(records)

    def _write(self, records: list[FileRecord]) -> None:
        with self.db:
            self.db.executemany(
                f"INSERT OR REPLACE INTO files ({FILE_COLUMNS}) "
                f"VALUES ({', '.join('?' for _ in fields(FileRecord))})",
                [r.row() for r in records],
            )

    def remove(self, collection: str, path: str) -> None:
        with self._lock, self.db:
            self.db.execute(
                "DELETE FROM files WHERE collection = ? AND path = ?", (collection, path)
            )

    def remove_many(self, collection: str, paths: list[str]) -> None:
        with self._lock, self.db:
            self.db.executemany(
                "DELETE FROM files WHERE collection = ? AND path = ?",
                [(collection, p) for p in paths],
            )

    def files(self, collection: str | None = None) -> list[FileRecord]:
        with self._lock:
            if collection is None:
                rows = self.db.execute(
                    f"SELECT {FILE_COLUMNS} FROM files ORDER BY collection, path"
                ).fetchall()
            else:
                rows = self.db.execute(
                    f"SELECT {FILE_COLUMNS} FROM files WHERE collection = ? ORDER BY path",
                    (collection,),
                ).fetchall()
        return [FileRecord.of_row(row) for row in rows]

    def chunk_total(self, collection: str) -> int:
        """The chunks the collection's files have in the store (what Chroma holds once any
        journaled run is recovered), read without opening Chroma."""
        with self._lock:
            row = self.db.execute(
                "SELECT COALESCE(SUM(chunk_count), 0) FROM files WHERE collection = ?",
                (collection,),
            ).fetchone()
        return int(row[0])

    def problem(self, collection: str, path: str) -> ProblemRecord | None:
        with self._lock:
            row = self.db.execute(
                "SELECT * FROM problems WHERE collection = ? AND path = ?", (collection, path)
            ).fetchone()
        return ProblemRecord(*row) if row else None

    def remember_problem(self, record: ProblemRecord) -> None:
        with self._lock, self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO problems VALUES (?, ?, ?, ?, ?, ?, ?)", astuple(record)
            )

    def forget_problem(self, collection: str, path: str) -> None:
        with self._lock, self.db:
            self.db.execute(
                "DELETE FROM problems WHERE collection = ? AND path = ?", (collection, path)
            )

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


def collection_summaries(path: Path) -> dict[str, dict[str, Any]]:
    """Per collection: file count, the latest ingest time and the chunks, read without
    writing (`ragcli status` never creates or migrates a store); a missing or unreadable
    manifest has none."""
    if not path.is_file():
        return {}
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        rows = db.execute(
            "SELECT collection, COUNT(*), MAX(ingested_at), SUM(chunk_count) FROM files "
            "GROUP BY collection"
        ).fetchall()
        mixes = language_mixes(db)
    except sqlite3.Error:
        return {}
    finally:
        db.close()
    return {
        name: {
            "files": files,
            "last_ingest": last,
            "manifest_chunks": chunks or 0,
            "languages": mixes.get(name, {}),
        }
        for name, files, last, chunks in rows
    }


def language_mixes(db: sqlite3.Connection) -> dict[str, dict[str, int]]:
    """Per collection, its chunks per language, most first; a manifest from before
    languages has none."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(files)")}
    if "languages" not in columns:
        return {}
    mixes: dict[str, Counter[str]] = {}
    for collection, languages in db.execute("SELECT collection, languages FROM files"):
        mix = mixes.setdefault(collection, Counter())
        for part in filter(None, languages.split(",")):
            language, _, count = part.partition(":")
            mix[language] += int(count or 0)
    return {name: dict(mix.most_common()) for name, mix in mixes.items()}


def collection_metadata(path: Path) -> dict[str, list[dict[str, str | list[str]]]]:
    """Per collection, the metadata of each of its files that has some, read without
    writing as `collection_summaries`; none from a manifest written before metadata was
    kept."""
    if not path.is_file():
        return {}
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        rows = db.execute(
            "SELECT collection, metadata FROM files WHERE metadata IS NOT NULL"
        ).fetchall()
    except sqlite3.Error:  # no such column yet, or an unreadable manifest
        return {}
    finally:
        db.close()
    found: dict[str, list[dict[str, str | list[str]]]] = {}
    for collection, text in rows:
        metadata = _metadata(text)
        if metadata:
            found.setdefault(collection, []).append(metadata)
    return found
