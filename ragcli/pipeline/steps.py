"""The steps most modes share: retrieve, generate, verify. Each records itself in the
trace: its inputs, scores, the threshold it compared with, the decision taken and its
time. Steps never call other steps; modes own the control flow. A step only one mode
uses lives in that mode's package (modes/MODE/steps.py)."""

from __future__ import annotations

from typing import Any

from ragcli.models import RetrievedChunk, Verification
from ragcli.pipeline import hyde as hypothetical
from ragcli.pipeline.context import RunContext


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
    }


def retrieve(
    ctx: RunContext,
    query: str,
    top_k: int | None = None,
    collection: str | None = None,
    mode: str | None = None,
    expand: bool = True,
) -> list[RetrievedChunk]:
    """The query's top_k chunks, expanded as `retrieval.hyde` and `retrieval.expand` say
    (with `retrieval.hyde`, a `hyde` step writes a passage to search with first); `expand`
    False for a search that matches questions to questions (a FAQ)."""
    top_k = top_k or ctx.settings.retrieval.top_k
    collection = collection or ctx.retriever.collection
    written = hypothetical.passage(ctx, query) if expand and ctx.settings.retrieval.hyde else None
    with ctx.trace.step("retrieve", query=query, top_k=top_k, collection=collection) as step:
        if written is not None:
            chunks = ctx.retriever.search(query, top_k, collection, mode=mode, hyde=written)
        elif not expand:
            chunks = ctx.retriever.search(query, top_k, collection, mode=mode, expand=False)
        else:
            chunks = ctx.retriever.search(query, top_k, collection, mode=mode)
        step.scores = {"best": chunks[0].score if chunks else None, "chunks": len(chunks)}
        step.decision = f"{len(chunks)} chunks"
        if ctx.retriever.keywords_pending(collection, mode):
            step.details["retriever"] = "dense"
            step.details["why"] = "the BM25 index is being built on this machine (ragcli sync)"
            step.decision += ", dense only: BM25 index being built"
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
