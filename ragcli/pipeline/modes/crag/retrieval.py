"""Corrective retrieval, the heart of crag and shared with the both mode: retrieve, grade,
maybe rewrite and retrieve again, then route to the documents, the documents plus the web,
or the web; or say plainly that nothing covers the question."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from ragcli.answer import Answer
from ragcli.models import ChunkGrade, RetrievedChunk
from ragcli.pipeline import steps
from ragcli.pipeline.context import RunContext
from ragcli.pipeline.modes.crag import steps as crag_steps
from ragcli.pipeline.modes.crag.details import (
    CragDetails,
    CragThresholds,
    RewriteRow,
    WebResultRow,
    WebSearchStatus,
)
from ragcli.pipeline.modes.crag.drafting import grade_while_drafting, worth_drafting
from ragcli.pipeline.modes.crag.grading import Evaluation, should_rewrite, usable
from ragcli.pipeline.results import AskResult
from ragcli.web import ENABLE_HINT
from ragcli.web.chunks import result_fields

log = logging.getLogger("ragcli")


@dataclass
class CragOutcome:
    query: str
    documents: list[RetrievedChunk]
    grades: list[ChunkGrade]
    evaluation: Evaluation
    working: list[RetrievedChunk] = field(default_factory=list)
    web: crag_steps.WebOutcome | None = None
    web_rows: list[WebResultRow] = field(default_factory=list)
    rewrites: list[RewriteRow] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # Answered from the documents although they only partly cover the question.
    limited: bool = False
    # The answer drafted while the web results were graded, kept when all of them joined.
    draft: Answer | None = None
    thresholds: CragThresholds | None = None

    @property
    def covered(self) -> bool:
        return bool(self.working)

    @property
    def web_used(self) -> int:
        return sum(1 for c in self.working if c.is_web)

    def details(self) -> CragDetails:
        """The `crag_details` block of the result."""
        web = self.web
        assert self.thresholds is not None  # set by corrective_retrieval
        return CragDetails(
            used_web_search=self.web_used > 0,
            evaluation=self.evaluation.verdict(),
            route=self.evaluation.route,
            thresholds=self.thresholds,
            grades=crag_steps.grade_rows(self.documents, self.grades),
            rewrites=self.rewrites,
            web_search=(
                None if web is None else WebSearchStatus(status=web.status, message=web.message)
            ),
            web_results=self.web_rows,
        )


def corrective_retrieval(
    ctx: RunContext,
    question: str,
    query: str | None = None,
    first_web_number: int = 0,
    allow_rewrite: bool = True,
    draft: bool = False,
) -> CragOutcome:
    """Chunks are always graded against the user's question; `query` (a refined query in
    both mode) is what retrieves and, when the route needs it, what searches the web.
    `draft` lets the answer be drafted while web results are graded (see drafting.py)."""
    crag = ctx.settings.crag
    query = query or question
    web_query = query
    documents = steps.retrieve(ctx, query)
    grades, evaluation = crag_steps.grade(ctx, question, documents)
    _log_evaluation(evaluation)
    rewrites: list[RewriteRow] = []
    while allow_rewrite and should_rewrite(evaluation) and len(rewrites) < crag.max_rewrites:
        if not ctx.budget.start_iteration("a query rewrite"):
            break
        calls = 1 if evaluation.better_query else 2  # the regrade, and the rewrite unless proposed
        if not ctx.budget.allow_llm_calls(calls, "a query rewrite"):
            break
        failed = [c for c, g in zip(documents, grades, strict=True) if g.label != "correct"]
        rewritten = crag_steps.rewrite(ctx, query, failed, proposed=evaluation.better_query)
        retried = steps.retrieve(ctx, rewritten)
        retried_grades, retried_eval = crag_steps.grade(
            ctx, question, retried, name="grade_rewrite"
        )
        _log_evaluation(retried_eval)
        better = retried_eval.relevance_score > evaluation.relevance_score
        rewrites.append(
            RewriteRow(
                query=rewritten,
                relevance_score=retried_eval.relevance_score,
                relevance_label=retried_eval.relevance_label,
                kept=better,
            )
        )
        if better:  # a rewrite that retrieves worse chunks must not cost the good ones
            query, documents, grades, evaluation = rewritten, retried, retried_grades, retried_eval
    outcome = CragOutcome(query, documents, grades, evaluation, rewrites=rewrites)
    outcome.thresholds = CragThresholds(
        relevant=crag.relevant_threshold, ambiguous=crag.ambiguous_threshold
    )
    _route(ctx, question, web_query, outcome, first_web_number, draft)
    return outcome


def _log_evaluation(evaluation: Evaluation) -> None:
    log.info(
        "CRAG Evaluation: %s (score: %.2f)", evaluation.relevance_label, evaluation.relevance_score
    )


def _route(
    ctx: RunContext,
    question: str,
    web_query: str,
    outcome: CragOutcome,
    first_web_number: int,
    draft: bool,
) -> None:
    evaluation = outcome.evaluation
    from_documents = usable(outcome.documents, outcome.grades)
    if evaluation.relevance_label == "relevant":
        outcome.working = from_documents or outcome.documents[:1]
        return
    web = crag_steps.web_search(ctx, web_query, outcome.documents, first_web_number)
    outcome.web = web
    web_kept: list[RetrievedChunk] = []
    if web.chunks:
        if ctx.budget.allow_llm_calls(1, "grading the web results"):
            candidates = from_documents if evaluation.relevance_label == "ambiguous" else []
            if draft and worth_drafting(ctx):
                web_grades, outcome.draft = grade_while_drafting(
                    ctx, question, candidates, web.chunks
                )
            else:
                web_grades, _ = crag_steps.grade(
                    ctx, question, web.chunks, name="grade_web", joining=True
                )
            # Incorrect results never join; the rest keep the search's order, which is
            # the order a draft cited them in.
            web_kept = [
                c for c, g in zip(web.chunks, web_grades, strict=True) if g.label != "incorrect"
            ]
            outcome.web_rows = _web_rows(web.chunks, web_grades, web_kept)
        else:
            outcome.web_rows = _web_rows(web.chunks, None, [])
    bands = (
        f"relevance {evaluation.relevance_score:.2f}; relevant at "
        f"{ctx.settings.crag.relevant_threshold:.2f}, ambiguous at "
        f"{ctx.settings.crag.ambiguous_threshold:.2f}"
    )
    if evaluation.relevance_label == "ambiguous":
        outcome.working = from_documents + web_kept
        if not web_kept:
            outcome.limited = True
            outcome.notes.append(
                f"{_web_problem(web)} Answered from the documents only, which cover the "
                f"question only partly ({bands})."
            )
        return
    outcome.working = web_kept
    if not web_kept and web.ok and web.chunks:
        outcome.notes.append("The web results were graded irrelevant and were not used.")


def _web_problem(web: crag_steps.WebOutcome) -> str:
    if web.status == "unavailable":
        return f"Web search is not enabled: {ENABLE_HINT}."
    if web.status in ("failed", "limit"):
        return f"Web search did not run to completion ({web.message})."
    if web.chunks:
        return "The web results were graded irrelevant."
    return "The web search found nothing new."


def _web_rows(
    chunks: list[RetrievedChunk], grades: list[ChunkGrade] | None, kept: list[RetrievedChunk]
) -> list[WebResultRow]:
    """Each web result's grade and whether it joined the working chunks."""
    rows = []
    for index, chunk in enumerate(chunks):
        grade = grades[index] if grades else None
        rows.append(
            WebResultRow(
                **result_fields(chunk),
                grade=grade.score if grade else None,
                label=grade.label if grade else "ungraded",
                used=chunk in kept,
                content_preview=chunk.metadata.content_preview,
            )
        )
    return rows


def not_covered(ctx: RunContext, outcome: CragOutcome) -> AskResult:
    """Say plainly that nothing answers, show the closest sources, never invent an answer."""
    crag = ctx.settings.crag
    score = outcome.evaluation.relevance_score
    lines = [
        f"The documents do not cover this question: the best passage scores {score:.2f}, "
        f"below the {crag.ambiguous_threshold:.2f} needed to count as even partly relevant."
    ]
    web = outcome.web
    if web is not None and web.status == "unavailable":
        lines.append(
            f"Web search is not enabled; to let ragcli look beyond the documents, {ENABLE_HINT}."
        )
    elif web is not None and not web.ok:
        lines.append(f"The web search could not help: {web.message}.")
    else:
        lines.append("The web results did not answer it either.")
    lines.append("The closest passages are listed below.")
    with ctx.trace.step("not_covered", relevance=score) as step:
        step.scores = {"relevance": score}
        step.threshold = {"ambiguous": crag.ambiguous_threshold}
        step.decision = "no answer: the documents do not cover the question"
    return ctx.result(
        Answer.of_notes(" ".join(lines)),
        outcome.documents,
        answer_type="not_covered",
        notes=outcome.notes,
        crag_details=outcome.details(),
    )
