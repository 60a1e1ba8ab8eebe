"""The steps every mode is composed of. Each records itself in the trace: its inputs,
scores, the threshold it compared with, the decision taken and its time. Steps never
call other steps; modes own the control flow."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from ragcli.models import ChunkGrade, Reflection, RetrievedChunk
from ragcli.pipeline.context import RunContext
from ragcli.pipeline.grading import Evaluation, evaluate, new_web_chunks, web_chunks
from ragcli.trace.recorder import record_web_search
from ragcli.web import ENABLE_HINT, WebSearchError

log = logging.getLogger("ragcli")


def chunk_summary(chunk: RetrievedChunk) -> dict:
    meta = chunk.metadata
    return {
        "chunk_id": meta.chunk_id,
        "source_file": meta.source_file,
        "page": meta.page,
        "heading": meta.heading,
        "score": chunk.score,
        "component_scores": chunk.component_scores,
        "preview": meta.content_preview or chunk.content[:100],
    }


def retrieve(
    ctx: RunContext, query: str, top_k: int | None = None, collection: str | None = None
) -> list[RetrievedChunk]:
    top_k = top_k or ctx.settings.retrieval.top_k
    collection = collection or ctx.retriever.collection
    with ctx.trace.step("retrieve", query=query, top_k=top_k, collection=collection) as step:
        chunks = ctx.retriever.search(query, top_k, collection)
        step.scores = {"best": chunks[0].score if chunks else None, "chunks": len(chunks)}
        step.decision = f"{len(chunks)} chunks"
        step.details["chunks"] = [chunk_summary(c) for c in chunks]
    return chunks


def generate(ctx: RunContext, query: str, chunks: list[RetrievedChunk]) -> str:
    with ctx.trace.step("generate", query=query, chunks=len(chunks)) as step:
        answer = ctx.llm.generate(query, chunks)
        step.decision = f"{len(answer)} characters"
    return answer


# -- corrective (CRAG) and self-reflective steps -------------------------------------------


def grade_rows(chunks: list[RetrievedChunk], grades: list[ChunkGrade]) -> list[dict]:
    return [
        {
            "rank": rank,
            "chunk_id": chunk.chunk_id,
            "source_file": chunk.metadata.source_file,
            "score": grade.score,
            "label": grade.label,
            "rationale": grade.rationale,
        }
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
    with ctx.trace.step(name, query=query, chunks=len(chunks)) as step:
        grades = ctx.llm.grade(query, chunks) if chunks else []
        evaluation = evaluate(grades, crag)
        step.scores = {
            "relevance": evaluation.relevance_score,
            "correct": evaluation.correct,
            "ambiguous": evaluation.ambiguous,
            "incorrect": evaluation.incorrect,
        }
        step.details["grades"] = grade_rows(chunks, grades)
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


def rewrite(ctx: RunContext, query: str, failed_chunks: list[RetrievedChunk]) -> str:
    with ctx.trace.step("rewrite", query=query, failed_chunks=len(failed_chunks)) as step:
        rewritten = ctx.llm.rewrite(query, failed_chunks).strip() or query
        step.decision = rewritten
    return rewritten


@dataclass
class WebOutcome:
    """What a web search produced: chunks, or why there are none."""

    chunks: list[RetrievedChunk] = field(default_factory=list)
    duplicates: int = 0
    status: str = "ok"  # ok | unavailable | failed | limit
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
            web_row(c, "new" if c in fresh else "duplicate") for c in chunks
        ]
    return WebOutcome(chunks=fresh, duplicates=len(duplicates))


def web_row(chunk: RetrievedChunk, status: str) -> dict:
    return {
        "chunk_id": chunk.chunk_id,
        "title": getattr(chunk.metadata, "title", ""),
        "url": chunk.metadata.source_file,
        "score": chunk.score,
        "chars": chunk.metadata.char_count,
        "status": status,
    }


def _count_tokens(ctx: RunContext, chunks: list[RetrievedChunk]) -> None:
    """Web chunks carry word-piece counts like document chunks (the embedder's tokenizer)."""
    if not chunks:
        return
    from ragcli.store.embedder import resolve_model_dir
    from ragcli.store.tokenizer import TokenCounter

    counter = TokenCounter(resolve_model_dir(ctx.settings.embedding.model))
    for chunk, count in zip(chunks, counter.counts([c.content for c in chunks]), strict=True):
        chunk.metadata.token_count = count


def reflect(
    ctx: RunContext, query: str, answer: str, chunks: list[RetrievedChunk], round_number: int
) -> Reflection:
    min_score = ctx.settings.reflect.min_score
    with ctx.trace.step("reflect", query=query, round=round_number, chunks=len(chunks)) as step:
        reflection = ctx.llm.reflect(query, answer, chunks)
        approved = reflection.reflection_score >= min_score
        step.scores = {"reflection": reflection.reflection_score}
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
            }
        ]
        log.info(
            "Reflection score: %.2f, Grounded: %s",
            reflection.reflection_score,
            reflection.answer_grounded,
        )
    return reflection


def refine(ctx: RunContext, query: str, feedback: str, chunks: list[RetrievedChunk]) -> str:
    with ctx.trace.step("refine", query=query, feedback=feedback[:300]) as step:
        refined = ctx.llm.refine(query, feedback, chunks).strip() or query
        step.decision = refined
    return refined
