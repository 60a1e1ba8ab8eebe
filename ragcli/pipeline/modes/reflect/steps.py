"""reflect's steps: check an answer against its sources, refine the query. Each records
itself in the trace; the loop that chains them is in loop.py."""

from __future__ import annotations

import logging

from ragcli.answer import Answer
from ragcli.models import Reflection, RetrievedChunk
from ragcli.pipeline.context import RunContext

log = logging.getLogger("ragcli")


def reflect(
    ctx: RunContext, query: str, answer: Answer, chunks: list[RetrievedChunk], round_number: int
) -> tuple[Reflection, float | None]:
    """The backend's verdict, and beside it the support check's share of supported
    sentences (None when the answer claims nothing): one judgement of the answer, which
    the offline backend's verdict reads and the final answer's marks show."""
    min_score = ctx.settings.reflect.min_score
    with ctx.trace.step("reflect", query=query, round=round_number, chunks=len(chunks)) as step:
        judged = ctx.support(answer, chunks, f"reflect (round {round_number})")
        reflection = ctx.llm.reflect(query, answer, chunks, min_score, judged)
        support = round(sum(s.supported for s in judged) / len(judged), 3) if judged else None
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


def refine(ctx: RunContext, query: str, feedback: str, chunks: list[RetrievedChunk]) -> str:
    with ctx.trace.step("refine", query=query, feedback=feedback[:300]) as step:
        refined = ctx.llm.refine(query, feedback, chunks).strip() or query
        step.decision = refined
    return refined
