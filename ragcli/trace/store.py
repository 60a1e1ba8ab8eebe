"""SQLite trace store. The schema is versioned; migrations are a numbered list of small
functions, each run once (PRAGMA user_version records how far a database has come)."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ragcli.errors import RagcliError
from ragcli.trace.recorder import Trace

log = logging.getLogger("ragcli")


def _m1_create_runs(db: sqlite3.Connection) -> None:
    db.execute(
        """CREATE TABLE runs (
            id TEXT PRIMARY KEY,
            created_at TEXT NOT NULL,
            question TEXT NOT NULL,
            mode TEXT NOT NULL,
            answer TEXT NOT NULL,
            total_ms REAL NOT NULL,
            record TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX runs_created ON runs(created_at)")


def _m2_answer_type(db: sqlite3.Connection) -> None:
    db.execute("ALTER TABLE runs ADD COLUMN answer_type TEXT NOT NULL DEFAULT ''")


def _m3_conversations(db: sqlite3.Connection) -> None:
    # Runs of earlier versions belong to no conversation: an empty id.
    db.execute("ALTER TABLE runs ADD COLUMN conversation_id TEXT NOT NULL DEFAULT ''")
    db.execute("ALTER TABLE runs ADD COLUMN turn INTEGER NOT NULL DEFAULT 0")
    db.execute("CREATE INDEX runs_conversation ON runs(conversation_id, turn)")


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _m1_create_runs,
    _m2_answer_type,
    _m3_conversations,
]
SCHEMA_VERSION = len(MIGRATIONS)


class TraceStoreError(RagcliError):
    """The trace database cannot be used (locked, damaged, or from a newer ragcli)."""


