"""The rules of `--mode auto`, as a pure function of signals measured before any model
call: how well the FAQ matches, how many parts the question has, how strong the document
evidence is. The thresholds are in config.yaml (`auto:`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

from ragcli.config import AutoSettings
from ragcli.pipeline.modes.auto.details import AutoRule


@dataclass(frozen=True)
class Signals:
    faq_score: float | None  # None: no FAQ collection, or an empty one
    evidence_scores: list[float]  # the document chunks' similarities, best first
    parts: list[str]  # the question's parts (one for a simple question)
    kind: str  # "comparison", "questions" (several asked), "list", or "single"
    web: bool  # a web search provider is configured
    # A question about whole documents ("summary" or "comparison", auto/whole.py), the
    # documents it names (paths), and the files of the best chunks, best first.
    whole: str | None = None
    named: tuple[str, ...] = ()
    best_files: tuple[str, ...] = ()


@dataclass(frozen=True)
class Choice:
    mode: str
    rule: AutoRule
    reason: str


def choose(signals: Signals, rules: AutoSettings) -> Choice:
    """First rule that holds: whole documents, several parts, a strong FAQ match, then the
    evidence. A summary or a comparison of documents comes first: the chunks a retrieval
    finds are a few pieces of what it asks about. Parts come next: a FAQ entry answers one
    question, and matches a question that asks two as well as it matches either alone."""
    whole = whole_documents(signals, rules)
    if whole is not None:
        return whole
    if len(signals.parts) >= rules.min_parts:
        return Choice("agentic", "several_parts", _parts_reason(signals))
    if signals.faq_score is not None and signals.faq_score >= rules.faq_threshold:
        reason = f"FAQ match {signals.faq_score:.2f} ≥ {rules.faq_threshold:.2f}"
        return Choice("tos", "faq", reason)
    best = signals.evidence_scores[0] if signals.evidence_scores else None
    strong = strong_chunks(signals, rules)
    if best is None or best < rules.weak_evidence:
        shown = "no document chunk" if best is None else f"best chunk {best:.2f}"
        return Choice(
            "crag", "weak_evidence", f"weak evidence: {shown} < {rules.weak_evidence:.2f}"
        )
    if strong >= rules.min_strong_chunks:
        reason = f"strong evidence: {strong} chunks ≥ {rules.strong_evidence:.2f}"
        return Choice("standard", "strong_evidence", reason)
    mixed = f"mixed evidence: best chunk {best:.2f}, {strong} ≥ {rules.strong_evidence:.2f}"
    if signals.web:
        return Choice("both", "mixed_evidence", mixed + ", web search available")
    return Choice("crag", "mixed_evidence", mixed)


def whole_documents(signals: Signals, rules: AutoSettings) -> Choice | None:
    """A summary of the documents the question names, or of the best chunk's document
    when it names none and the evidence is not weak; a comparison of two or more named
    documents. A comparison naming fewer (two plans, two features) is left to the parts."""
    if signals.whole == "comparison" and len(signals.named) >= 2:
        return Choice("documents", "whole_documents", f"a comparison of {_names(signals.named)}")
    if signals.whole != "summary":
        return None
    if signals.named:
        return Choice("documents", "whole_documents", f"a summary of {_names(signals.named)}")
    best = signals.evidence_scores[0] if signals.evidence_scores else None
    if signals.best_files and best is not None and best >= rules.weak_evidence:
        reason = (
            f"a summary naming no document: the best chunk's ({best:.2f} ≥ "
            f"{rules.weak_evidence:.2f}), {_names(signals.best_files[:1])}"
        )
        return Choice("documents", "whole_documents", reason)
    return None


def _names(paths: tuple[str, ...]) -> str:
    return ", ".join(PurePath(path).name for path in paths)


def strong_chunks(signals: Signals, rules: AutoSettings) -> int:
    return sum(1 for score in signals.evidence_scores if score >= rules.strong_evidence)


def _parts_reason(signals: Signals) -> str:
    count = len(signals.parts)
    if signals.kind == "comparison":
        return f"a comparison ({count} parts)"
    if signals.kind == "list":
        return f"a list of {count} things to look up"
    return f"{count} questions in one"
