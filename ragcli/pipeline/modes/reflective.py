"""The self-reflective loop, shared by the reflect and both modes: generate, reflect,
approve or refine the query and retrieve again, within `reflect.max_retries` rounds."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ragcli.models import Reflection, RetrievedChunk
from ragcli.pipeline import steps
from ragcli.pipeline.context import RunContext

log = logging.getLogger("ragcli")

# Given a refined query, fresh working chunks; None or [] keeps the current ones.
ReRetrieve = Callable[[str], list[RetrievedChunk] | None]


@dataclass
class Round:
    iteration: int
    query: str
    answer: str
    chunks: list[RetrievedChunk]
    reflection: Reflection | None = None
    action: str = ""

    @property
    def score(self) -> float:
        return self.reflection.reflection_score if self.reflection else -1.0


@dataclass
class LoopOutcome:
    rounds: list[Round] = field(default_factory=list)
    approved: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def final(self) -> Round:
        """The approved round, or else the best-scoring one (the earliest on a tie)."""
        if self.approved:
            return self.rounds[-1]
        return max(self.rounds, key=lambda r: r.score)

    def details(self, min_score: float) -> dict[str, Any]:
        """The `reflection_details` block of the result."""
        final = self.final
        return {
            "final_answer": final.answer,
            "iterations": len(self.rounds),
            "approved": self.approved,
            "min_score": min_score,
            "chosen_iteration": final.iteration,
            "history": [
                {
                    "iteration": r.iteration,
                    "query": r.query,
                    "score": r.reflection.reflection_score if r.reflection else None,
                    "grounded": r.reflection.answer_grounded if r.reflection else None,
                    "hallucination": r.reflection.hallucination_detected if r.reflection else None,
                    "reason": r.reflection.reflection_reason if r.reflection else "",
                    "action": r.action,
                }
                for r in self.rounds
            ],
            "reflection": final.reflection.model_dump() if final.reflection else None,
        }


def reflective_loop(
    ctx: RunContext, question: str, chunks: list[RetrievedChunk], re_retrieve: ReRetrieve
) -> LoopOutcome:
    settings = ctx.settings.reflect
    outcome = LoopOutcome()
    query = question
    ctx.budget.iterations += 1  # the first round always runs: there is no answer without it
    for iteration in range(1, settings.max_retries + 1):
        log.info("Self-Reflective iteration %d", iteration)
        answer = steps.generate(ctx, question, chunks)
        current = Round(iteration, query, answer, chunks)
        outcome.rounds.append(current)
        if not ctx.budget.allow_llm_calls(1, "reflection"):
            current.action = "not checked (limit)"
            break
        reflection = steps.reflect(ctx, question, answer, chunks, iteration)
        current.reflection = reflection
        if reflection.reflection_score >= settings.min_score:
            current.action = "approved"
            outcome.approved = True
            break
        if not reflection.needs_regeneration:
            current.action = "kept (no regeneration asked)"
            break
        if iteration == settings.max_retries:
            current.action = "out of rounds"
            break
        # Another round costs a refinement, a generation and a reflection.
        if not (
            ctx.budget.start_iteration(f"reflection round {iteration + 1}")
            and ctx.budget.allow_llm_calls(3, f"reflection round {iteration + 1}")
        ):
            current.action = "stopped (limit)"
            break
        current.action = "refine"
        query = steps.refine(ctx, query, reflection.reflection_reason, chunks)
        fresh = re_retrieve(query)
        if fresh:
            chunks = fresh
        else:
            outcome.notes.append(
                f"The refined query {query!r} found nothing usable; the next round kept the "
                "previous sources."
            )
    return outcome


def finish(ctx: RunContext, loop: LoopOutcome, **extra: Any):
    """The result of a loop: the approved answer, or the best one with a visible warning."""
    min_score = ctx.settings.reflect.min_score
    final = loop.final
    notes = list(extra.pop("notes", [])) + loop.notes
    answer_type = extra.pop("answer_type", "answer")
    if not loop.approved:
        answer_type = "unverified"
        if final.reflection is None:
            notes.append("not verified: the answer was not checked against its sources")
        else:
            notes.append(f"not verified: {final.score:.2f} < {min_score:.2f}")
    return ctx.result(
        final.answer,
        final.chunks,
        answer_type=answer_type,
        notes=notes,
        reflection_details=loop.details(min_score),
        **extra,
    )
