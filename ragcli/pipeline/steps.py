"""The steps every mode is composed of. Each records itself in the trace: its inputs,
scores, the threshold it compared with, the decision taken and its time. Steps never
call other steps; modes own the control flow."""

from __future__ import annotations

import contextvars
import logging
import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from ragcli.errors import BackendError
from ragcli.llm.citations import MergedSources, merge_sources, renumber
from ragcli.llm.text import cited_numbers
from ragcli.models import (
    ChunkGrade,
    Grading,
    Reflection,
    RetrievedChunk,
    SubAnswer,
    Verification,
)
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
    ctx: RunContext,
    query: str,
    top_k: int | None = None,
    collection: str | None = None,
    mode: str | None = None,
) -> list[RetrievedChunk]:
    top_k = top_k or ctx.settings.retrieval.top_k
    collection = collection or ctx.retriever.collection
    with ctx.trace.step("retrieve", query=query, top_k=top_k, collection=collection) as step:
        chunks = ctx.retriever.search(query, top_k, collection, mode=mode)
        step.scores = {"best": chunks[0].score if chunks else None, "chunks": len(chunks)}
        step.decision = f"{len(chunks)} chunks"
        step.details["chunks"] = [chunk_summary(c) for c in chunks]
    return chunks


def generate(
    ctx: RunContext, query: str, chunks: list[RetrievedChunk], name: str = "generate"
) -> str:
    with ctx.trace.step(name, query=query, chunks=len(chunks)) as step:
        answer = ctx.llm.generate(query, chunks, **ctx.stream_kwargs())
        step.decision = f"{len(answer)} characters"
    return answer


def verify(
    ctx: RunContext, answer: str, chunks: list[RetrievedChunk], threshold: float
) -> tuple[Verification, bool]:
    """Check an answer against the chunks it was drawn from; passes at `threshold`."""
    with ctx.trace.step("verify", answer_chars=len(answer), chunks=len(chunks)) as step:
        verification = ctx.llm.verify(answer, chunks)
        passed = verification.supported_score >= threshold
        step.scores = {"supported": verification.supported_score}
        step.threshold = {"verification_threshold": threshold}
        step.decision = "passed" if passed else "failed"
        if verification.unsupported_claims:
            step.details["unsupported_claims"] = [
                {"claim": claim} for claim in verification.unsupported_claims
            ]
    return verification, passed


