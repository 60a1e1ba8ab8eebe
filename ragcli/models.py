"""Data that flows between the pipeline steps and out to the user."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

GradeLabel = Literal["correct", "ambiguous", "incorrect"]


class ChunkMetadata(BaseModel):
    model_config = ConfigDict(extra="allow")

    chunk_id: str
    source_file: str
    file_type: str
    chunk_index: int = 0
    total_chunks: int = 1
    chunk_method: str = ""
    token_count: int = 0
    char_count: int = 0
    content_preview: str = ""
    page: int | None = None
    heading: str | None = None
    file_sha256: str | None = None
    created_at: str | None = None
    processed_at: str | None = None


class RetrievedChunk(BaseModel):
    content: str
    score: float
    metadata: ChunkMetadata
    # Component scores when several retrievers contributed (e.g. dense and bm25).
    component_scores: dict[str, float] = Field(default_factory=dict)

    @property
    def chunk_id(self) -> str:
        return self.metadata.chunk_id

    @property
    def is_web(self) -> bool:
        return self.metadata.file_type == "web_search"


class ChunkGrade(BaseModel):
    score: float = Field(ge=0.0, le=1.0)
    label: GradeLabel
    rationale: str = ""


class Grading(BaseModel):
    grades: list[ChunkGrade]
    # A model grader that sees no correct source proposes a search query for what is
    # missing in the same reply, which spares crag's rewrite a model round trip.
    better_query: str = ""


class Reflection(BaseModel):
    answer_grounded: bool = False
    hallucination_detected: bool = False
    reflection_score: float = Field(0.0, ge=0.0, le=1.0)
    sources_cited: list[str] = Field(default_factory=list)
    reflection_reason: str = ""
    needs_regeneration: bool = True


class Verification(BaseModel):
    supported_score: float = Field(ge=0.0, le=1.0)
    unsupported_claims: list[str] = Field(default_factory=list)


class SubAnswer(BaseModel):
    question: str
    answer: str
    sources: list[RetrievedChunk] = Field(default_factory=list)
    error: str | None = None  # the model failed to answer this sub-question


class Usage(BaseModel):
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    web_searches: int = 0


class AskResult(BaseModel):
    """The response of one `ask`, shaped as in DESIGN.md."""

    query: str
    answer: str
    mode: str
    trace_id: str = ""
    # answer | limited | unverified | clarification | handoff | not_covered
    answer_type: str = "answer"
    notes: list[str] = Field(default_factory=list)
    backend: dict[str, str] = Field(default_factory=dict)
    sources: list[RetrievedChunk] = Field(default_factory=list)
    crag_details: dict[str, Any] | None = None
    reflection_details: dict[str, Any] | None = None
    tos_details: dict[str, Any] | None = None
    agentic_details: dict[str, Any] | None = None
    usage: Usage = Field(default_factory=Usage)
    timings_ms: dict[str, float] = Field(default_factory=dict)

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)
