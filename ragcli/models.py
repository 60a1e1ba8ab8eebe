"""Data that flows between the pipeline steps and out to the user."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ragcli.answer import Answer
from ragcli.metadata import from_chroma, is_stored_field, key_forms

GradeLabel = Literal["correct", "ambiguous", "incorrect"]
# The one vocabulary of outcomes every mode reports (docs/configuration.md, "Exit codes").
AnswerType = Literal["answer", "limited", "unverified", "clarification", "handoff", "not_covered"]


class Record(BaseModel):
    """A block of ragcli's JSON output: its published schema admits no undeclared key, so
    a script (or a test) that relies on a misspelt or vanished field finds out."""

    model_config = ConfigDict(json_schema_extra={"additionalProperties": False})

    @classmethod
    def dumped_schema(cls) -> dict[str, Any]:
        """The JSON Schema of what model_dump() returns (computed fields in, excluded
        fields out): what `ask --json` prints and an MCP client receives. Pydantic's
        default, the validation mode, describes what the model accepts instead."""
        return cls.model_json_schema(mode="serialization")


def heading_line(heading: str) -> str:
    """The first line the chunker gives a chunk, so its heading path ("Report >
    Introduction", a slide title, a sheet name) is embedded and BM25-indexed with its
    text. A Markdown heading line, which segment.py reads as a heading, never as an answer
    sentence; the extractive backend knows it by this exact form."""
    return "# " + " ".join(heading.split())


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
    # A table's chunk (a sheet, a CSV): the row number of each of its lines, "20-24,26-45";
    # an answer quoting some of them is cited by those rows (pipeline/row_citations.py).
    rows: str | None = Field(default=None, exclude_if=lambda v: v is None)
    # A web result's page title; absent from document chunks' JSON.
    title: str | None = Field(default=None, exclude_if=lambda v: v is None)
    # The chunk's policy statements (ragcli/triplets.py, JSON), for retrieval only: the
    # trace shows those that matched, and sources leave them out.
    triplets: str | None = Field(default=None, exclude=True)
    # The code block that follows the chunk when the chunk ends with its lead-in ("An
    # example of how to use it is like this:"), cut from it by the window: an answer quoting
    # the lead-in quotes this code with it (llm/offline/brought.py). For answers only; sources
    # leave it out.
    continues: str | None = Field(default=None, exclude=True)
    # A remote root's chunk: its web address (a page's URL with the anchor of its heading,
    # a repository file's page on its forge) and, from a repository, the commit it was
    # read at. Absent from files' JSON.
    url: str | None = Field(default=None, exclude_if=lambda v: v is None)
    commit: str | None = Field(default=None, exclude_if=lambda v: v is None)
    file_sha256: str | None = None
    created_at: str | None = None
    processed_at: str | None = None
    # What the document says of itself (front matter's tags, a Word or PDF file's
    # properties), as read; absent from the JSON when it has none (ragcli/metadata.py).
    doc_metadata: dict[str, str | list[str]] | None = Field(
        default=None, exclude_if=lambda v: v is None
    )

    @model_validator(mode="before")
    @classmethod
    def _document_metadata(cls, stored: Any) -> Any:
        """A stored chunk's metadata fields: the document's read back from its JSON, the
        fields only filters use left out."""
        if not isinstance(stored, dict) or not any(is_stored_field(k) for k in stored):
            return stored
        fields = {k: v for k, v in stored.items() if not is_stored_field(k)}
        fields["doc_metadata"] = from_chroma(stored)
        return fields

    @property
    def place(self) -> str:
        """Where in its file a chunk sits, for people: the locator, else the page, else the
        heading path (or a web page's title)."""
        if self.locator:
            return self.locator
        if self.page:
            return f"page {self.page}"
        return self.heading or self.title or ""

    @property
    def place_under_heading(self) -> str:
        """The place with the heading it is under when the place does not say it:
        `lines 46–82 · Uploads > Limits`, `slide 4 · Pricing`."""
        return with_heading(self.place, self.heading)

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
    # What each stage scored it: "dense" (cosine), "bm25" (raw BM25), "fused" (hybrid:
    # the fusion score), "rerank" (the reranker's score, on its own scale, when
    # retrieval.rerank reordered the candidates), "heading" (the heading path's cosine,
    # with retrieval.heading_weight on).
    component_scores: dict[str, float] = Field(
        default_factory=dict,
        description="Each stage's score: dense (cosine), bm25 (raw BM25), fused (hybrid "
        "fusion), rerank (the reranker's own scale, when retrieval.rerank reordered the "
        "candidates), heading (the cosine of the chunk's heading path, when "
        "retrieval.heading_weight weighs it). `score` stays the cosine that thresholds "
        "compare.",
    )

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
    answer: Answer
    sources: list[RetrievedChunk] = Field(default_factory=list)
    error: str | None = None  # the model failed to answer this sub-question


# How a sentence's support was found (pipeline/support.py): word for word in a source;
# lexical evidence settled it; or the embedding model measured its similarity too.
Evidence = Literal["verbatim", "lexical", "embedding"]


class SentenceSupport(Record):
    """One answer sentence and how well its sources back it."""

    sentence: str  # as written, citations removed
    cites: list[int]  # the source numbers it cites
    score: float  # calibrated support from the best of the sources checked (0–1)
    # How the score was found: the sentence is in the source word for word; lexical
    # evidence settled it (the score is then the bound no similarity could cross); or
    # the embedding model measured its similarity too.
    evidence: Evidence = "embedding"
    backed_by: list[int]  # the sources whose own support reaches the threshold
    supported: bool
    uncited: bool  # states a fact and cites no source
    # The index of the answer's part judged (AskResult.answer_parts), after which a view
    # puts its mark; absent in results of earlier versions.
    part: int | None = Field(default=None, exclude_if=lambda v: v is None)


class Usage(Record):
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    web_searches: int = 0


class SearchFilters(Record):
    """What a search is restricted to; empty fields restrict nothing."""

    paths: list[str] = Field(default_factory=list)  # gitignore-style patterns, any may match
    types: list[str] = Field(default_factory=list)  # file types: md, pdf, txt, html, qna ...
    since: datetime | None = None  # modified at or after (the time recorded at ingest)
    # The document's metadata: KEY=VALUE, or a date range (date>=2024-05); the same key
    # again is any of its values, other keys must hold too (retrieval/metadata_filter.py).
    meta: list[str] = Field(default_factory=list)

    @property
    def active(self) -> bool:
        return bool(self.paths or self.types or self.since or self.meta)

    def describe(self) -> str:
        """The filter as the flags that set it: `--path 'docs/*' --type pdf`."""
        parts = [f"--path {p!r}" for p in self.paths] + [f"--type {t}" for t in self.types]
        if self.since:
            parts.append(f"--since {self.since.isoformat(timespec='minutes')}")
        parts += [f"--meta {m!r}" for m in self.meta]
        return " ".join(parts)

    def meta_keys(self) -> set[str]:
        """The metadata keys --meta names, in each form a document may hold them."""
        return {
            form
            for text in self.meta
            for form in key_forms(re.split(r"[<>=]", text, maxsplit=1)[0])
        }


class StaleSource(Record):
    """A cited file whose stored chunks no longer match it."""

    path: str
    state: Literal["changed", "missing"]
    ingested_at: str  # when the stored version was ingested


def with_heading(place: str, heading: str | None) -> str:
    """`place · heading`, or `place` alone when it holds the heading already."""
    if place and heading and heading not in place:
        return f"{place} · {heading}"
    return place


class SearchHit(Record):
    """One retrieved chunk: where it is, what each retriever scored it, its text."""

    rank: int
    file: str  # the source file as stored (an absolute path)
    locator: str  # page or heading path in the file; "" when the file has no finer place
    page: int | None
    heading: str | None
    file_type: str
    chunk_id: str
    chunk_index: int
    # Cosine similarity with the query: the scale every threshold in config.yaml uses.
    score: float
    dense: float | None  # cosine, when the dense retriever scored it
    bm25: float | None  # raw BM25 (0.0: no query term in the chunk)
    fused: float | None  # hybrid only: the fusion score
    # The reranker's score (its own scale), which the ranking follows when it is set.
    rerank: float | None = None
    # Cosine of the chunk's heading path with the query, where it was weighed: a heading
    # closer to the query than the text lifts the chunk (retrieval/headings.py).
    heading_cosine: float | None = None
    text: str
    # What its document says of itself (front matter, Word or PDF properties), which
    # --meta filters on; absent when it has none.
    doc_metadata: dict[str, str | list[str]] | None = Field(
        default=None, exclude_if=lambda v: v is None
    )

    @classmethod
    def of(cls, chunk: RetrievedChunk, rank: int) -> SearchHit:
        meta, scores = chunk.metadata, chunk.component_scores
        return cls(
            rank=rank,
            file=meta.source_file,
            locator=meta.place,
            page=meta.page,
            heading=meta.heading,
            file_type=meta.file_type,
            chunk_id=meta.chunk_id,
            chunk_index=meta.chunk_index,
            score=chunk.score,
            dense=scores.get("dense"),
            bm25=scores.get("bm25"),
            fused=scores.get("fused"),
            rerank=scores.get("rerank"),
            heading_cosine=scores.get("heading"),
            text=chunk.content,
            doc_metadata=meta.doc_metadata,
        )


class RerankReport(Record):
    """What the rerank stage did with a search's candidates."""

    reranker: str  # provider and model, e.g. "engine bge-reranker-v2-m3"
    candidates: int  # fused chunks handed to it
    skipped: str | None = None  # why it was skipped (the fused order stands)


class SearchResult(Record):
    query: str
    retriever: str  # dense | bm25 | hybrid
    collection: str
    top_k: int
    filters: SearchFilters | None = None  # absent when the search was not filtered
    # Present when retrieval.rerank names a reranker.
    rerank: RerankReport | None = Field(default=None, exclude_if=lambda v: v is None)
    results: list[SearchHit] = Field(default_factory=list)
    # Files among the results changed or deleted since their ingest; absent when none.
    stale_sources: list[StaleSource] = Field(default_factory=list, exclude_if=lambda v: not v)
    # With --refresh: the files re-ingested (changed) or removed (missing) before searching.
    refreshed_sources: list[StaleSource] = Field(default_factory=list, exclude_if=lambda v: not v)
    # What the search says of itself (a query in a language the embedder does not
    # cover, ranked mostly by BM25); absent when none.
    notes: list[str] = Field(default_factory=list, exclude_if=lambda v: not v)
    timings_ms: dict[str, float] = Field(default_factory=dict)

    def files(self) -> list[str]:
        """The distinct files of the results, best first."""
        return list(dict.fromkeys(hit.file for hit in self.results))

    def to_json_dict(self) -> dict:
        data = self.model_dump(mode="json")
        if data["filters"] is None:
            del data["filters"]
        return data


# `ragcli eval QUESTIONS.yaml` (evaluation/questions.py): each mode over labelled questions.
class QuestionOutcome(Record):
    question: str
    mode: str
    answer_type: str
    evidence_found: float | None  # share of the expected texts in the answer; None: none
    llm_calls: int
    seconds: float
    routed_to: str | None = None  # --mode auto: the mode it chose


class ModeScore(Record):
    """One mode over the file: how it answered the answerable and declined the rest."""

    mode: str
    questions: int
    answerable: int
    answered: int  # answerable questions with answer_type answer
    limited: int  # answerable questions answered with a warning (limited, unverified)
    missed: int  # answerable questions declined
    evidence: float | None  # mean share of the expected evidence found in the answers
    unanswerable: int
    declined: int  # unanswerable questions rightly declined
    llm_calls_per_question: float
    seconds_per_question: float
    routed_as_labelled: float | None = None  # auto only: share matching expect_mode


class QuestionEval(Record):
    file: str
    backend: str
    scores: list[ModeScore]
    outcomes: list[QuestionOutcome]


class PriorTurn(BaseModel):
    """An earlier turn of a conversation, as the follow-up rewrite reads it."""

    question: str  # as asked
    standalone: str  # what retrieval searched for
    answer: str = ""
    # The heading paths of the sections its answer came from (its first sources): the
    # words of the question they are titled with were its focus (llm/followup.py).
    sections: list[str] = Field(default_factory=list)


class Standalone(BaseModel):
    """A question made standalone: what retrieval searches for, and why."""

    question: str
    rewritten: bool = False
    reason: str = ""
