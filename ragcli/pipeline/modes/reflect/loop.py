"""The self-reflective loop, the heart of reflect and shared with the both mode: generate,
reflect, approve or refine the query and retrieve again, within `reflect.max_retries`
rounds; then finish with the approved answer, or the best one marked unverified."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from ragcli.answer import Answer
from ragcli.models import AnswerType, Reflection, RetrievedChunk
from ragcli.pipeline import steps
from ragcli.pipeline.context import RunContext
from ragcli.pipeline.modes.crag.details import CragDetails
from ragcli.pipeline.modes.reflect import steps as reflect_steps
from ragcli.pipeline.modes.reflect.details import ReflectionDetails, ReflectionRound
from ragcli.pipeline.results import AskResult
from ragcli.text.markdown import render

log = logging.getLogger("ragcli")

# Given a refined query, fresh working chunks; None or [] keeps the current ones.
ReRetrieve = Callable[[str], list[RetrievedChunk] | None]


@dataclass
class Round:
    iteration: int
    query: str
    answer: Answer
    chunks: list[RetrievedChunk]
    reflection: Reflection | None = None
    support: float | None = None  # share of sentences the support check finds backed
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

    def details(self, min_score: float) -> ReflectionDetails:
        """The `reflection_details` block of the result."""
        final = self.final
        return ReflectionDetails(
            final_answer=render(final.answer),
            iterations=len(self.rounds),
            approved=self.approved,
            min_score=min_score,
            chosen_iteration=final.iteration,
            history=[_history_row(r) for r in self.rounds],
            reflection=final.reflection,
        )


def _history_row(r: Round) -> ReflectionRound:
    checked = r.reflection
    return ReflectionRound(
        iteration=r.iteration,
        query=r.query,
        score=checked.reflection_score if checked else None,
        grounded=checked.answer_grounded if checked else None,
        hallucination=checked.hallucination_detected if checked else None,
        reason=checked.reflection_reason if checked else "",
        action=r.action,
        support=r.support,
    )


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
        reflection, current.support = reflect_steps.reflect(
            ctx, question, answer, chunks, iteration
        )
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
        query = reflect_steps.refine(ctx, query, reflection.reflection_reason, chunks)
        fresh = re_retrieve(query)
        if fresh:
            chunks = fresh
        else:
            outcome.notes.append(
                f"The refined query {query!r} found nothing usable; the next round kept the "
                "previous sources."
            )
    return outcome


def finish(
    ctx: RunContext,
    loop: LoopOutcome,
    answer_type: AnswerType = "answer",
    notes: list[str] | None = None,
    crag_details: CragDetails | None = None,
) -> AskResult:
    """The result of a loop: the approved answer, or the best one with a visible warning."""
    min_score = ctx.settings.reflect.min_score
    final = loop.final
    notes = list(notes or []) + loop.notes
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
        crag_details=crag_details,
    )
