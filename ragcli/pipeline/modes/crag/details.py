"""The typed `crag_details` block of a crag or both result: grades, the routing verdict,
rewrites and web results, with the JSON field names scripts already read."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, computed_field

from ragcli.models import GradeLabel, Record

RelevanceLabel = Literal["relevant", "ambiguous", "irrelevant"]
Route = Literal["documents", "documents+web", "web"]
WebStatus = Literal["ok", "unavailable", "failed", "limit"]
ROUTES: dict[RelevanceLabel, Route] = {
    "relevant": "documents",
    "ambiguous": "documents+web",
    "irrelevant": "web",
}


class Verdict(Record):
    """The aggregated relevance of the graded chunks (the `evaluation` block)."""

    relevance_score: float
    relevance_label: RelevanceLabel

    @computed_field  # type: ignore[prop-decorator]  # kept in the JSON for scripts
    @property
    def needs_web_search(self) -> bool:
        return ROUTES[self.relevance_label] != "documents"


class CragThresholds(Record):
    relevant: float
    ambiguous: float


class GradeRow(Record):
    rank: int
    chunk_id: str
    source_file: str
    score: float
    label: GradeLabel
    rationale: str = ""


class RewriteRow(Record):
    query: str
    relevance_score: float
    relevance_label: RelevanceLabel
    kept: bool


class WebSearchStatus(Record):
    status: WebStatus
    message: str = ""


class WebResultRow(Record):
    chunk_id: str
    title: str = ""
    url: str
    score: float
    grade: float | None = None
    label: GradeLabel | Literal["ungraded"] = "ungraded"
    used: bool = False
    content_preview: str = ""


class ReRetrieval(Record):
    """A corrective re-retrieval made by the both mode's reflective loop."""

    query: str
    evaluation: Verdict
    route: Route
    web_results: int
    chunks: int


class CragDetails(Record):
    used_web_search: bool
    evaluation: Verdict
    route: Route
    thresholds: CragThresholds
    grades: list[GradeRow] = Field(default_factory=list)
    rewrites: list[RewriteRow] = Field(default_factory=list)
    web_search: WebSearchStatus | None = None
    web_results: list[WebResultRow] = Field(default_factory=list)
    # Only the both mode re-retrieves; the key is absent for crag.
    re_retrievals: list[ReRetrieval] | None = Field(default=None, exclude_if=lambda v: v is None)
