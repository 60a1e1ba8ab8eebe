"""The typed `tos_details` block of a tos result: the waterfall's bands, the verification
and the outcome. TosOutcome is the one definition of the tos outcomes."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ragcli.models import AnswerType, Record

TosOutcome = Literal[
    "qna_answer", "qna_limited", "tos_answer", "tos_limited", "clarification", "handoff"
]
# The shared answer_type each tos outcome is reported as.
ANSWER_TYPES: dict[TosOutcome, AnswerType] = {
    "qna_answer": "answer",
    "tos_answer": "answer",
    "qna_limited": "limited",
    "tos_limited": "limited",
    "clarification": "clarification",
    "handoff": "handoff",
}
VerificationStatus = Literal["passed", "failed", "not run"]


def _absent_when_none() -> Any:
    """An optional field that is left out of the JSON when it has no value."""
    return Field(default=None, exclude_if=lambda v: v is None)


class BandRow(Record):
    """One row of the band table: a stage's best score against the thresholds it met."""

    stage: str  # qna | documents | compare | verify
    best_score: float | None
    thresholds: dict[str, float] = Field(default_factory=dict)
    outcome: str  # a TosOutcome, or the next stage ("documents")
    reason: str | None = _absent_when_none()
    # Dense and BM25 scores of the best hit, when hybrid search fused them, and what the
    # signals (rules, triplets) added to it.
    components: dict[str, float] | None = _absent_when_none()


class VerificationRecord(Record):
    status: VerificationStatus
    reason: str = ""
    supported_score: float | None = _absent_when_none()
    threshold: float | None = _absent_when_none()
    unsupported_claims: list[str] | None = _absent_when_none()
    downgraded: str | None = _absent_when_none()  # e.g. "tos_answer -> tos_limited"


class TosDetails(Record):
    answer_type: TosOutcome
    qna_score: float | None = None
    tos_score: float | None = None
    matched_question: str | None = None
    verification: VerificationRecord
    path: list[BandRow] = Field(default_factory=list)
    retrieval: Literal["hybrid", "dense"] = "dense"
    # The documents stage's signals beside search (tos.hybrid): rules, triplets.
    signals: list[str] | None = _absent_when_none()
    uncertainty_note: str | None = _absent_when_none()
    topics: list[str] | None = _absent_when_none()
