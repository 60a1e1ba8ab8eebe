"""The change log that keeps every machine's BM25 index in step with a shared store.

A Chroma server holds vectors and texts, but each machine keeps its own BM25 index (it is
built from the texts, memory-mapped, and not something Chroma can serve). Without a log, a
machine could only learn what another one changed by listing the whole collection. So each
writer, when it saves its index, appends what it added and removed to one log collection
on the same server, and points the collection's metadata at its newest record (the head).

A reader compares the head with the one it last applied: equal means nothing to do, and
costs no read beyond opening the collection. Otherwise it lists the log's record ids (a
few per ingest run), reads the records it has not applied, and fetches only the added
chunks' texts. Records are named `<time ns>-<random>-<part>`, so two writers never
collide and records apply in the order they were written.

The log is trimmed: once the ids it holds outnumber the collection's chunks, a reader that
far behind would read more from the log than from a listing of the collection, so the
oldest records go. The newest record trimmed is kept in the metadata as the floor; a
reader whose head is older than the floor lists the collection, as a new machine does.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from typing import Any

from ragcli.store.collections import INTERNAL_PREFIX, set_collection_metadata

LOG_COLLECTION = INTERNAL_PREFIX + "lexical-log"
HEAD_KEY = "ragcli_lexical_head"
FLOOR_KEY = "ragcli_lexical_floor"  # the newest record trimmed from the log
IDS_PER_RECORD = 5_000  # keeps one record (~250 KB of ids) far below request size limits
READ_BATCH = 100  # records read per call


@dataclass(frozen=True)
class Change:
    record: str
    added: list[str]
    removed: list[str]


@dataclass(frozen=True)
class Marks:
    head: str | None = None  # the newest record written
    floor: str | None = None  # the newest record trimmed: a reader behind it lists all


def marks(store: Any, collection: str) -> Marks:
    """The log's head and floor for `collection`, read fresh from the server."""
    try:
        found = store.client.get_collection(collection, embedding_function=None)
    except Exception:
        return Marks()
    metadata = found.metadata or {}
    return Marks(
        *(str(metadata[key]) if metadata.get(key) else None for key in (HEAD_KEY, FLOOR_KEY))
    )


def append(store: Any, collection: str, added: set[str], removed: set[str]) -> list[str]:
    """Record one save's net change; returns the record ids written (none when nothing
    changed). Written after the chunks themselves, so a reader never sees a record whose
    chunks are not there yet."""
    if not (added or removed):
        return []
    log = store.client.get_or_create_collection(LOG_COLLECTION, embedding_function=None)
    run = f"{time.time_ns():020d}-{uuid.uuid4().hex[:12]}"
    parts = _parts(sorted(added), sorted(removed))
    ids = [f"{run}-{index:05d}" for index in range(len(parts))]
    for start in range(0, len(parts), READ_BATCH):
        batch = slice(start, start + READ_BATCH)
        log.add(
            ids=ids[batch],
            documents=[json.dumps(part) for part in parts[batch]],
            metadatas=[
                {"collection": collection, "size": len(p["added"]) + len(p["removed"])}
                for p in parts[batch]
            ],
            embeddings=[[1.0]] * len(ids[batch]),  # Chroma wants a vector; the log needs none
        )
    target = store.client.get_collection(collection, embedding_function=None)
    set_collection_metadata(target, dict(target.metadata or {}), {HEAD_KEY: ids[-1]})
    return ids


def trim(store: Any, collection: str, keep_ids: int) -> int:
    """Delete the oldest records of `collection` beyond the newest ones that hold
    `keep_ids` ids (the newest always stays); returns how many went."""
    log = _log(store)
    if log is None:
        return 0
    got = log.get(where={"collection": collection}, include=["metadatas"])
    sizes = dict(zip(got["ids"], [m or {} for m in got["metadatas"]], strict=True))
    newest_first = sorted(sizes, reverse=True)
    held = 0
    for position, record in enumerate(newest_first):
        held += int(sizes[record].get("size", IDS_PER_RECORD))
        if held > keep_ids and position > 0:
            old = newest_first[position:]
            target = store.client.get_collection(collection, embedding_function=None)
            # The floor first: a reader that sees records gone also sees why.
            set_collection_metadata(target, dict(target.metadata or {}), {FLOOR_KEY: old[0]})
            for start in range(0, len(old), READ_BATCH):
                log.delete(ids=old[start : start + READ_BATCH])
            return len(old)
    return 0


def record_ids(store: Any, collection: str) -> list[str]:
    """Every record of `collection`, oldest first."""
    log = _log(store)
    if log is None:
        return []
    return sorted(log.get(where={"collection": collection}, include=[])["ids"])


def read(store: Any, records: list[str]) -> list[Change]:
    """The given records, in the order given."""
    log = _log(store)
    if log is None or not records:
        return []
    found: dict[str, dict[str, list[str]]] = {}
    for start in range(0, len(records), READ_BATCH):
        got = log.get(ids=records[start : start + READ_BATCH], include=["documents"])
        for record, text in zip(got["ids"], got["documents"], strict=True):
            found[record] = json.loads(text or "{}")
    return [
        Change(r, found[r].get("added", []), found[r].get("removed", []))
        for r in records
        if r in found
    ]


def _log(store: Any) -> Any:
    try:
        return store.client.get_collection(LOG_COLLECTION, embedding_function=None)
    except Exception:
        return None


def _parts(added: list[str], removed: list[str]) -> list[dict[str, list[str]]]:
    """Split a change into records of at most IDS_PER_RECORD ids: removals first, so that
    applying the parts in order gives the same index as applying the whole."""
    ids = [("removed", i) for i in removed] + [("added", i) for i in added]
    parts = []
    for start in range(0, len(ids), IDS_PER_RECORD):
        part: dict[str, list[str]] = {"added": [], "removed": []}
        for kind, chunk_id in ids[start : start + IDS_PER_RECORD]:
            part[kind].append(chunk_id)
        parts.append(part)
    return parts
