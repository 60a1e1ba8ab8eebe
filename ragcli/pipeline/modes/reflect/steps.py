"""reflect's steps: check an answer against its sources, refine the query. Each records
itself in the trace; the loop that chains them is in loop.py."""

from __future__ import annotations

import logging

from ragcli.answer import Answer
from ragcli.models import Reflection, RetrievedChunk
from ragcli.pipeline.context import RunContext
from ragcli.text.markdown import render

log = logging.getLogger("ragcli")


def reflect(
    ctx: RunContext, query: str, answer: Answer, chunks: list[RetrievedChunk], round_number: int
) -> tuple[Reflection, float | None]:
    """The model's verdict, and beside it the sentence-support check's share of supported
    sentences (None when the check is off or the answer claims nothing)."""
    min_score = ctx.settings.reflect.min_score
    with ctx.trace.step("reflect", query=query, round=round_number, chunks=len(chunks)) as step:
        reflection = ctx.llm.reflect(query, answer, chunks, min_score)
        support = support_share(ctx, answer, chunks)
        approved = reflection.reflection_score >= min_score
        step.scores = {"reflection": reflection.reflection_score, "support": support}
        step.threshold = {"min_score": min_score}
        step.decision = "approved" if approved else "below min_score"
        step.details["reflection"] = [
            {
                "round": round_number,
                "score": reflection.reflection_score,
                "min_score": min_score,
                "grounded": reflection.answer_grounded,
                "hallucination": reflection.hallucination_detected,
                "sources_cited": reflection.sources_cited,
                "needs_regeneration": reflection.needs_regeneration,
                "reason": reflection.reflection_reason,
                "support": support,
            }
        ]
        log.info(
            "Reflection score: %.2f, Grounded: %s",
            reflection.reflection_score,
            reflection.answer_grounded,
        )
    return reflection, support


def support_share(ctx: RunContext, answer: Answer, chunks: list[RetrievedChunk]) -> float | None:
    from ragcli.pipeline.support import SupportChecker

    if not ctx.settings.support.enabled:
        return None
    checker = SupportChecker(ctx.retriever.embedder, ctx.settings.support.threshold)
    checked = checker.check(render(answer), chunks)
    if not checked:
        return None
    return round(sum(1 for s in checked if s.supported) / len(checked), 3)


def refine(ctx: RunContext, query: str, feedback: str, chunks: list[RetrievedChunk]) -> str:
    with ctx.trace.step("refine", query=query, feedback=feedback[:300]) as step:
        refined = ctx.llm.refine(query, feedback, chunks).strip() or query
        step.decision = refined
    return refined
