"""The typed `agentic_details` block of an agentic result: the sub-questions and each one's
answer, whose sources point into the result's one numbered source list by `n`."""

from __future__ import annotations

from pydantic import Field

from ragcli.models import Record


class SubAnswerSource(Record):
    n: int  # the source's number in the result's sources
    chunk_id: str
    source_file: str
    page: int | None = None
    # "slide 4", "Sheet1, rows 20–45", "lines 12–40"; absent when unknown
    locator: str | None = Field(default=None, exclude_if=lambda v: v is None)
    score: float


class SubAnswerEntry(Record):
    question: str
    answer: str | None  # None: the model failed on this sub-question
    sources: list[SubAnswerSource] = Field(default_factory=list)
    error: str | None = Field(default=None, exclude_if=lambda v: v is None)


class AgenticDetails(Record):
    sub_questions: list[str]
    sub_answers: list[SubAnswerEntry] = Field(default_factory=list)
