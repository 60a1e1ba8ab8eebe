"""An embedder that records what it is asked to embed: a stand-in with tiny vectors made
from the text, or a wrapper of a real embedder (then it answers as the real one does)."""

from __future__ import annotations

import numpy as np


class CountingEmbedder:
    def __init__(self, inner=None, max_seq_length: int = 256) -> None:
        self.inner = inner
        self.calls: list[list[str]] = []  # the texts of each embed() call, in order
        if inner is None:
            self.name, self.backend, self.precision = "counting", "test", "fp32"
            self.max_seq_length = max_seq_length
        else:
            self.name, self.backend = inner.name, inner.backend
            self.max_seq_length = inner.max_seq_length

    def __getattr__(self, name: str):
        # Anything else (the `embedded` counter progress reads, precision, dimension) is
        # the real embedder's, so the ingest sees no difference.
        inner = self.__dict__.get("inner")
        if inner is None:
            raise AttributeError(name)
        return getattr(inner, name)

    @property
    def texts(self) -> int:
        """How many texts were embedded in all."""
        return sum(len(call) for call in self.calls)

    @property
    def seen(self) -> list[str]:
        """Every text embedded, in order."""
        return [text for call in self.calls for text in call]

    def embed(self, texts):
        self.calls.append(list(texts))
        if self.inner is not None:
            return self.inner.embed(texts)
        # Three numbers a text: different texts mostly differ; the same text never does.
        out = np.array([[len(t), t.count("a"), 1.0] for t in texts], dtype=np.float32)
        return out.reshape(len(texts), 3)


def counting_ingestor(store):
    """An ingestor of `store` whose real embedder is wrapped in a CountingEmbedder."""
    from ragcli import service
    from tests.support.common import settings_for

    ingestor = service.ingestor(settings_for(store))
    ingestor.embedder = CountingEmbedder(ingestor.embedder)
    return ingestor
