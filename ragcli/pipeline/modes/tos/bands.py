"""Score bands, tos's decision logic: compare a stage's best similarity with descending
thresholds and record the outcome as a trace step."""

from __future__ import annotations

from dataclasses import dataclass

from ragcli.models import RetrievedChunk
from ragcli.pipeline.context import RunContext
from ragcli.pipeline.modes.tos.details import BandRow, TosDetails


@dataclass(frozen=True)
class Band:
    outcome: str  # what a score at or above `at` leads to
    setting: str  # the config key the threshold comes from, e.g. "tos.qna_threshold"
    at: float


def similarity(chunk: RetrievedChunk) -> float:
    """Cosine similarity of a hit: its dense component when retrievers were fused (a fused
    rank score is not on the scale the thresholds assume), else its score."""
    return chunk.component_scores.get("dense", chunk.score)


def best_similarity(chunks: list[RetrievedChunk]) -> tuple[float | None, RetrievedChunk | None]:
    if not chunks:
        return None, None
    best = max(chunks, key=similarity)
    return similarity(best), best


def classify(score: float | None, bands: list[Band], below: str, empty: str) -> str:
    """The outcome of the first band (highest first) whose threshold `score` reaches."""
    if score is None:
        return empty
    for band in bands:
        if score >= band.at:
            return band.outcome
    return below


def band_row(
    stage: str,
    score: float | None,
    bands: list[Band],
    outcome: str,
    components: dict[str, float] | None = None,
) -> BandRow:
    """One row of the band table the user sees."""
    return BandRow(
        stage=stage,
        best_score=None if score is None else round(score, 4),
        thresholds={b.setting: b.at for b in bands},
        outcome=outcome,
        components=components,
    )


def band(
    ctx: RunContext,
    stage: str,
    chunks: list[RetrievedChunk],
    bands: list[Band],
    below: str,
    empty: str,
    empty_hint: str = "",
) -> BandRow:
    """Route on the best similarity of `chunks`; returns the band-table row."""
    with ctx.trace.step(f"{stage}_band", stage=stage, hits=len(chunks)) as step:
        score, best = best_similarity(chunks)
        outcome = classify(score, bands, below, empty)
        step.scores = {"best": score}
        step.threshold = {b.setting: b.at for b in bands}
        step.decision = outcome
        components = None
        if best is not None and len(best.component_scores) > 1:
            components = dict(best.component_scores)
        if score is None:
            step.note(f"{stage}: no result{empty_hint}")
    return band_row(stage, score, bands, outcome, components)


def compare(
    ctx: RunContext, qna_score: float, docs_outcome: str, docs_score: float | None
) -> BandRow:
    """Mid-band QnA: the documents win when they give an answer or a limited answer with a
    confidence at least the QnA score."""
    with ctx.trace.step("compare", qna_score=qna_score, docs_outcome=docs_outcome) as step:
        answerable = docs_outcome in ("tos_answer", "tos_limited")
        take_docs = answerable and docs_score is not None and docs_score >= qna_score
        step.scores = {"documents": docs_score}
        step.threshold = {"qna_score": qna_score}
        if take_docs:
            why = f"documents {docs_outcome} at {docs_score:.2f} >= QnA {qna_score:.2f}"
        elif not answerable:
            why = f"documents gave {docs_outcome}, not an answer"
        else:
            why = f"documents {docs_score:.2f} < QnA {qna_score:.2f}"
        outcome = "documents" if take_docs else "qna_limited"
        step.decision = f"{outcome}: {why}"
    return BandRow(
        stage="compare",
        best_score=docs_score,
        thresholds={"qna_score": qna_score},
        outcome=outcome,
        reason=why,
    )


def record_outcome(ctx: RunContext, details: TosDetails) -> None:
    """The final decision of a banded run, with its band table and verification, so that
    `ragcli trace` shows what `ask` showed."""
    with ctx.trace.step("outcome", answer_type=details.answer_type) as step:
        step.scores = {"qna": details.qna_score, "documents": details.tos_score}
        step.decision = details.answer_type
        step.details["bands"] = [
            {**row.model_dump(), "reason": row.reason or ""} for row in details.path
        ]
        step.details["verification"] = [details.verification.model_dump()]
