"""SQLite trace store. The schema is versioned; migrations are a numbered list of small
functions, each run once (PRAGMA user_version records how far a database has come)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragcli.trace.recorder import Trace


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


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_m1_create_runs, _m2_answer_type]
SCHEMA_VERSION = len(MIGRATIONS)


class TraceStore:
    def __init__(self, path: Path):
        self.path = path

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=5)
        version = db.execute("PRAGMA user_version").fetchone()[0]
        for number, migration in enumerate(MIGRATIONS[version:], start=version + 1):
            with db:
                migration(db)
                db.execute(f"PRAGMA user_version = {number}")
        return db

    def save(self, trace: Trace) -> None:
        db = self._connect()
        try:
            with db:
                db.execute(
                    "INSERT OR REPLACE INTO runs "
                    "(id, created_at, question, mode, answer, total_ms, record, answer_type) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        trace.id,
                        trace.created_at,
                        trace.question,
                        trace.mode,
                        trace.answer,
                        trace.total_ms,
                        json.dumps(trace.to_dict()),
                        trace.answer_type,
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
