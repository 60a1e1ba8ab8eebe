"""Where each chunk of a collection sits (its file and heading path): what a signal that
names a section or a file (tos mode's rules) looks chunks up by. Read from Chroma's
metadata in one call, so only for collections of up to SCAN_LIMIT chunks: policy
collections are small, and a larger one is not read whole on every question."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SCAN_LIMIT = 20_000


@dataclass(frozen=True)
class Location:
    chunk_id: str
    source_file: str
    heading: str | None


def locations(store: Any, collection: str, where: dict[str, Any] | None = None):
    """Every chunk's location (of the admitted files, with `where`), or None when the
    collection holds more than SCAN_LIMIT chunks."""
    found = store.collection(collection)
    if found is None:
        return []
    if store.count(collection) > SCAN_LIMIT:
        return None
    got = found.get(where=where, include=["metadatas"])
    return [
        Location(chunk_id, str(meta.get("source_file") or ""), meta.get("heading") or None)
        for chunk_id, meta in zip(got["ids"], got["metadatas"], strict=True)
    ]
