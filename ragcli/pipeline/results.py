"""AskResult: what one run of any mode returns to every front end (terminal, --json,
traces, chat, MCP). Each mode's details block is typed in that mode's package; the JSON
Schema of `ask --json` is generated from these models (`ragcli schema`)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ragcli.answer import Answer, AnswerPart, PartKind, Span
from ragcli.models import (
    AnswerType,
    Record,
    RetrievedChunk,
    SearchFilters,
    SentenceSupport,
    StaleSource,
    Usage,
)
from ragcli.pipeline.conversation import ConversationDetails
from ragcli.pipeline.modes.agentic.details import AgenticDetails
from ragcli.pipeline.modes.auto.details import AutoDetails
from ragcli.pipeline.modes.crag.details import CragDetails
from ragcli.pipeline.modes.documents.details import DocumentsDetails
from ragcli.pipeline.modes.reflect.details import ReflectionDetails
from ragcli.pipeline.modes.tos.details import TosDetails
from ragcli.text.markdown import render


class PartRecord(Record):
    """One part of the answer in the JSON (ragcli/answer.py's AnswerPart): what it says,
    its kind, the source numbers it cites, and for a verbatim quote the chunk and the
    characters [start, end) of its text there."""

    text: str
    kind: PartKind
    sources: list[int] = Field(default_factory=list)
    chunk_id: str | None = Field(default=None, exclude_if=lambda v: v is None)
    span: list[int] | None = Field(default=None, exclude_if=lambda v: v is None)
    language: str | None = Field(default=None, exclude_if=lambda v: v is None)
    new_paragraph: bool = Field(default=False, exclude_if=lambda v: not v)
    continues: bool = Field(default=False, exclude_if=lambda v: not v)
    new_line: bool = Field(default=False, exclude_if=lambda v: not v)
    same_sentence: bool = Field(default=False, exclude_if=lambda v: not v)

    @classmethod
    def of(cls, part: AnswerPart) -> PartRecord:
        return cls(
            text=part.text,
            kind=part.kind,
            sources=list(part.sources),
            chunk_id=part.chunk_id,
            span=[part.span.start, part.span.end] if part.span else None,
            language=part.language,
            new_paragraph=part.new_paragraph,
            continues=part.continues,
            new_line=part.new_line,
            same_sentence=part.same_sentence,
        )

    def part(self) -> AnswerPart:
        return AnswerPart(
            self.text,
            self.kind,
            tuple(self.sources),
            self.chunk_id,
            Span(*self.span) if self.span else None,
            self.language,
            self.new_paragraph,
            self.continues,
            self.new_line,
            self.same_sentence,
        )


class BackendInfo(Record):
    llm: str = ""  # extractive | openai
    model: str = ""  # what answered: a model name, or the embedder behind extractive
    web: str = ""  # tavily | none
    embedder: str = ""


class AskResult(Record):
    """The response of one `ask`."""

    query: str
    answer: str  # the answer as Markdown, made from `answer_parts` (and ragcli's own notes)
    mode: str
    trace_id: str = ""
    answer_type: AnswerType = "answer"
    notes: list[str] = Field(default_factory=list)
    # The answer's parts: each quote or statement with the sources it cites; absent in
    # results of earlier versions, and when the answer is ragcli's own words only.
    answer_parts: list[PartRecord] = Field(default_factory=list, exclude_if=lambda v: not v)
    # The --path/--type/--since the run's retrievals were restricted to; absent if none.
    filters: SearchFilters | None = None
    backend: BackendInfo = Field(default_factory=BackendInfo)
    sources: list[RetrievedChunk] = Field(default_factory=list)
    # Cited files changed or deleted since they were ingested (checked at answer time);
    # absent from the JSON when there are none, as in the traces of earlier versions.
    stale_sources: list[StaleSource] = Field(default_factory=list, exclude_if=lambda v: not v)
    # With --refresh: the retrieved files re-ingested (changed) or removed (missing) first.
    refreshed_sources: list[StaleSource] = Field(default_factory=list, exclude_if=lambda v: not v)
    crag_details: CragDetails | None = None
    reflection_details: ReflectionDetails | None = None
    tos_details: TosDetails | None = None
    agentic_details: AgenticDetails | None = None
    # Each answer sentence checked against the sources it cites; absent when not checked.
    support: list[SentenceSupport] = Field(default_factory=list, exclude_if=lambda v: not v)
    # --mode auto: the mode it chose, the rule and the signals behind the choice.
    auto_details: AutoDetails | None = None
    # Whole documents (ask --file, auto's summaries): what was read, within which budget.
    documents_details: DocumentsDetails | None = None
    # A conversation's turn: the question as asked, the standalone question retrieval
    # searched for, and why; absent from the traces of earlier versions.
    conversation: ConversationDetails | None = None
    usage: Usage = Field(default_factory=Usage)
    timings_ms: dict[str, float] = Field(default_factory=dict)

    def typed_answer(self) -> Answer | None:
        """The answer as typed parts, with the notes it was rendered with (ragcli's own
        words: what the rendered answer holds before its parts); None for a result stored
        without parts."""
        if not self.answer_parts:
            return None
        parts = tuple(p.part() for p in self.answer_parts)
        body = render(Answer(parts))
        head = (
            self.answer[: len(self.answer) - len(body)].strip()
            if self.answer.endswith(body)
            else ""
        )
        return Answer(parts, (head,) if head else ())

    def to_json_dict(self) -> dict[str, Any]:
        """The `ask --json` document: blocks a mode did not fill are left out, and a
        source's metadata lists only the fields it has; inside a details block every
        field is present (null when it has no value) so scripts can rely on its keys."""
        data = self.model_dump(mode="json", exclude={"sources"})
        data["sources"] = [s.model_dump(mode="json", exclude_none=True) for s in self.sources]
        return {key: data[key] for key in type(self).model_fields if data.get(key) is not None}


def json_schema() -> dict[str, Any]:
    """The JSON Schema of `ask --json` (and of a stored trace's `result`)."""
    schema = AskResult.dumped_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "ragcli ask --json"
    return schema
