"""An embedder that remembers the vectors of texts it embedded, for a long-lived front end
(chat, the MCP server): a follow-up retrieves many of the chunks the turn before it did,
and the extractive backend and the support check embed their sentences again each turn."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

# Vectors kept, least recently used dropped first: 384 floats each, about 30 MB at most.
MAX_VECTORS = 20_000


class CachingEmbedder:
    def __init__(self, inner: Any, max_vectors: int = MAX_VECTORS):
        self.inner = inner
        self.name = inner.name
        self.backend = inner.backend
        self.max_seq_length = inner.max_seq_length
        self.precision = getattr(inner, "precision", "fp32")
        self.max_vectors = max_vectors
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()  # the MCP server's threads share one embedder

    def __getattr__(self, name: str) -> Any:  # anything else the wrapped embedder offers
        return getattr(self.inner, name)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        fresh = self.inner.embed(missing) if missing else None
        with self._lock:
            if fresh is not None:
                for text, vector in zip(missing, fresh, strict=True):
                    self._vectors[text] = vector
            found = []
            for text in texts:
                vector = self._vectors.get(text)
                if vector is None:  # dropped by another thread meanwhile: embed it again
                    vector = self.inner.embed([text])[0]
                self._vectors[text] = vector
                self._vectors.move_to_end(text)
                found.append(vector)
            while len(self._vectors) > self.max_vectors:
                self._vectors.popitem(last=False)
        if not found:
            return self.inner.embed([])
        return np.stack(found)
