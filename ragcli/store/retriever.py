"""Query-time retrieval: embed the query once, search a collection."""

from __future__ import annotations

from ragcli.models import RetrievedChunk
from ragcli.store.embedder import Embedder
from ragcli.store.vectors import VectorStore


class Retriever:
    def __init__(
        self, store: VectorStore, embedder: Embedder, collection: str, mode: str = "dense"
    ):
        self.store = store
        self.embedder = embedder
        self.collection = collection
        self.mode = mode  # dense | bm25 | hybrid (retrieval.mode)

    def search(
        self,
        query: str,
        top_k: int,
        collection: str | None = None,
        mode: str | None = None,
    ) -> list[RetrievedChunk]:
        mode = mode or self.mode
        if mode != "dense":
            raise NotImplementedError(f"retrieval mode {mode!r} is not wired yet")
        vector = self.embedder.embed([query])[0]
        return self.store.query(collection or self.collection, vector.tolist(), top_k)
