"""What a remote root needs remembered beside the manifest (in manifest.sqlite, tables of
their own): each page's validators (ETag, Last-Modified) and links, for conditional
requests, and each root's last sync (when, the commit or page count, its errors) for
`ragcli status`. Credentials are never among them.

A page's validators are written when it is fetched, with the hash of the content they
stand for; they are sent only while the manifest holds that same content, so a run killed
before the page's chunks were written fetches it whole again."""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class PageState:
    url: str
    root: str
    sha256: str
    etag: str | None
    last_modified: str | None
    links: list[str] = field(default_factory=list)


@dataclass
class RootSync:
    collection: str
    root: str
    kind: str  # site | git
    synced_at: str
    revision: str  # a repository's commit; "" for a site
    documents: int  # pages or files stored
    failed: int
    errors: list[str] = field(default_factory=list)  # the first few, one line each
    requests: int = 0
    not_modified: int = 0


class RemoteState:
    def __init__(self, path: Path):
        self.db = sqlite3.connect(path, timeout=30, check_same_thread=False)
        self._lock = threading.RLock()
        with self._lock, self.db:
            self.db.execute(
                """CREATE TABLE IF NOT EXISTS remote_pages (
                    collection TEXT NOT NULL, url TEXT NOT NULL, root TEXT NOT NULL,
                    sha256 TEXT NOT NULL, etag TEXT, last_modified TEXT, links TEXT,
                    PRIMARY KEY (collection, url))"""
            )
            self.db.execute(
                """CREATE TABLE IF NOT EXISTS remote_roots (
                    collection TEXT NOT NULL, root TEXT NOT NULL, kind TEXT NOT NULL,
                    synced_at TEXT NOT NULL, revision TEXT NOT NULL, documents INTEGER,
                    failed INTEGER, errors TEXT, requests INTEGER, not_modified INTEGER,
                    PRIMARY KEY (collection, root))"""
            )

    def page(self, collection: str, url: str) -> PageState | None:
        with self._lock:
            row = self.db.execute(
                "SELECT url, root, sha256, etag, last_modified, links FROM remote_pages "
                "WHERE collection = ? AND url = ?",
                (collection, url),
            ).fetchone()
        if row is None:
            return None
        url, root, sha256, etag, last_modified, links = row
        return PageState(url, root, sha256, etag, last_modified, json.loads(links or "[]"))

    def pages(self, collection: str, root: str) -> list[str]:
        with self._lock:
            rows = self.db.execute(
                "SELECT url FROM remote_pages WHERE collection = ? AND root = ? ORDER BY url",
                (collection, root),
            ).fetchall()
        return [row[0] for row in rows]

    def put_page(self, collection: str, page: PageState) -> None:
        with self._lock, self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO remote_pages VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    collection,
                    page.url,
                    page.root,
                    page.sha256,
                    page.etag,
                    page.last_modified,
                    json.dumps(page.links),
                ),
            )

    def forget_pages(self, collection: str, urls: list[str]) -> None:
        with self._lock, self.db:
            self.db.executemany(
                "DELETE FROM remote_pages WHERE collection = ? AND url = ?",
                [(collection, url) for url in urls],
            )

    def root(self, collection: str, root: str) -> RootSync | None:
        with self._lock:
            row = self.db.execute(
                "SELECT * FROM remote_roots WHERE collection = ? AND root = ?", (collection, root)
            ).fetchone()
        return _root_sync(row) if row else None

    def put_root(self, sync: RootSync) -> None:
        with self._lock, self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO remote_roots VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    sync.collection,
                    sync.root,
                    sync.kind,
                    sync.synced_at,
                    sync.revision,
                    sync.documents,
                    sync.failed,
                    json.dumps(sync.errors),
                    sync.requests,
                    sync.not_modified,
                ),
            )

    def close(self) -> None:
        with self._lock:
            self.db.close()


def _root_sync(row: Any) -> RootSync:
    collection, root, kind, synced_at, revision, documents, failed = row[:7]
    errors, requests, not_modified = row[7:10]
    return RootSync(
        collection,
        root,
        kind,
        synced_at,
        revision,
        documents or 0,
        failed or 0,
        json.loads(errors or "[]"),
        requests or 0,
        not_modified or 0,
    )


def root_summaries(path: Path) -> list[dict[str, Any]]:
    """Every remote root's last sync, read without writing (`ragcli status`)."""
    if not path.is_file():
        return []
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        rows = db.execute("SELECT * FROM remote_roots ORDER BY collection, root").fetchall()
    except sqlite3.Error:
        return []
    finally:
        db.close()
    from dataclasses import asdict

    return [asdict(_root_sync(row)) for row in rows]
