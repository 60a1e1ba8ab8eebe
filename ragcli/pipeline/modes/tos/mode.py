"""tos: the QnA-first waterfall. A curated FAQ answers what it can with high precision;
the policy documents answer the rest, verified against their passages; uncertain answers
say so; hopeless questions get a clarifying question or a handoff to a person.

Outcomes: qna_answer, qna_limited, tos_answer, tos_limited, clarification, handoff."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import cast

from ragcli.answer import Answer
from ragcli.config import TosSettings
from ragcli.llm.answer_parse import parse_answer
from ragcli.models import RetrievedChunk, Verification
from ragcli.pipeline import steps
from ragcli.pipeline.context import RunContext
from ragcli.pipeline.modes.tos import bands, signals
from ragcli.pipeline.modes.tos.bands import Band
from ragcli.pipeline.modes.tos.details import (
    ANSWER_TYPES,
    BandRow,
    TosDetails,
    TosOutcome,
    VerificationRecord,
)
from ragcli.pipeline.results import AskResult

# What a failed verification turns an outcome into.
DOWNGRADES: dict[TosOutcome, TosOutcome] = {
    "tos_answer": "tos_limited",
    "tos_limited": "clarification",
}


def qna_bands(tos: TosSettings) -> list[Band]:
    return [
        Band("qna_answer", "tos.qna_threshold", tos.qna_threshold),
        Band("qna_limited", "tos.qna_mid_threshold", tos.qna_mid_threshold),
    ]


def docs_bands(tos: TosSettings) -> list[Band]:
    return [
        Band("tos_answer", "tos.tos_threshold", tos.tos_threshold),
        Band("tos_limited", "tos.tos_mid_threshold", tos.tos_mid_threshold),
        Band("clarification", "tos.tos_low_threshold", tos.tos_low_threshold),
    ]


def run(ctx: RunContext, question: str) -> AskResult:
    tos = ctx.settings.tos
    path: list[BandRow] = []
    rules = signals.load(ctx)

    # The FAQ is matched question to question, always by dense similarity, never expanded;
    # its band reads the best similarity whatever the order, so no reranker is asked.
    qna_hits = steps.retrieve(
        ctx, question, collection=tos.qna_collection, mode="dense", rerank=False, expand=False
    )
    qna_row = bands.band(
        ctx,
        "qna",
        qna_hits,
        qna_bands(tos),
        below="documents",
        empty="documents",
        empty_hint=f" (collection {tos.qna_collection!r} is empty or missing: "
        f"ragcli ingest FAQ.yaml --collection {tos.qna_collection})",
    )
    path.append(qna_row)
    qna_score, qna_best = bands.best_similarity(qna_hits)
    if qna_row.outcome == "qna_answer" and qna_best is not None:
        return _finish(ctx, "qna_answer", _qna_answer(qna_best), [qna_best], path, qna_best)

    docs = signals.documents(ctx, question, rules)
    docs_row = bands.band(ctx, "documents", docs, docs_bands(tos), below="handoff", empty="handoff")
    path.append(docs_row)
    docs_score = docs_row.best_score
    # The documents' bands lead to tos_answer, tos_limited, clarification or handoff.
    outcome = cast(TosOutcome, docs_row.outcome)
    # A mid-band FAQ match, kept in case the documents do no better.
    candidate = None
    if qna_row.outcome == "qna_limited" and qna_best is not None and qna_score is not None:
        candidate = FaqMatch(qna_best, qna_score)
        row = bands.compare(ctx, candidate.score, outcome, docs_score)
        path.append(row)
        if row.outcome == "qna_limited":
            return _qna_limited(ctx, candidate, path)

    verification = VerificationRecord(status="not run", reason="no answer was drafted")
    answer = Answer()
    if outcome in ("tos_answer", "tos_limited"):
        answer = steps.generate(ctx, question, docs)
        checked, passed = steps.verify(ctx, answer, docs, tos.verification_threshold)
        verification = _verification(checked, passed, tos.verification_threshold)
        if not passed:
            downgraded = DOWNGRADES[outcome]
            verification.downgraded = f"{outcome} -> {downgraded}"
            path.append(
                BandRow(
                    stage="verify",
                    best_score=checked.supported_score,
                    thresholds={"tos.verification_threshold": tos.verification_threshold},
                    outcome=downgraded,
                    reason=verification.reason,
                )
            )
            outcome = downgraded
            # A mid-band FAQ match beats a documents answer that failed into clarification.
            if outcome == "clarification" and candidate is not None:
                return _qna_limited(ctx, candidate, path, verification)

    if outcome == "tos_answer":
        return _finish(ctx, outcome, answer, docs, path, qna_best, verification)
    if outcome == "tos_limited":
        note = _docs_uncertainty(tos, docs_score, verification)
        limited = Answer(answer.parts, (note, *answer.notes))
        return _finish(ctx, outcome, limited, docs, path, qna_best, verification, note)
    if outcome == "clarification":
        topics = closest_topics(docs, tos.clarification_topics)
        text = Answer.of_notes(_clarification_text(topics, verification))
        return _finish(ctx, outcome, text, docs, path, qna_best, verification, topics=topics)
    handoff = Answer.of_notes(tos.handoff_message)
    return _finish(ctx, "handoff", handoff, [], path, qna_best, verification)


def _qna_answer(pair: RetrievedChunk) -> Answer:
    """The FAQ's curated answer, its sentences and items parts of the answer (they cite no
    source: the FAQ pair is the source)."""
    extra = pair.metadata.model_extra or {}
    return parse_answer(str(extra.get("answer") or pair.content))


def _matched_question(pair: RetrievedChunk | None) -> str | None:
    if pair is None:
        return None
    extra = pair.metadata.model_extra or {}
    return str(extra.get("question") or pair.metadata.heading or "")


@dataclass(frozen=True)
class FaqMatch:
    pair: RetrievedChunk
    score: float


def _qna_limited(
    ctx: RunContext,
    match: FaqMatch,
    path: list[BandRow],
    verification: VerificationRecord | None = None,
) -> AskResult:
    tos = ctx.settings.tos
    pair, score = match.pair, match.score
    note = (
        f"Limited answer: this is the answer to a similar FAQ question, "
        f"\u201c{_matched_question(pair)}\u201d (match {score:.2f}; a confident match needs "
        f"{tos.qna_threshold:.2f}). Check that it fits your question."
    )
    faq = _qna_answer(pair)
    text = Answer(faq.parts, (note, *faq.notes))
    return _finish(ctx, "qna_limited", text, [pair], path, pair, verification, note)


def _docs_uncertainty(
    tos: TosSettings, score: float | None, verification: VerificationRecord
) -> str:
    if verification.downgraded:
        return (
            f"Limited answer: only {verification.supported_score or 0:.0%} of it is supported by "
            f"the passages it cites (verification needs {tos.verification_threshold:.0%}). "
            "Check the sources before relying on it."
        )
    return (
        f"Limited answer: the closest passages only partly match your question (best "
        f"{score or 0:.2f}; a full answer needs {tos.tos_threshold:.2f}). Check the sources before "
        "relying on it."
    )


def closest_topics(chunks: list[RetrievedChunk], limit: int) -> list[str]:
    """Distinct topics of the closest chunks: their heading path, or file (and page)."""
    topics: list[str] = []
    for chunk in chunks:
        meta = chunk.metadata
        topic = meta.heading or Path(meta.source_file).stem.replace("_", " ")
        if (meta.page or meta.locator) and not meta.heading:
            topic += f", {meta.place}"
        if topic not in topics:
            topics.append(topic)
        if len(topics) == limit:
            break
    return topics


def _clarification_text(topics: list[str], verification: VerificationRecord) -> str:
    opening = "I could not find a clear answer to that in the documents."
    if verification.downgraded:
        opening = (
            "The passages I found did not support a reliable answer "
            f"(verification {verification.supported_score or 0:.2f})."
        )
    if not topics:
        return f"{opening} Could you describe what you need in more detail?"
    named = "; ".join(f"\u201c{t}\u201d" for t in topics)
    return (
        f"{opening} The closest topics I found are: {named}. Is your question about one of "
        "these? Please say which, or add the detail that would narrow it down."
    )


def _verification(checked: Verification, passed: bool, threshold: float) -> VerificationRecord:
    score = checked.supported_score
    if passed:
        reason = f"supported {score:.2f} >= {threshold:.2f}"
    else:
        reason = f"supported {score:.2f} < {threshold:.2f}"
        if checked.unsupported_claims:
            reason += f"; {len(checked.unsupported_claims)} unsupported claim(s)"
        else:
            reason += "; the answer states nothing found in the passages"
    return VerificationRecord(
        status="passed" if passed else "failed",
        supported_score=score,
        threshold=threshold,
        unsupported_claims=checked.unsupported_claims,
        reason=reason,
    )


def _finish(
    ctx: RunContext,
    outcome: TosOutcome,
    text: Answer,
    sources: list[RetrievedChunk],
    path: list[BandRow],
    qna_best: RetrievedChunk | None,
    verification: VerificationRecord | None = None,
    uncertainty_note: str | None = None,
    topics: list[str] | None = None,
) -> AskResult:
    tos = ctx.settings.tos
    if verification is None:
        reason = (
            "FAQ answers are curated and not verified"
            if outcome.startswith("qna")
            else "no answer was drafted"
        )
        verification = VerificationRecord(status="not run", reason=reason)
    scores = {row.stage: row.best_score for row in path}
    details = TosDetails(
        answer_type=outcome,
        qna_score=scores.get("qna"),
        tos_score=scores.get("documents"),
        matched_question=_matched_question(qna_best),
        verification=verification,
        path=path,
        retrieval="hybrid" if "bm25" in tos.hybrid else "dense",
        signals=signals.extra_signals(tos.hybrid) or None,
        uncertainty_note=uncertainty_note,
        topics=topics,
    )
    notes = []
    if outcome == "handoff":
        notes.append(_handoff_reason(path))
    if verification.downgraded:
        notes.append(f"verification: {verification.downgraded} ({verification.reason})")
    bands.record_outcome(ctx, details)
    return ctx.result(
        text, sources, answer_type=ANSWER_TYPES[outcome], tos_details=details, notes=notes
    )


def _handoff_reason(path: list[BandRow]) -> str:
    docs = next((row for row in path if row.stage == "documents"), None)
    if docs is None or docs.best_score is None:
        return "the documents returned no passage"
    low = docs.thresholds.get("tos.tos_low_threshold", 0.0)
    return f"best passage {docs.best_score:.2f} is below tos.tos_low_threshold {low:.2f}"
