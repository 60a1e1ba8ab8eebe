"""The steps every mode is composed of. Each records itself in the trace: its inputs,
scores, the threshold it compared with, the decision taken and its time. Steps never
call other steps; modes own the control flow."""

from __future__ import annotations

from ragcli.models import RetrievedChunk
from ragcli.pipeline.context import RunContext


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
        answer = ctx.llm.generate(query, chunks, **ctx.stream_kwargs())
        step.decision = f"{len(answer)} characters"
    return answer
