"""agentic's steps: decompose the question, answer the sub-questions concurrently,
synthesize one answer. Each records itself in the trace; mode.py chains them."""

from __future__ import annotations

import contextvars
import re
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ragcli.answer import Answer
from ragcli.errors import BackendError
from ragcli.llm.citations import MergedSources, cited_first, merge_sources
from ragcli.models import SubAnswer
from ragcli.pipeline import steps
from ragcli.pipeline.context import RunContext
from ragcli.text.citations import format_citations


def _dedupe_key(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


def decompose(ctx: RunContext, question: str) -> list[str]:
    """2–4 distinct sub-questions, or the original question when the model offers fewer."""
    agentic = ctx.settings.agentic
    low, high = agentic.min_sub_questions, agentic.max_sub_questions
    with ctx.trace.step("decompose", question=question) as step:
        proposed = ctx.llm.decompose(question, low, high)
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
            top_k = agentic.top_k
            chunks = ctx.retriever.search(sub_question, ctx.rerank.pool(top_k))
            if ctx.rerank.active:  # a `rerank` step of its own for each sub-question
                chunks = steps.rerank_candidates(ctx, sub_question, chunks, top_k)
            text, error = Answer(), None
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
        rows: list[dict[str, Any]] = []
        chunk_rows: list[dict[str, Any]] = []
        bests: list[float] = []
        for number, (sub, ms) in enumerate(results, start=1):
            best = sub.sources[0].score if sub.sources else None
            if best is not None:
                bests.append(best)
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
                    "locator": c.metadata.locator,
                    "score": c.score,
                    "chunk_id": c.chunk_id,
                }
                for c in sub.sources
            )
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
) -> tuple[Answer, MergedSources]:
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
            answer, unknown = answer.renumbered(known)
            if unknown:
                step.note(
                    f"the synthesis cited {format_citations(unknown)}, but there are "
                    f"{len(merged.sources)} sources: removed"
                )
            step.decision = f"{len(merged.sub_answers)} sub-answers → one answer"
        answer, merged = cited_first(answer, merged)  # citations 1..n, no number skipped
        cited = set(answer.cited())
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
                "locator": chunk.metadata.locator,
                "score": chunk.score,
                "sub_questions": ", ".join(dict.fromkeys(used_by[chunk.chunk_id])),
                "cited": number in cited,
            }
            for number, chunk in enumerate(merged.sources, start=1)
        ]
    return answer, merged
