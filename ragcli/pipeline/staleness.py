"""Stale sources at answer time: a cited file that changed or vanished since it was
ingested is said, so an answer never quotes an old version in silence.

The check is a stat per file against the manifest (size and modification time); the
content is hashed only when those differ, so a file touched but not edited is not stale."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

from ragcli.models import StaleSource
from ragcli.store.manifest import Manifest

__all__ = ["StaleSource", "stale_sources"]


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def stale_sources(manifest: Manifest, collection: str, paths: Iterable[str]) -> list[StaleSource]:
    """The files among `paths` (each checked once, in order) that changed or are gone.
    Sources the manifest does not know (web pages, a BEIR corpus) are not files to check."""
    stale: list[StaleSource] = []
    for path in dict.fromkeys(paths):
        record = manifest.get(collection, path)
        if record is None or "://" in path:  # a page or a repository's file: synced, not stat'ed
            continue
        try:
            stat = os.stat(path)
        except FileNotFoundError:
            stale.append(StaleSource(path=path, state="missing", ingested_at=record.ingested_at))
            continue
        except OSError:
            continue  # unreadable now: not evidence that it changed
        if (stat.st_size, stat.st_mtime_ns) == (record.size, record.mtime_ns):
            continue
        try:
            changed = not Path(path).is_file() or _sha256(path) != record.sha256
        except OSError:
            continue
        if changed:
            stale.append(StaleSource(path=path, state="changed", ingested_at=record.ingested_at))
    return stale
