"""The rerank stage: one call after fusion. The retriever hands over `candidates` fused
chunks; the reranker scores each against the query; the top_k by that score come back.

A chunk's `score` stays the cosine every threshold compares (crag's, tos's bands, auto's
rules); the reranker's score is `component_scores["rerank"]`, on the reranker's own scale.

A reranker that fails (down, slow, a wrong answer, a model not on this machine, model
calls the run's budget lacks) never fails the run: the fused order stands, one warning
line says the reranker was skipped and why, and the outcome says so for the trace. After
a failure the stage skips the reranker for the rest of its run, without another wait or
another line. A strict stage (`ragcli eval`, which measures the reranker) raises instead:
a measurement of the fused order must not be reported as the reranker's."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ragcli.config import RerankSettings
from ragcli.errors import RagcliError
from ragcli.models import RetrievedChunk
from ragcli.retrieval.rerank.base import Reranker, RerankError

log = logging.getLogger("ragcli")

COMPONENT = "rerank"  # the component_scores key


@dataclass
class Reranked:
    """What the stage did with one retrieval's candidates."""

    chunks: list[RetrievedChunk]  # the top_k, reranked (or in the fused order when skipped)
    candidates: int
    skipped: str | None = None  # why the reranker was skipped
    # One row per candidate: its rank before (fused) and after, its score, whether kept.
    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def entered(self) -> int:
        """How many of the top_k were not in the fused top_k."""
        return sum(1 for r in self.rows if r["kept"] and r["before"] > len(self.chunks))

    def decision(self) -> str:
        if self.skipped:
            return f"skipped: {self.skipped}; fused order kept"
        if not self.rows:
            return f"{self.candidates} candidate(s): nothing to reorder"
        return (
            f"reordered {self.candidates} candidates, kept {len(self.chunks)}; "
            f"{self.entered} of them rose into the top {len(self.chunks)}"
        )


class RerankStage:
    """One run's rerank stage over a reranker built on first use (`build`, which may
    raise RerankUnavailable)."""

    def __init__(
        self,
        options: RerankSettings,
        build: Callable[[], Reranker] | None = None,
        strict: bool = False,
    ):
        self.options = options
        self._build = build
        self._reranker: Reranker | None = None
        self.strict = strict
        self.failed: str | None = None  # why the reranker failed earlier in this run
        self._lock = threading.Lock()  # agentic's sub-questions rerank concurrently

    @classmethod
    def off(cls) -> RerankStage:
        return cls(RerankSettings())

    @property
    def active(self) -> bool:
        return self.options.provider != "none" and self._build is not None

    @property
    def label(self) -> str:
        """The provider and model, as the trace shows them."""
        model = self.options.model or (self._reranker.model if self._reranker else "")
        return f"{self.options.provider} {model}".strip()

    def pool(self, top_k: int) -> int:
        """How many fused chunks to retrieve for a result of top_k."""
        return max(top_k, self.options.candidates) if self.active else top_k

    def reranker(self) -> Reranker:
        with self._lock:
            if self._reranker is None:
                assert self._build is not None
                self._reranker = self._build()
            return self._reranker

    def apply(
        self,
        query: str,
        chunks: list[RetrievedChunk],
        top_k: int,
        fits_llm_calls: Callable[[int], bool] | None = None,
    ) -> Reranked:
        """The top_k of `chunks` (fused order, best first) by the reranker's scores."""
        fused = Reranked(chunks[:top_k], candidates=len(chunks))
        if not self.active or len(chunks) < 2:
            return fused
        if self.failed is not None:
            fused.skipped = f"{self.failed} (earlier in this run)"
            return fused
        try:
            reranker = self.reranker()
            calls = getattr(reranker, "calls", None)
            if calls is not None and fits_llm_calls is not None:
                needed = calls(len(chunks))
                # Optional work: one call is always left for the answer.
                if not fits_llm_calls(needed + 1):
                    raise RerankError(
                        f"reranking {len(chunks)} candidates takes {needed} model calls, "
                        "more than limits.max_llm_calls leaves this run beside the answer"
                    )
            scores = reranker.scores(query, [chunk.content for chunk in chunks])
        except Exception as exc:  # whatever went wrong, the fused order still answers
            reason = str(exc) if isinstance(exc, RagcliError) else f"{type(exc).__name__}: {exc}"
            reason = " ".join(reason.split())[:300]
            if self.strict:
                raise RerankError(f"the reranker failed: {reason}") from None
            with self._lock:
                first = self.failed is None
                self.failed = reason
            if first:
                log.warning("reranker skipped (%s); the fused order is kept", reason)
            fused.skipped = reason
            return fused
        return reorder(chunks, scores, top_k)


def reorder(chunks: list[RetrievedChunk], scores: list[float], top_k: int) -> Reranked:
    """The chunks by descending score (ties keep the fused order), each carrying its
    score as component_scores["rerank"]; the top_k returned."""
    order = sorted(range(len(chunks)), key=lambda i: -scores[i])
    after = {index: rank for rank, index in enumerate(order, start=1)}
    ranked = []
    for index in order[:top_k]:
        chunk = chunks[index]
        components = {**chunk.component_scores, COMPONENT: round(scores[index], 6)}
        ranked.append(chunk.model_copy(update={"component_scores": components}))
    rows: list[dict[str, Any]] = [
        {
            "before": index + 1,
            "after": after[index],
            "score": round(scores[index], 6),
            "kept": after[index] <= top_k,
            "chunk_id": chunk.chunk_id,
            "source_file": chunk.metadata.source_file,
            "place": chunk.metadata.place,
        }
        for index, chunk in enumerate(chunks)
    ]
    rows.sort(key=lambda row: row["after"])
    return Reranked(ranked, candidates=len(chunks), rows=rows)
