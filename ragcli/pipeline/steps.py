"""The steps most modes share: retrieve, generate, verify. Each records itself in the
trace: its inputs, scores, the threshold it compared with, the decision taken and its
time. Steps never call other steps; modes own the control flow. A step only one mode
uses lives in that mode's package (modes/MODE/steps.py)."""

from __future__ import annotations

from typing import Any

from ragcli.answer import Answer
from ragcli.models import RetrievedChunk, Verification
from ragcli.pipeline import hyde as hypothetical
from ragcli.pipeline.context import RunContext
from ragcli.text.markdown import render


def chunk_summary(chunk: RetrievedChunk) -> dict[str, Any]:
    meta = chunk.metadata
    return {
        "chunk_id": meta.chunk_id,
        "source_file": meta.source_file,
        "page": meta.page,
        "heading": meta.heading,
        "locator": meta.locator,
        "score": chunk.score,
        "component_scores": chunk.component_scores,
        "preview": meta.content_preview or chunk.content[:100],
        # A page's or a repository file's web address, and the commit that answered.
        **{key: value for key in ("url", "commit") if (value := getattr(meta, key))},
    }


def retrieve(
    ctx: RunContext,
    query: str,
    top_k: int | None = None,
    collection: str | None = None,
    mode: str | None = None,
    rerank: bool = True,
    expand: bool = True,
) -> list[RetrievedChunk]:
    """The top_k chunks for `query`: expanded as `retrieval.hyde` and `retrieval.expand`
    say (with `retrieval.hyde`, a `hyde` step writes a passage to search with first), fused,
    then reranked when the run has a reranker. `rerank=False` for a search whose order
    nothing reads, `expand=False` for one that matches questions to questions (a FAQ).
    Trace steps: `hyde` (when on), `retrieve` (the candidates) and `rerank`."""
    top_k = top_k or ctx.settings.retrieval.top_k
    collection = collection or ctx.retriever.collection
    reranking = rerank and ctx.rerank.active
    pool = ctx.rerank.pool(top_k) if reranking else top_k
    written = hypothetical.passage(ctx, query) if expand and ctx.settings.retrieval.hyde else None
    inputs = {"query": query, "top_k": top_k, "collection": collection}
    if pool != top_k:
        inputs["candidates"] = pool
    with ctx.trace.step("retrieve", **inputs) as step:
        if written is not None:
            chunks = ctx.retriever.search(query, pool, collection, mode=mode, hyde=written)
        elif not expand:
            chunks = ctx.retriever.search(query, pool, collection, mode=mode, expand=False)
        else:
            chunks = ctx.retriever.search(query, pool, collection, mode=mode)
        step.scores = {"best": chunks[0].score if chunks else None, "chunks": len(chunks)}
        step.decision = f"{len(chunks)} {'candidates' if reranking else 'chunks'}"
        if ctx.retriever.keywords_pending(collection, mode):
            step.details["retriever"] = "dense"
            step.details["why"] = "the BM25 index is being built on this machine (ragcli sync)"
            step.decision += ", dense only: BM25 index being built"
        step.details["chunks"] = [chunk_summary(c) for c in chunks]
    if not reranking:
        return chunks
    return rerank_candidates(ctx, query, chunks, top_k)


def rerank_candidates(
    ctx: RunContext, query: str, chunks: list[RetrievedChunk], top_k: int, **inputs: Any
) -> list[RetrievedChunk]:
    """The `rerank` step: the top_k of the fused candidates by the reranker, or by the
    fused order when it was skipped (said in the step's decision and a note)."""
    stage = ctx.rerank
    with ctx.trace.step(
        "rerank", query=query, reranker=stage.label, candidates=len(chunks), top_k=top_k, **inputs
    ) as step:
        outcome = stage.apply(query, chunks, top_k, ctx.budget.fits_llm_calls)
        step.inputs["reranker"] = stage.label  # the llm reranker's model is known once built
        best = outcome.rows[0]["score"] if outcome.rows else None
        step.scores = {"best": best, "candidates": outcome.candidates}
        step.decision = outcome.decision()
        if outcome.skipped:
            step.details["skipped"] = outcome.skipped
            step.note(f"reranker skipped: {outcome.skipped}")
        if outcome.rows:
            step.details["candidates"] = outcome.rows
    return outcome.chunks


def generate(
    ctx: RunContext, query: str, chunks: list[RetrievedChunk], name: str = "generate"
) -> Answer:
    with ctx.trace.step(name, query=query, chunks=len(chunks)) as step:
        answer = ctx.llm.generate(query, chunks, **ctx.stream_kwargs())
        step.decision = f"{len(render(answer))} characters"
    return answer


def verify(
    ctx: RunContext, answer: Answer, chunks: list[RetrievedChunk], threshold: float
) -> tuple[Verification, bool]:
    """Check an answer against the chunks it was drawn from; passes at `threshold`."""
    chars = len(render(answer))
    with ctx.trace.step("verify", answer_chars=chars, chunks=len(chunks)) as step:
        verification = ctx.llm.verify(answer, chunks, ctx.support(answer, chunks, "verify"))
        passed = verification.supported_score >= threshold
        step.scores = {"supported": verification.supported_score}
        step.threshold = {"verification_threshold": threshold}
        step.decision = "passed" if passed else "failed"
        if verification.unsupported_claims:
            step.details["unsupported_claims"] = [
                {"claim": claim} for claim in verification.unsupported_claims
            ]
    return verification, passed
