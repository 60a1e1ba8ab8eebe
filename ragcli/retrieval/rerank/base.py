"""What a reranker is: scores for (query, passage) pairs, higher is more relevant, on the
reranker's own scale (a probability, a logit, a 0-10 judgement). The stage only orders by
them; no threshold compares them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ragcli.errors import BackendError


class RerankError(BackendError):
    """A reranker failed or answered nonsense: the stage skips it, the fused order stands."""


class RerankUnavailable(RerankError):
    """A reranker that cannot run on this machine as configured (no model folder, no
    model to ask): said in one line naming the setting and what to do."""


class Reranker(Protocol):
    provider: str  # engine | cross-encoder | llm
    model: str  # what scores: the served name, the folder or hub name, the answer model

    def scores(self, query: str, passages: Sequence[str]) -> list[float]:
        """One score per passage, in the passages' order; raises RerankError."""
        ...


def checked(scores: Sequence[float], expected: int, who: str) -> list[float]:
    """Scores as floats, one per passage, none missing or NaN; else a RerankError."""
    values = [float(s) for s in scores]
    if len(values) != expected:
        raise RerankError(f"{who}: {len(values)} scores for {expected} passages")
    if any(v != v for v in values):  # NaN: no order can come of it
        raise RerankError(f"{who}: a score is not a number")
    return values
