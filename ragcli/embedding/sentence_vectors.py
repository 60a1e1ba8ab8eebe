"""Vectors of the sentences the offline backend scores, kept in the store.

The extractive backend embeds every sentence of the retrieved chunks to pick what to
quote; on a CPU that is most of an answer's time (a warm ask spends ~85 % of it there).
The same chunks come back for question after question, so their sentences' vectors are
kept in `sentence-vectors.sqlite` beside the manifest, keyed by the embedder and the text:
a sentence is embedded once per store, not once per ask. The vectors are stored exactly
(float32), so an answer is the same whether they came from the cache or not. Any SQLite
trouble (a read-only store, a locked file) falls back to embedding: the cache never fails
an answer."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

FILE = "sentence-vectors.sqlite"
# Rows kept (1.5 KB each at 384 dimensions: about 75 MB); past it the oldest tenth goes.
MAX_ROWS = 50_000


class SentenceVectors:
    def __init__(self, inner: Any, store_dir: Path, max_rows: int = MAX_ROWS):
        self.inner = inner
        self.path = Path(store_dir) / FILE
        self.max_rows = max_rows
        self.prefix = f"{inner.name}|{getattr(inner, 'precision', 'fp32')}|"
        if getattr(inner, "backend", "onnx") == "openai":  # a server's vectors are its own
            self.prefix += "openai|"
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def __getattr__(self, name: str) -> Any:  # name, backend, max_seq_length, precision …
        return getattr(self.inner, name)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return self.inner.embed([])
        keys = [self._key(t) for t in texts]
        found = self._load(keys)
        missing = [t for t, k in dict(zip(texts, keys, strict=True)).items() if k not in found]
        if missing:
            fresh = self.inner.embed(missing)
            new = {self._key(t): v for t, v in zip(missing, fresh, strict=True)}
            self._save(new)
            found.update(new)
        return np.stack([found[k] for k in keys]).astype(np.float32, copy=False)

    def _key(self, text: str) -> str:
        return hashlib.sha256((self.prefix + text).encode()).hexdigest()[:32]

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=2, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # a cache: no sync per answer
            db.execute(
                "CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)"
            )
            self._db = db
        return self._db

    def _load(self, keys: list[str]) -> dict[str, np.ndarray]:
        wanted = list(dict.fromkeys(keys))
        found: dict[str, np.ndarray] = {}
        try:
            with self._lock:
                db = self._connection()
                for start in range(0, len(wanted), 500):  # SQLite bounds the parameters
                    part = wanted[start : start + 500]
                    marks = ",".join("?" * len(part))
                    rows = db.execute(
                        f"SELECT key, vector FROM vectors WHERE key IN ({marks})", part
                    )
                    for key, blob in rows:
                        found[key] = np.frombuffer(blob, dtype=np.float32)
        except sqlite3.Error:
            return {}
        return found

    def _save(self, vectors: dict[str, np.ndarray]) -> None:
        rows = [(k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in vectors.items()]
        try:
            with self._lock:
                db = self._connection()
                with db:
                    db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", rows)
                    (count,) = db.execute("SELECT count(*) FROM vectors").fetchone()
                    if count > self.max_rows:
                        db.execute(
                            "DELETE FROM vectors WHERE rowid IN "
                            "(SELECT rowid FROM vectors ORDER BY rowid LIMIT ?)",
                            (count - self.max_rows * 9 // 10,),
                        )
        except sqlite3.Error:
            pass  # not kept this time; the answer does not depend on it
