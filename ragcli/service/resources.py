"""What a run opens before it retrieves: the store and the embedder, warm (kept by a
long-lived front end between calls) or loaded now."""

from __future__ import annotations

import threading
from typing import Any

from ragcli.config import RerankSettings, Settings
from ragcli.errors import EmptyStoreError, NoMatchError
from ragcli.wiring import embedder, embedder_in_background, lexical_indexes, vector_store


def require_matches(search, collection: str) -> None:
    """A filter that admits no file of the collection searched is an error (exit 5), so
    it is never mistaken for "the documents do not cover this"."""
    scope = search.scope(collection)
    if scope is not None and scope.empty:
        raise NoMatchError(scope.nothing_matched())


class Resources:
    """What a long-lived front end (the MCP server) keeps warm between calls: the
    embedder, the store's client and the BM25 indexes. Each call asks for the store
    again, so one that an ingest in another process changed is reopened, and one that did
    not exist when the server started is found once it does."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.lexical = lexical_indexes(settings)
        self._embedder: Any = None
        self._store = None
        self._rerankers: dict[str, Any] = {}  # by their settings: a loaded cross-encoder
        self._lock = threading.Lock()

    def embedder(self):
        with self._lock:
            if self._embedder is None:
                from ragcli.embedding.cache import CachingEmbedder

                self._embedder = CachingEmbedder(embedder(self.settings))
            return self._embedder

    def reranker(self, options: RerankSettings):
        """The reranker these settings name, kept: a cross-encoder loads once, an
        engine's connections stay open."""
        key = options.model_dump_json()
        with self._lock:
            if key not in self._rerankers:
                from ragcli.retrieval.rerank.factory import make_reranker

                self._rerankers[key] = make_reranker(options)
            return self._rerankers[key]

    def store(self):
        with self._lock:
            if self._store is None:
                self._store = vector_store(self.settings, must_exist=True)
            else:
                self._store.refresh()
            return self._store

    def warm_up(self) -> None:
        """Load the embedder, and the store and its BM25 index when there is one, so the
        first call does not pay for them."""
        emb = self.embedder()
        emb.embed(["warm up"])
        try:
            store = self.store()
        except EmptyStoreError:
            return
        collection = self.settings.store.collection
        if store.count(collection):
            self.lexical.searchable(collection, store)


def open_store(settings: Settings, resources: Resources | None, on_export=None):
    """The store and (a future of) the embedder: warm ones, or loaded now, overlapping."""
    if resources is not None:
        store = resources.store()
        return store, resources.embedder
    loading = embedder_in_background(settings, on_export)
    store = vector_store(settings, must_exist=True)
    return store, loading.result


def require_chunks(store, collection: str) -> None:
    if store.count(collection) == 0:
        raise EmptyStoreError(
            f"collection {collection!r} in {store.location} is empty: "
            "run `ragcli ingest PATH` first"
        )
