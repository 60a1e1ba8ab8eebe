"""What `--mode auto` chose, and the signals it chose from (`auto_details` in --json)."""

from __future__ import annotations

from typing import Literal

from ragcli.models import Record

AutoRule = Literal[
    "faq",
    "several_parts",
    "strong_evidence",
    "mixed_evidence",
    "weak_evidence",
    "whole_documents",
]


class AutoDetails(Record):
    mode: str  # the mode that ran
    rule: AutoRule  # the rule that picked it
    reason: str  # the rule in words: "3 questions in one", "FAQ match 0.91 ≥ 0.80"
    faq_score: float | None  # best similarity to a FAQ question; null without a FAQ
    evidence_score: float | None  # best similarity of a document chunk; null when none
    strong_chunks: int  # chunks at or above auto.strong_evidence
    parts: list[str]  # the question's parts, as the rule-based decomposition finds them
    web: bool  # a web provider is configured (mixed evidence then goes to `both`)
