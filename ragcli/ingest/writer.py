"""The store's one writer: every change to a collection's chunks (upserts and deletions)
goes through here into every index that holds them (Chroma, the BM25 index) and the
manifest, under the store's lock, with the journal checkpointed.

Ingest, `ragcli rm` and `ask --refresh` share it. It holds no embedder: a caller that only
deletes (rm, a refresh of deleted files) loads no model."""

from __future__ import annotations

from types import TracebackType
from typing import Any

from ragcli.bm25.sync import LexicalIndexes
from ragcli.embedding import identity as embedding_identity
from ragcli.ingest.crashpoints import crash_point
from ragcli.store.lock import StoreLock
from ragcli.store.manifest import Manifest
from ragcli.store.vectors import VectorStore


class StoreWriter:
    """`with writer:` holds the store's lock (one writer per store, across processes);
    `close()` closes the manifest. Writes outside the lock are the caller's bug."""

    def __init__(
        self,
        store: VectorStore,
        manifest: Manifest,
        lock: StoreLock,
        lexical: LexicalIndexes | None = None,
    ):
        self.store = store
        self.manifest = manifest
        self.lock = lock
        self.lexical = lexical  # the BM25 indexes, mirrored chunk for chunk
        self._dimension_recorded: set[str] = set()  # collections whose record has it

    def __enter__(self) -> StoreWriter:
        self.lock.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.lock.release()

    def close(self) -> None:
        self.manifest.close()

    def upsert(
        self,
        collection: str,
        ids: list[str],
        texts: list[str],
        vectors: Any,
        metadatas: list[dict],
        copied_from: list[str] | None = None,
    ) -> None:
        """Chunks into every index; `copied_from`, the ids of stored chunks with the same
        texts (a copy), whose BM25 tokens are reused."""
        if not ids:
            return
        self.store.upsert(collection, ids, texts, vectors, metadatas)
        if collection not in self._dimension_recorded:
            embedding_identity.record_dimension(self.store, collection, len(vectors[0]))
            self._dimension_recorded.add(collection)
        if self.lexical and copied_from is not None:
            self.lexical.copy(collection, ids, copied_from, texts)
        elif self.lexical:
            languages = [str(meta.get("language") or "") for meta in metadatas]
            self.lexical.upsert(collection, ids, texts, languages)

    def delete_chunks(self, collection: str, ids: list[str]) -> None:
        """The one place chunks leave the store: every index of chunks deletes them here."""
        self.store.delete(collection, ids=ids)
        if self.lexical:
            self.lexical.delete(collection, ids)

    def checkpoint(self, collection: str) -> None:
        """Every index of chunks is durable: the journal of the files written so far is
        cleared. (An index that buffers writes, like a BM25 index, must save here first.)"""
        crash_point("before_checkpoint")
        self.manifest.settle(collection)

    def remove_files(self, collection: str, keys: list[str]) -> int:
        """Several files at once, journaled together; the caller checkpoints."""
        self.manifest.begin_many(collection, [(key, "") for key in keys])
        stale = self.store.ids_where(collection, {"source_file": {"$in": keys}})
        self.delete_chunks(collection, stale)
        crash_point("after_remove_chunks")
        self.manifest.remove_many(collection, keys)
        return len(stale)

    def remove_file(self, collection: str, key: str, checkpoint: bool = True) -> int:
        """One file's chunks out of every index and its manifest row; the chunks removed."""
        self.manifest.begin(collection, key, "")
        stale = self.store.ids_where(collection, {"source_file": key})
        self.delete_chunks(collection, stale)
        crash_point("after_remove_chunks")
        self.manifest.remove(collection, key)
        if checkpoint:
            self.checkpoint(collection)
        return len(stale)

    def save_index(self, collection: str, verify: bool = False) -> None:
        """The BM25 index, once at the end of a run of writes: it is derived from Chroma
        (caught up at the start of every ingest), so a kill before the save costs a
        catch-up, not data. `verify` first checks it against Chroma's count."""
        if self.lexical:
            if verify:
                self.lexical.verify(collection, self.store)
            self.lexical.save(collection, self.store)
