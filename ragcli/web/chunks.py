"""Web results as chunks: the one place a search result becomes a RetrievedChunk shaped
like a document chunk, with the fields every table of web results starts from."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

from ragcli.llm.text import normalise
from ragcli.models import ChunkMetadata, RetrievedChunk
from ragcli.web.base import WebResult

WEB_FILE_TYPE = "web_search"


def fingerprint(text: str) -> str:
    return hashlib.sha1(normalise(text)[:500].encode()).hexdigest()


def web_chunks(results: list[WebResult], first_number: int) -> list[RetrievedChunk]:
    """Numbered from `first_number`, so the chunk ids of several searches in one run
    (both mode) never collide."""
    now = datetime.now(UTC).isoformat()
    chunks = []
    for offset, result in enumerate(results):
        content = result.content
        meta = ChunkMetadata(
            chunk_id=f"web_search_{first_number + offset}",
            source_file=result.url,
            file_type=WEB_FILE_TYPE,
            chunk_index=offset,
            total_chunks=len(results),
            chunk_method=WEB_FILE_TYPE,
            char_count=len(content),
            content_preview=content[:100],
            created_at=now,
            processed_at=now,
            title=result.title,
        )
        chunks.append(RetrievedChunk(content=content, score=round(result.score, 3), metadata=meta))
    return chunks


def new_web_chunks(
    web: list[RetrievedChunk], documents: list[RetrievedChunk]
) -> tuple[list[RetrievedChunk], list[RetrievedChunk]]:
    """(fresh, duplicates): a web result whose text is already among the documents, or
    whose URL or text repeats an earlier result, adds nothing."""
    seen = {fingerprint(c.content) for c in documents}
    normalised_docs = [normalise(c.content) for c in documents]
    urls: set[str] = set()
    fresh, duplicates = [], []
    for chunk in web:
        key = fingerprint(chunk.content)
        text = normalise(chunk.content)
        contained = len(text) > 40 and any(text in doc for doc in normalised_docs)
        if key in seen or contained or chunk.metadata.source_file in urls:
            duplicates.append(chunk)
            continue
        seen.add(key)
        urls.add(chunk.metadata.source_file)
        fresh.append(chunk)
    return fresh, duplicates


def result_fields(chunk: RetrievedChunk) -> dict[str, Any]:
    return {
        "chunk_id": chunk.chunk_id,
        "title": chunk.metadata.title or "",
        "url": chunk.metadata.source_file,
        "score": chunk.score,
    }


def search_row(chunk: RetrievedChunk, status: str) -> dict[str, Any]:
    """A row of the web_search step's table: new, or a duplicate of a document."""
    return {**result_fields(chunk), "chars": chunk.metadata.char_count, "status": status}
