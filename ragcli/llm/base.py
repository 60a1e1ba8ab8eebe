"""The model roles every backend implements: the pipeline calls roles, never prompts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ragcli.answer import Answer
from ragcli.models import (
    GradeLabel,
    Grading,
    PriorTurn,
    Reflection,
    RetrievedChunk,
    SentenceSupport,
    Standalone,
    SubAnswer,
    Verification,
)


@dataclass(frozen=True)
class GradeBands:
    """Where a chunk's grade turns correct, and ambiguous (crag's relevance thresholds)."""

    correct_at: float
    ambiguous_at: float

    def label(self, score: float) -> GradeLabel:
        if score >= self.correct_at:
            return "correct"
        if score >= self.ambiguous_at:
            return "ambiguous"
        return "incorrect"


class LLMBackend(Protocol):
    name: str  # "extractive" or "openai"
    model: str  # what answered: a model name, or the embedder behind the extractive backend
    remote: bool  # calls cross the network, so overlapping them saves time

    def grade(self, query: str, chunks: list[RetrievedChunk], bands: GradeBands) -> Grading: ...

    # The answer as typed parts, each citing its sources (ragcli/answer.py); Markdown is
    # made from it once (text/markdown.py).
    def generate(self, query: str, chunks: list[RetrievedChunk]) -> Answer: ...

    # `min_score`: the score at which an answer needs no regeneration; `support`: the
    # support check's judgement of each of the answer's sentences (pipeline/support.py),
    # the one the final answer shows, which a backend without a model of its own reads.
    def reflect(
        self,
        query: str,
        answer: Answer,
        chunks: list[RetrievedChunk],
        min_score: float,
        support: list[SentenceSupport],
    ) -> Reflection: ...

    # A better query from the reflection's feedback (the loop retrieves with it).
    def refine(self, query: str, feedback: str, chunks: list[RetrievedChunk]) -> str: ...

    # HyDE: a short passage that would answer the question, searched with; "" when the
    # backend has no model to write one.
    def hypothesize(self, question: str) -> str: ...

    def rewrite(self, query: str, failed_chunks: list[RetrievedChunk]) -> str: ...

    def decompose(self, question: str, min_parts: int, max_parts: int) -> list[str]: ...

    # `numbering` maps chunk_id to its number in one merged source list, which the
    # sub-answers already cite; without it each sub-answer cites its own sources.
    def synthesize(
        self, question: str, sub_answers: list[SubAnswer], numbering: dict[str, int] | None = None
    ) -> Answer: ...

    def verify(
        self, answer: Answer, chunks: list[RetrievedChunk], support: list[SentenceSupport]
    ) -> Verification: ...

    # A follow-up rewritten with the conversation so far (bounded by the caller) into a
    # question retrieval can search for on its own.
    def standalone(self, question: str, history: list[PriorTurn]) -> Standalone: ...
