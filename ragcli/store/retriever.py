"""Query-time retrieval: embed the query once, search a collection."""

from __future__ import annotations

from ragcli.models import RetrievedChunk
from ragcli.store.embedder import Embedder
from ragcli.store.vectors import VectorStore


class Retriever:
    def __init__(self, store: VectorStore, embedder: Embedder, collection: str):
        self.store = store
        self.embedder = embedder
        self.collection = collection

    def search(self, query: str, top_k: int, collection: str | None = None) -> list[RetrievedChunk]:
        vector = self.embedder.embed([query])[0]
        return self.store.query(collection or self.collection, vector.tolist(), top_k)
