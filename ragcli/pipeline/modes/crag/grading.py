"""crag's decision logic, pure: aggregate chunk grades into one relevance verdict, pick
the route, decide when a rewrite may help. No I/O, no trace."""

from __future__ import annotations

from dataclasses import dataclass

from ragcli.models import ChunkGrade, RetrievedChunk
from ragcli.pipeline.modes.crag.details import ROUTES, RelevanceLabel, Route, Verdict


@dataclass
class Evaluation:
    relevance_score: float
    relevance_label: RelevanceLabel
    correct: int = 0
    ambiguous: int = 0
    incorrect: int = 0
    better_query: str = ""  # the grader's proposal for a rewrite, when it made one

    @property
    def route(self) -> Route:
        return ROUTES[self.relevance_label]

    def verdict(self) -> Verdict:
        return Verdict(relevance_score=self.relevance_score, relevance_label=self.relevance_label)


def evaluate(grades: list[ChunkGrade], relevant_at: float, ambiguous_at: float) -> Evaluation:
    """The best chunk's score is the aggregate: one correct chunk can answer a question,
    and averaging would let the other k-1 unrelated chunks drown it."""
    score = round(max((g.score for g in grades), default=0.0), 3)
    label: RelevanceLabel
    if score >= relevant_at:
        label = "relevant"
    elif score >= ambiguous_at:
        label = "ambiguous"
    else:
        label = "irrelevant"
    labels = [g.label for g in grades]
    return Evaluation(
        relevance_score=score,
        relevance_label=label,
        correct=labels.count("correct"),
        ambiguous=labels.count("ambiguous"),
        incorrect=labels.count("incorrect"),
    )


def should_rewrite(evaluation: Evaluation) -> bool:
    """No chunk answers, yet several come close: a better query may find the answer."""
    return evaluation.correct == 0 and evaluation.ambiguous >= 2


def usable(chunks: list[RetrievedChunk], grades: list[ChunkGrade]) -> list[RetrievedChunk]:
    """The correct and ambiguous chunks, best grade first."""
    kept = [(g.score, c) for c, g in zip(chunks, grades, strict=True) if g.label != "incorrect"]
    kept.sort(key=lambda pair: -pair[0])
    return [chunk for _, chunk in kept]
