"""The typed results of the MCP tools that have no model elsewhere: the ingested files
(`sources`) and one stored run (`trace`). `search` returns search.SearchResult and `ask`
pipeline.results.AskResult, the same models `--json` prints."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import Field

from ragcli.models import Record, Usage
from ragcli.store.manifest import FileRecord
from ragcli.trace.recorder import Trace


class SourceFile(Record):
    path: str
    collection: str
    file_type: str
    chunks: int
    pages: int | None
    sha256: str
    modified_at: str  # the file's modification time when it was ingested (UTC, ISO 8601)
    ingested_at: str
    # What the document says of itself (front matter, Word or PDF properties): what the
    # search and ask tools' `meta` filters on.
    metadata: dict[str, str | list[str]] = Field(default_factory=dict)

    @classmethod
    def of(cls, record: FileRecord) -> SourceFile:
        modified = datetime.fromtimestamp(record.mtime_ns / 1e9, tz=UTC)
        return cls(
            path=record.path,
            collection=record.collection,
            file_type=record.file_type,
            chunks=record.chunk_count,
            pages=record.pages,
            sha256=record.sha256,
            modified_at=modified.isoformat(timespec="seconds"),
            ingested_at=record.ingested_at,
            metadata=record.metadata,
        )


class SourcesResult(Record):
    collection: str | None  # None: every collection
    files: list[SourceFile] = Field(default_factory=list)


class TraceStep(Record):
    """One step of a run: what it was given, what it scored against which threshold, and
    the decision it took."""

    name: str
    inputs: dict[str, Any] = Field(default_factory=dict)
    scores: dict[str, Any] = Field(default_factory=dict)
    threshold: dict[str, Any] = Field(default_factory=dict)
    decision: str = ""
    ms: float = 0.0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    web_searches: int = 0
    notes: list[str] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)


class TraceRecord(Record):
    id: str
    created_at: str
    question: str
    mode: str
    answer: str
    answer_type: str
    total_ms: float
    backend: dict[str, str] = Field(default_factory=dict)
    filters: dict[str, Any] = Field(default_factory=dict)
    usage: Usage = Field(default_factory=Usage)
    steps: list[TraceStep] = Field(default_factory=list)
    thresholds: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def of(cls, trace: Trace) -> TraceRecord:
        data = trace.to_dict()
        return cls(
            id=trace.id,
            created_at=trace.created_at,
            question=trace.question,
            mode=trace.mode,
            answer=trace.answer,
            answer_type=trace.answer_type or "answer",
            total_ms=trace.total_ms,
            backend=trace.backend,
            filters=trace.filters,
            usage=Usage(**data["usage"]),
            steps=[TraceStep(**step) for step in data["steps"]],
            thresholds=trace.thresholds,
        )
