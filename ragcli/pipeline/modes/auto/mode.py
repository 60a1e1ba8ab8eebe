"""auto: measure the question and the evidence (no model call), pick one of the six
modes by the rules in routing.py, or the documents mode for a summary or comparison of
whole documents, and run it. The choice is the run's first step."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from ragcli.config import Settings
from ragcli.llm import decompose as grammar
from ragcli.pipeline.context import RunContext
from ragcli.pipeline.modes.auto.details import AutoDetails
from ragcli.pipeline.modes.auto.routing import Signals, choose, strong_chunks
from ragcli.pipeline.modes.auto.whole import whole_request
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
        signals = with_documents(ctx, question, signals)
        choice = choose(signals, rules)
        if choice.mode == "documents":
            read_whole(ctx, signals)
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
        if signals.whole:
            step.scores["documents_named"] = len(signals.named)
            step.details["documents"] = [{"named": path} for path in signals.named]
    return details


def with_documents(ctx: RunContext, question: str, signals: Signals) -> Signals:
    """The signals with what a question about whole documents needs: its kind and the
    documents it names (none looked for when it is no such question, or the run has no
    library of documents)."""
    whole = whole_request(question)
    if whole is None or ctx.library is None:
        return signals
    named = tuple(record.path for record in ctx.library.named_in(question))
    return dataclasses.replace(signals, whole=whole, named=named)


def read_whole(ctx: RunContext, signals: Signals) -> None:
    """The documents the route chose, read for the documents mode: those named, else the
    best chunk's."""
    assert ctx.library is not None  # the route chose documents: the run has a library
    paths = signals.named or signals.best_files[:1]
    ctx.documents = ctx.library.read(ctx.library.by_paths(list(paths)))
    ctx.documents_chosen_by = "named" if signals.named else "retrieved"


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
    graded = sorted(
        ((relevance(question, chunk.content), chunk.metadata.source_file) for chunk in chunks),
        key=lambda pair: -pair[0],
    )
    scores = [score for score, _ in graded]
    files = tuple(dict.fromkeys(path for _, path in graded))
    parts = grammar.decompose(question, settings.agentic.max_sub_questions)
    return Signals(
        faq_score, scores, parts, kind=question_kind(question, parts), web=web, best_files=files
    )


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
