"""The BM25 indexes beside the Chroma collections, kept in step with them.

Each collection has its own LexicalIndex in STORE/lexical/NAME. Ingest mirrors every chunk
it stores or deletes into the index and saves it at the end of the run. A run killed before
that save leaves the index behind Chroma (the manifest and Chroma already moved on), so the
next ingest starts by reconciling the two id sets, and a query that finds them out of step
repairs its in-memory copy and warns, rather than silently ranking an incomplete index.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragcli.store.lexical import LexicalIndex

log = logging.getLogger("ragcli")
logging.getLogger("bm25s").setLevel(logging.WARNING)  # its index() logs chatter at debug

FETCH_BATCH = 1000  # chunk texts read from Chroma per call while repairing


@dataclass
class Reconciled:
    added: int = 0
    removed: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed)


def lexical_dir(store_dir: Path, collection: str) -> Path:
    return Path(store_dir) / "lexical" / collection


class LexicalIndexes:
    """The BM25 index of every collection in one store directory."""

    def __init__(self, store_dir: Path) -> None:
        self.store_dir = Path(store_dir)
        self._indexes: dict[str, LexicalIndex] = {}
        self._lock = threading.Lock()  # a server's threads share one index per collection

    def index(self, collection: str) -> LexicalIndex:
        with self._lock:
            if collection not in self._indexes:
                self._indexes[collection] = LexicalIndex(lexical_dir(self.store_dir, collection))
            return self._indexes[collection]

    def upsert(self, collection: str, ids: list[str], texts: list[str]) -> None:
        self.index(collection).upsert(ids, texts)

    def copy(self, collection: str, ids: list[str], sources: list[str], texts: list[str]) -> None:
        self.index(collection).copy(ids, sources, texts)

    def delete(self, collection: str, ids: list[str]) -> None:
        if ids:
            self.index(collection).delete(ids)

    def save(self, collection: str) -> None:
        self.index(collection).save()

    def reconcile(self, collection: str, vectors: Any, save: bool = True) -> Reconciled:
        """Make the index hold exactly the chunks Chroma holds: index what it lacks (texts
        read back from Chroma), drop what Chroma no longer has."""
        chroma = vectors.collection(collection)
        stored = set(chroma.get(include=[])["ids"]) if chroma is not None else set()
        index = self.index(collection)
        indexed = set(index.ids())
        missing = sorted(stored - indexed)
        extra = sorted(indexed - stored)
        for start in range(0, len(missing), FETCH_BATCH):
            got = chroma.get(ids=missing[start : start + FETCH_BATCH], include=["documents"])
            index.upsert(got["ids"], [text or "" for text in got["documents"]])
        index.delete(extra)
        if save:
            index.save()
        return Reconciled(len(missing), len(extra))

    def searchable(self, collection: str, vectors: Any) -> LexicalIndex:
        """The index, repaired in memory (with a warning) when it lags behind Chroma; a
        long-lived reader first moves to the generation an ingest saved since."""
        index = self.index(collection)
        index.refresh()
        if len(index) != vectors.count(collection):
            fixed = self.reconcile(collection, vectors, save=False)
            if fixed.changed:
                log.warning(
                    "BM25 index of collection %r was out of step with the vector store "
                    "(%d chunks missing, %d extra); repaired for this run, and "
                    "`ragcli ingest` will save the repair",
                    collection,
                    fixed.added,
                    fixed.removed,
                )
        return index
