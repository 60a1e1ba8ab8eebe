"""Data that flows between the pipeline steps and out to the user."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

GradeLabel = Literal["correct", "ambiguous", "incorrect"]
# The one vocabulary of outcomes every mode reports (README, "Exit codes").
AnswerType = Literal["answer", "limited", "unverified", "clarification", "handoff", "not_covered"]


class Record(BaseModel):
    """A block of ragcli's JSON output: its published schema admits no undeclared key, so
    a script (or a test) that relies on a misspelt or vanished field finds out."""

    model_config = ConfigDict(json_schema_extra={"additionalProperties": False})


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
    # Where in the file, as a citation shows it: "page 3 (OCR)", "slide 4",
    # "Sheet1, rows 20–45", "cell 7", "lines 12–40". Absent from the JSON when unknown
    # (chunks stored before locators, Markdown that has only its heading).
    locator: str | None = Field(default=None, exclude_if=lambda v: v is None)
    # A web result's page title; absent from document chunks' JSON.
    title: str | None = Field(default=None, exclude_if=lambda v: v is None)
    file_sha256: str | None = None
    created_at: str | None = None
    processed_at: str | None = None

    @property
    def place(self) -> str:
        """Where in its file a chunk sits, for people: the locator, else the page, else the
        heading path (or a web page's title)."""
        if self.locator:
            return self.locator
        if self.page:
            return f"page {self.page}"
        return self.heading or self.title or ""

    def cited(self, path: str) -> str:
        """`path` with its place: `app.py:12–40` for lines, `deck.pptx, slide 4` else."""
        place = self.locator or (f"p. {self.page}" if self.page else "")
        if place.startswith(("lines ", "line ")):
            return f"{path}:{place.split(' ', 1)[1]}"
        return f"{path}, {place}" if place else path


class RetrievedChunk(Record):
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


class Reflection(Record):
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


class Usage(Record):
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    web_searches: int = 0
