"""Relevance judged by the configured answer model (`retrieval.rerank.provider: llm`),
through the answer backend's rerank roles (llm/openai_backend.py).

pointwise: a 0-10 score per passage, `llm_window` passages per call, so 30 candidates
cost 3 calls; listwise: the model orders all candidates in one call (shorter excerpts of
each). Either way the calls count against `limits.max_llm_calls` (the stage asks before
it spends them) and their tokens and cost land on the trace's `rerank` step, as every
model call's do. A reply that is not the JSON asked for fails the rerank, and the stage
keeps the fused order: no extractive stand-in mixes another scale into the order."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

from ragcli.retrieval.rerank.base import RerankError, checked


class RelevanceJudge(Protocol):
    """The answer backend's rerank roles (the openai backend has them)."""

    model: str

    def judge_relevance(self, query: str, passages: list[str]) -> list[float]: ...

    def order_by_relevance(self, query: str, passages: list[str]) -> list[int]: ...


class LLMReranker:
    provider = "llm"

    def __init__(self, judge: RelevanceJudge, window: int, method: str = "pointwise"):
        self.judge = judge
        self.model = judge.model
        self.window = window
        self.method = method

    def calls(self, passages: int) -> int:
        """The model calls reranking this many passages costs."""
        if self.method == "listwise":
            return 1 if passages else 0
        return math.ceil(passages / self.window)

    def scores(self, query: str, passages: Sequence[str]) -> list[float]:
        passages = list(passages)
        who = f"model {self.model}"
        if self.method == "listwise":
            order = self.judge.order_by_relevance(query, passages)
            if sorted(order) != list(range(len(passages))):
                raise RerankError(f"{who}: the order is not one of every passage")
            # The first of n passages scores n, the last 1: the order as scores.
            ranked = {position: len(order) - rank for rank, position in enumerate(order)}
            return [float(ranked[i]) for i in range(len(passages))]
        found: list[float] = []
        for start in range(0, len(passages), self.window):
            found += self.judge.judge_relevance(query, passages[start : start + self.window])
        return checked(found, len(passages), who)
