"""CRAG's pure logic: aggregate chunk grades into one relevance verdict, pick the route,
turn web results into chunks and keep the ones worth adding. No I/O, no trace."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel

from ragcli.config import CragSettings
from ragcli.llm.text import normalise
from ragcli.models import ChunkGrade, ChunkMetadata, RetrievedChunk
from ragcli.web.base import WebResult

RelevanceLabel = Literal["relevant", "ambiguous", "irrelevant"]
Route = Literal["documents", "documents+web", "web"]
ROUTES: dict[str, Route] = {
    "relevant": "documents",
    "ambiguous": "documents+web",
    "irrelevant": "web",
}


class Evaluation(BaseModel):
    relevance_score: float
    relevance_label: RelevanceLabel
    needs_web_search: bool
    correct: int = 0
    ambiguous: int = 0
    incorrect: int = 0
    better_query: str = ""  # the grader's proposal for a rewrite, when it made one

    @property
    def route(self) -> Route:
        return ROUTES[self.relevance_label]

    def public(self) -> dict:
        """The `evaluation` block of `crag_details`."""
        return self.model_dump(include={"relevance_score", "relevance_label", "needs_web_search"})


def evaluate(grades: list[ChunkGrade], crag: CragSettings) -> Evaluation:
    """The best chunk's score is the aggregate: one correct chunk can answer a question,
    and averaging would let the other k-1 unrelated chunks drown it."""
    score = round(max((g.score for g in grades), default=0.0), 3)
    if score >= crag.relevant_threshold:
        label: RelevanceLabel = "relevant"
    elif score >= crag.ambiguous_threshold:
        label = "ambiguous"
    else:
        label = "irrelevant"
    labels = [g.label for g in grades]
    return Evaluation(
        relevance_score=score,
        relevance_label=label,
        needs_web_search=label != "relevant",
        correct=labels.count("correct"),
        ambiguous=labels.count("ambiguous"),
        incorrect=labels.count("incorrect"),
    )


def should_rewrite(evaluation: Evaluation) -> bool:
    """No chunk answers, yet several come close: a better query may find the answer."""
    return evaluation.correct == 0 and evaluation.ambiguous >= 2


def usable(chunks: list[RetrievedChunk], grades: list[ChunkGrade]) -> list[RetrievedChunk]:
    """The correct and ambiguous chunks, best grade first."""
    kept = [(g.score, c) for c, g in zip(chunks, grades, strict=True) if g.label != "incorrect"]
    kept.sort(key=lambda pair: -pair[0])
    return [chunk for _, chunk in kept]


def fingerprint(text: str) -> str:
    return hashlib.sha1(normalise(text)[:500].encode()).hexdigest()


def web_chunks(results: list[WebResult], first_number: int) -> list[RetrievedChunk]:
    """Web results as chunks, with metadata shaped like a document chunk's."""
    now = datetime.now(UTC).isoformat()
    chunks = []
    for offset, result in enumerate(results):
        number = first_number + offset
        content = result.content
        meta = ChunkMetadata(
            chunk_id=f"web_search_{number}",
            source_file=result.url,
            file_type="web_search",
            chunk_index=offset,
            total_chunks=len(results),
            chunk_method="web_search",
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
