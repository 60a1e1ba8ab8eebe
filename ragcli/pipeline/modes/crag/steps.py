"""crag's steps: grade the chunks, rewrite the query, search the web. Each records itself
in the trace; the control flow that chains them is in retrieval.py."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from ragcli.llm.base import GradeBands
from ragcli.models import ChunkGrade, Grading, RetrievedChunk
from ragcli.pipeline.context import RunContext
from ragcli.pipeline.modes.crag.details import GradeRow, WebStatus
from ragcli.pipeline.modes.crag.grading import Evaluation, evaluate
from ragcli.trace.recorder import record_web_search
from ragcli.web import ENABLE_HINT, WebSearchError
from ragcli.web.chunks import new_web_chunks, search_row, web_chunks

log = logging.getLogger("ragcli")


def grade_rows(chunks: list[RetrievedChunk], grades: list[ChunkGrade]) -> list[GradeRow]:
    return [
        GradeRow(
            rank=rank,
            chunk_id=chunk.chunk_id,
            source_file=chunk.metadata.source_file,
            score=grade.score,
            label=grade.label,
            rationale=grade.rationale,
        )
        for rank, (chunk, grade) in enumerate(zip(chunks, grades, strict=True), start=1)
    ]


def grade(
    ctx: RunContext,
    query: str,
    chunks: list[RetrievedChunk],
    name: str = "grade",
    joining: bool = False,
) -> tuple[list[ChunkGrade], Evaluation]:
    """Grade every chunk (one structured model call with the openai backend), aggregate
    and say which route the verdict leads to; `joining` grades web results, where the
    verdict is only which of them may join the working chunks."""
    crag = ctx.settings.crag
    bands = GradeBands(crag.relevant_threshold, crag.ambiguous_threshold)
    with ctx.trace.step(name, query=query, chunks=len(chunks)) as step:
        grading = ctx.llm.grade(query, chunks, bands) if chunks else Grading(grades=[])
        grades = grading.grades
        evaluation = evaluate(grades, crag.relevant_threshold, crag.ambiguous_threshold)
        evaluation.better_query = grading.better_query
        step.scores = {
            "relevance": evaluation.relevance_score,
            "correct": evaluation.correct,
            "ambiguous": evaluation.ambiguous,
            "incorrect": evaluation.incorrect,
        }
        step.details["grades"] = [row.model_dump() for row in grade_rows(chunks, grades)]
        if joining:
            # No threshold here: the route was decided by the documents' grading step.
            joined = len(chunks) - evaluation.incorrect
            step.decision = f"{joined} of {len(chunks)} join; incorrect ones are dropped"
            return grades, evaluation
        step.threshold = {
            "relevant": crag.relevant_threshold,
            "ambiguous": crag.ambiguous_threshold,
        }
        step.decision = f"{evaluation.relevance_label} → {evaluation.route}"
        step.details["routing"] = [
            {
                "relevance_score": evaluation.relevance_score,
                "relevant_threshold": crag.relevant_threshold,
                "ambiguous_threshold": crag.ambiguous_threshold,
                "label": evaluation.relevance_label,
                "route": evaluation.route,
            }
        ]
    return grades, evaluation


def rewrite(
    ctx: RunContext, query: str, failed_chunks: list[RetrievedChunk], proposed: str = ""
) -> str:
    """`proposed` is the grader's better query, given in its grading reply: taking it
    saves the model call a rewrite would otherwise cost."""
    with ctx.trace.step("rewrite", query=query, failed_chunks=len(failed_chunks)) as step:
        if proposed.strip():
            rewritten = proposed.strip()
            step.note("the grader proposed this query with its grades: no separate model call")
        else:
            rewritten = ctx.llm.rewrite(query, failed_chunks).strip() or query
        step.decision = rewritten
    return rewritten


@dataclass
class WebOutcome:
    """What a web search produced: chunks, or why there are none."""

    chunks: list[RetrievedChunk] = field(default_factory=list)
    duplicates: int = 0
    status: WebStatus = "ok"
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def web_search(
    ctx: RunContext, query: str, documents: list[RetrievedChunk], first_number: int = 0
) -> WebOutcome:
    """Search the web, turn results into chunks and drop those the documents already hold.
    A missing provider or a failed search is recorded and returned, never raised."""
    # crag.web_results asks; web.max_results caps what any search may return.
    wanted = min(ctx.settings.crag.web_results, ctx.settings.web.max_results)
    provider = getattr(ctx.web, "name", "none")
    with ctx.trace.step("web_search", query=query, provider=provider, max_results=wanted) as step:
        log.info("CRAG: Triggering web search")
        if ctx.web is None:
            step.decision = "no web provider"
            step.note(f"web search unavailable: no provider configured ({ENABLE_HINT})")
            return WebOutcome(status="unavailable", message="no web search provider is configured")
        if not ctx.budget.allow_web_call():
            step.decision = "skipped"
            return WebOutcome(status="limit", message=ctx.budget.stops[-1])
        record_web_search()
        try:
            results = ctx.web.search(query, wanted)
        except WebSearchError as exc:
            step.decision = "failed"
            step.note(f"web search failed: {exc}")
            return WebOutcome(status="failed", message=str(exc))
        log.info("Web search returned %d results", len(results))
        chunks = web_chunks(results, first_number)
        _count_tokens(ctx, chunks)
        fresh, duplicates = new_web_chunks(chunks, documents)
        step.scores = {"results": len(results), "new": len(fresh)}
        step.decision = f"{len(fresh)} new results" + (
            f", {len(duplicates)} already in the documents" if duplicates else ""
        )
        step.details["web_results"] = [
            search_row(c, "new" if c in fresh else "duplicate") for c in chunks
        ]
    return WebOutcome(chunks=fresh, duplicates=len(duplicates))


def _count_tokens(ctx: RunContext, chunks: list[RetrievedChunk]) -> None:
    """Web chunks carry word-piece counts like document chunks (the embedder's tokenizer)."""
    if not chunks:
        return
    from ragcli.embedding.embedder import tokenizer_dir
    from ragcli.embedding.wordpieces import TokenCounter

    counter = TokenCounter(tokenizer_dir(ctx.settings.embedding))
    for chunk, count in zip(chunks, counter.counts([c.content for c in chunks]), strict=True):
        chunk.metadata.token_count = count
