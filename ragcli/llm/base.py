"""The model roles every backend implements (see DESIGN.md, "roles, not prompts")."""

from __future__ import annotations

from typing import Protocol

from ragcli.models import Grading, Reflection, RetrievedChunk, SubAnswer, Verification


class LLMBackend(Protocol):
    name: str  # "extractive" or "openai"
    model: str  # what answered: a model name, or the embedder behind the extractive backend
    remote: bool  # calls cross the network, so overlapping them saves time

    def grade(self, query: str, chunks: list[RetrievedChunk]) -> Grading: ...

    def generate(self, query: str, chunks: list[RetrievedChunk]) -> str: ...

    def reflect(self, query: str, answer: str, chunks: list[RetrievedChunk]) -> Reflection: ...

    def refine(self, query: str, feedback: str, chunks: list[RetrievedChunk]) -> str: ...

    def rewrite(self, query: str, failed_chunks: list[RetrievedChunk]) -> str: ...

    def decompose(self, question: str) -> list[str]: ...

    # `numbering` maps chunk_id to its number in one merged source list, which the
    # sub-answers already cite; without it each sub-answer cites its own sources.
    def synthesize(
        self, question: str, sub_answers: list[SubAnswer], numbering: dict[str, int] | None = None
    ) -> str: ...

    def verify(self, answer: str, chunks: list[RetrievedChunk]) -> Verification: ...


def label_for(score: float, correct_at: float, ambiguous_at: float) -> str:
    if score >= correct_at:
        return "correct"
    if score >= ambiguous_at:
        return "ambiguous"
    return "incorrect"