class TraceStore:
    busy_timeout = 5.0  # seconds to wait for another process holding the database

    def __init__(self, path: Path):
        self.path = path

    def _connect(self) -> sqlite3.Connection:
        try:
            return self._open()
        except sqlite3.OperationalError as exc:  # locked, read-only, disk full ...
            raise TraceStoreError(f"trace database {self.path}: {exc}") from None
        except sqlite3.DatabaseError as exc:  # not a database, or a damaged one
            moved = self._set_aside()
            log.warning(
                "trace database %s is damaged (%s); moved to %s, starting a new one",
                self.path,
                exc,
                moved.name,
            )
            try:
                return self._open()
            except sqlite3.Error as again:
                raise TraceStoreError(f"trace database {self.path}: {again}") from None

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=self.busy_timeout)
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise TraceStoreError(
                    f"trace database {self.path} has schema {version}, newer than this "
                    f"ragcli's {SCHEMA_VERSION}: upgrade ragcli to read it"
                )
            if self._use_wal(db):
                # A power cut may lose the last run; a sync per saved run would cost
                # every answer ~20 ms. With WAL this never corrupts the database.
                db.execute("PRAGMA synchronous=NORMAL")
            if version < SCHEMA_VERSION:
                self._migrate(db)
        except BaseException:
            db.close()
            raise
        return db

    @staticmethod
    def _use_wal(db: sqlite3.Connection) -> bool:
        """Write-ahead logging, so `trace` and `chat` read while a run is saved; True when
        the database uses it. It stays set in the file; a database another connection
        holds keeps its mode this time."""
        try:
            (mode,) = db.execute("PRAGMA journal_mode=WAL").fetchone()
        except sqlite3.OperationalError:
            return False
        return str(mode).lower() == "wal"

    @staticmethod
    def _migrate(db: sqlite3.Connection) -> None:
        """Brings the schema up to date in one write transaction. Threads or processes that
        open a new database at once queue for the write lock; each reads the version again
        once it holds the lock, so the migrations run exactly once."""
        db.execute("BEGIN IMMEDIATE")
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            for migration in MIGRATIONS[version:]:
                migration(db)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.commit()
        except BaseException:
            db.rollback()
            raise

    def _set_aside(self) -> Path:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
        moved = self.path.with_name(f"{self.path.name}.damaged-{stamp}")
        self.path.replace(moved)
        for suffix in ("-wal", "-shm", "-journal"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        return moved

    def save(self, trace: Trace) -> None:
        db = self._connect()
        try:
            with db:
                db.execute(
                    "INSERT OR REPLACE INTO runs "
                    "(id, created_at, question, mode, answer, total_ms, record, answer_type, "
                    "conversation_id, turn) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        trace.id,
                        trace.created_at,
                        trace.question,
                        trace.mode,
                        trace.answer,
                        trace.total_ms,
                        json.dumps(trace.to_dict()),
                        trace.answer_type,
                        trace.conversation_id,
                        trace.turn,
                    ),
                )
        finally:
            db.close()

    def get(self, trace_id: str | None = None) -> Trace | None:
        """A run by id (a unique prefix is enough), or the latest run."""
        if not self.path.exists():
            return None
        db = self._connect()
        try:
            if trace_id is None:
                row = db.execute(
                    "SELECT record FROM runs ORDER BY created_at DESC LIMIT 1"
                ).fetchone()
            else:
                rows = db.execute(
                    "SELECT record FROM runs WHERE id LIKE ? LIMIT 2", (trace_id + "%",)
                ).fetchall()
                row = rows[0] if len(rows) == 1 else None
        finally:
            db.close()
        return Trace.from_dict(json.loads(row[0])) if row else None

    def summary(self) -> dict[str, Any]:
        """How many runs and the latest one's time, read without writing (`ragcli status`
        never creates or migrates the database); none when it is missing or unreadable."""
        if not self.path.is_file():
            return {"runs": 0, "last_run": None}
        db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=self.busy_timeout)
        try:
            runs, last = db.execute("SELECT COUNT(*), MAX(created_at) FROM runs").fetchone()
        except sqlite3.Error:
            return {"runs": 0, "last_run": None}
        finally:
            db.close()
        return {"runs": runs, "last_run": last}

    def recent(self, limit: int = 20) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        db = self._connect()
        try:
            rows = db.execute(
                "SELECT id, created_at, mode, question, total_ms, answer_type FROM runs "
                "ORDER BY created_at DESC LIMIT ?",
                (limit,),
            ).fetchall()
        finally:
            db.close()
        keys = ("id", "created_at", "mode", "question", "total_ms", "answer_type")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def search(self, text: str, limit: int = 20) -> list[dict[str, Any]]:
        """Runs whose question or answer contains `text` (case-insensitive), newest first."""
        if not self.path.exists():
            return []
        pattern = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        db = self._connect()
        try:
            rows = db.execute(
                "SELECT id, created_at, mode, question, total_ms, answer_type, answer FROM runs "
                "WHERE question LIKE ? ESCAPE '\\' OR answer LIKE ? ESCAPE '\\' "
                "ORDER BY created_at DESC LIMIT ?",
                (pattern, pattern, limit),
            ).fetchall()
        finally:
            db.close()
        keys = ("id", "created_at", "mode", "question", "total_ms", "answer_type", "answer")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def latest_conversation(self) -> str | None:
        """The conversation of the latest run that belongs to one."""
        if not self.path.exists():
            return None
        db = self._connect()
        try:
            row = db.execute(
                "SELECT conversation_id FROM runs WHERE conversation_id != '' "
                "ORDER BY created_at DESC LIMIT 1"
            ).fetchone()
        finally:
            db.close()
        return row[0] if row else None

    def conversation_ids(self, prefix: str) -> list[str]:
        """The conversations whose id starts with `prefix` (two at most: enough to tell)."""
        if not self.path.exists() or not prefix.isalnum():  # ids are hex: no LIKE wildcard
            return []
        db = self._connect()
        try:
            rows = db.execute(
                "SELECT DISTINCT conversation_id FROM runs WHERE conversation_id LIKE ? LIMIT 2",
                (prefix + "%",),
            ).fetchall()
        finally:
            db.close()
        return [row[0] for row in rows]

    def conversation(self, conversation_id: str) -> list[Trace]:
        """A conversation's runs, first turn first."""
        if not self.path.exists():
            return []
        db = self._connect()
        try:
            rows = db.execute(
                "SELECT record FROM runs WHERE conversation_id = ? ORDER BY turn, created_at",
                (conversation_id,),
            ).fetchall()
        finally:
            db.close()
        return [Trace.from_dict(json.loads(row[0])) for row in rows]
