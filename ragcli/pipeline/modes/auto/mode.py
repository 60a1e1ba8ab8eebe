"""auto: measure the question and the evidence (no model call), pick one of the six
modes by the rules in routing.py, and run it. The choice is the run's first step."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ragcli.config import Settings
from ragcli.llm import decompose as grammar
from ragcli.pipeline.context import RunContext
from ragcli.pipeline.modes.auto.details import AutoDetails
from ragcli.pipeline.modes.auto.routing import Signals, choose, strong_chunks
from ragcli.pipeline.results import AskResult
from ragcli.retrieval.retriever import Retriever


def run(
    ctx: RunContext, question: str, modes: Mapping[str, Callable[[RunContext, str], AskResult]]
) -> AskResult:
    """`modes`: the ones auto picks among, by name; the registry, which lists auto with
    them, passes its own, so this module needs no import of it."""
    details = decide(ctx, question)
    result = modes[details.mode](ctx, question)
    result.auto_details = details
    return result


def decide(ctx: RunContext, question: str) -> AutoDetails:
    """The traced first step: the signals, the rule that holds, the mode it picks."""
    rules = ctx.settings.auto
    with ctx.trace.step("route", question=question) as step:
        # The offline grader: the extractive backend, or the one openai falls back on.
        offline: Any = getattr(ctx.llm, "fallback", None) or ctx.llm
        signals = measure(
            ctx.retriever, ctx.settings, question, ctx.web is not None, offline.relevance
        )
        choice = choose(signals, rules)
        details = AutoDetails(
            mode=choice.mode,
            rule=choice.rule,
            reason=choice.reason,
            faq_score=signals.faq_score,
            evidence_score=signals.evidence_scores[0] if signals.evidence_scores else None,
            strong_chunks=strong_chunks(signals, rules),
            parts=signals.parts,
            web=signals.web,
        )
        step.scores = {
            "faq": details.faq_score,
            "evidence": details.evidence_score,
            "strong_chunks": details.strong_chunks,
            "parts": len(signals.parts),
        }
        step.threshold = {f"auto.{k}": v for k, v in rules.model_dump().items()}
        step.decision = f"auto → {choice.mode}: {choice.reason}"
        if len(signals.parts) > 1:
            step.details["parts"] = [{"part": part} for part in signals.parts]
    return details


def measure(
    retriever: Retriever,
    settings: Settings,
    question: str,
    web: bool,
    relevance: Callable[[str, str], float],
) -> Signals:
    """The signals, with no model call: the FAQ matched question to question (as tos
    does); the documents retrieved as configured, each graded by `relevance` (the offline
    grader's calibrated evidence, which weighs rare query terms a chunk lacks, where a
    similarity alone rates an off-topic question on a familiar subject highly); the
    parts by grammar. The documents are measured in the fused order, not reranked: the
    rules were fitted on it, and the route stays free of model calls (the mode it picks
    reranks)."""
    faq_score = None
    qna = settings.tos.qna_collection
    if qna != retriever.collection and retriever.store.count(qna) > 0:
        hits = retriever.search(question, 1, qna, mode="dense", expand=False)
        faq_score = hits[0].score if hits else None
    chunks = retriever.search(question, settings.retrieval.top_k)
    scores = sorted((relevance(question, chunk.content) for chunk in chunks), reverse=True)
    parts = grammar.decompose(question, settings.agentic.max_sub_questions)
    return Signals(faq_score, scores, parts, kind=question_kind(question, parts), web=web)


def question_kind(question: str, parts: list[str]) -> str:
    """What made the question several parts, for the reason shown: a comparison, several
    questions asked, or a list of things to look up."""
    if len(parts) < 2:
        return "single"
    text = question.strip().rstrip("?.!")
    if (
        grammar.COMPARE.match(text)
        or grammar.DIFFERENCE.search(text)
        or grammar.COMPARED_TO.match(text)
        or grammar.VERSUS.match(text)
    ):
        return "comparison"
    if question.count("?") > 1 or grammar.CLAUSE_BREAK.search(question):
        return "questions"
    return "list"