def _dedupe_key(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


def decompose(ctx: RunContext, question: str) -> list[str]:
    """2–4 distinct sub-questions, or the original question when the model offers fewer."""
    agentic = ctx.settings.agentic
    low, high = agentic.min_sub_questions, agentic.max_sub_questions
    with ctx.trace.step("decompose", question=question) as step:
        proposed = ctx.llm.decompose(question)
        kept: list[str] = []
        first_seen: dict[str, int] = {}
        rows = []
        for number, raw in enumerate(proposed, start=1):
            text = " ".join(str(raw).split())
            key = _dedupe_key(text)
            if not key:
                status = "empty: dropped"
            elif key in first_seen:
                status = f"duplicate of {first_seen[key]}: dropped"
            elif len(kept) >= high:
                status = f"over max_sub_questions {high}: dropped"
            else:
                first_seen[key] = number
                kept.append(text)
                status = "kept"
            rows.append({"#": number, "sub_question": text, "status": status})
        step.scores = {"proposed": len(proposed), "kept": len(kept)}
        step.threshold = {"min_sub_questions": low, "max_sub_questions": high}
        step.details["proposed"] = rows
        if len(kept) < low:
            step.decision = (
                f"fallback: {len(kept)} distinct sub-question(s), fewer than {low}; "
                "answering the original question"
            )
            kept = [question]
        else:
            step.decision = f"{len(kept)} sub-questions"
    return kept


def answer_sub_questions(ctx: RunContext, sub_questions: list[str]) -> list[SubAnswer]:
    """Retrieve and answer each sub-question; they run concurrently, so the stage takes
    about as long as its slowest sub-question."""
    agentic = ctx.settings.agentic
    workers = max(1, min(agentic.concurrency, len(sub_questions)))
    with ctx.trace.step(
        "answer_sub_questions",
        sub_questions=len(sub_questions),
        top_k=agentic.top_k,
        concurrency=workers,
    ) as step:

        def answer(sub_question: str) -> tuple[SubAnswer, int]:
            started = time.perf_counter()
            chunks = ctx.retriever.search(sub_question, agentic.top_k)
            text, error = "", None
            try:
                text = ctx.llm.generate(sub_question, chunks)
            except BackendError as exc:  # the other parts can still be answered
                error = str(exc)
            ms = round((time.perf_counter() - started) * 1000)
            sub = SubAnswer(question=sub_question, answer=text, sources=chunks, error=error)
            return sub, ms

        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ragcli-sub") as pool:
            # Each worker runs in a copy of this context, so the model calls it makes are
            # recorded on this step.
            futures = [
                pool.submit(contextvars.copy_context().run, answer, sub_question)
                for sub_question in sub_questions
            ]
            results = [future.result() for future in futures]
        rows, chunk_rows = [], []
        for number, (sub, ms) in enumerate(results, start=1):
            best = sub.sources[0].score if sub.sources else None
            rows.append(
                {
                    "#": number,
                    "sub_question": sub.question,
                    "best_score": best,
                    "chunks": len(sub.sources),
                    "ms": ms,
                    "answered": "no: model failed" if sub.error else "yes",
                }
            )
            if sub.error:
                step.note(f"sub-question {number} not answered: {sub.error}")
            chunk_rows.extend(
                {
                    "sub": number,
                    "source_file": c.metadata.source_file,
                    "page": c.metadata.page,
                    "heading": c.metadata.heading,
                    "score": c.score,
                    "chunk_id": c.chunk_id,
                }
                for c in sub.sources
            )
        bests = [r["best_score"] for r in rows if r["best_score"] is not None]
        step.scores = {
            "best": max(bests) if bests else None,
            "weakest best": min(bests) if bests else None,
            "chunks": len(chunk_rows),
        }
        failed = [sub for sub, _ in results if sub.error]
        step.decision = (
            f"{len(results) - len(failed)} of {len(results)} sub-questions answered, "
            f"{workers} at a time"
        )
        step.details["sub_questions"] = rows
        step.details["chunks"] = chunk_rows
        if len(failed) == len(results):
            raise BackendError(f"no sub-question could be answered: {failed[0].error}")
    return [sub for sub, _ in results]


def synthesize(
    ctx: RunContext, question: str, sub_answers: list[SubAnswer]
) -> tuple[str, MergedSources]:
    """One answer from the sub-answers, citing one de-duplicated list of their sources.
    Sub-questions the model failed on take no part: their chunks informed no answer."""
    answered = {n: sub for n, sub in enumerate(sub_answers, start=1) if not sub.error}
    with ctx.trace.step("synthesize", question=question, sub_answers=len(answered)) as step:
        merged = merge_sources(list(answered.values()))
        for message in merged.dropped:
            step.note(message)
        if len(merged.sub_answers) == 1:
            answer = merged.sub_answers[0].answer
            step.decision = "one sub-answer: it is the answer, nothing to synthesize"
        else:
            answer = ctx.llm.synthesize(
                question, merged.sub_answers, merged.numbering, **ctx.stream_kwargs()
            )
            known = {n: n for n in range(1, len(merged.sources) + 1)}
            answer, unknown = renumber(answer, known)
            if unknown:
                step.note(
                    f"the synthesis cited {', '.join(f'[{n}]' for n in unknown)}, but there are "
                    f"{len(merged.sources)} sources: removed"
                )
            step.decision = f"{len(merged.sub_answers)} sub-answers → one answer"
        cited = {int(n) for n in cited_numbers(answer)}
        step.scores = {
            "sources": len(merged.sources),
            "duplicates merged": merged.retrieved - len(merged.sources),
            "cited": len(cited),
        }
        used_by: dict[str, list[str]] = {}
        for number, sub in answered.items():
            for chunk in sub.sources:
                used_by.setdefault(chunk.chunk_id, []).append(str(number))
        step.details["sources"] = [
            {
                "n": number,
                "source_file": chunk.metadata.source_file,
                "page": chunk.metadata.page,
                "score": chunk.score,
                "sub_questions": ", ".join(dict.fromkeys(used_by[chunk.chunk_id])),
                "cited": number in cited,
            }
            for number, chunk in enumerate(merged.sources, start=1)
        ]
    return answer, merged
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
        grading = ctx.llm.grade(query, chunks) if chunks else Grading(grades=[])
        grades = grading.grades
        evaluation = evaluate(grades, crag)
        evaluation.better_query = grading.better_query
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
