"""What a run over whole documents read (`documents_details` in --json): which documents,
how many of their sections, within which budget, and how the answer was made."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ragcli.models import Record

# extractive: the offline backend's summary, every section read; whole: one model call
# over every section; map_reduce: a call per group of sections, then one over the notes.
Strategy = Literal["extractive", "whole", "map_reduce"]
# files: `ask --file`; named: the question names them (auto); retrieved: the file of the
# best chunk for the question (auto, when it names none).
ChosenBy = Literal["files", "named", "retrieved"]


class DocumentRead(Record):
    path: str
    sections: int  # the document's sections with text
    sections_read: int  # of them, read (by the model, or by the extractive summary)
    sections_cited: int  # of them, cited by the answer
    tokens: int  # its estimated size in tokens


class DocumentsDetails(Record):
    strategy: Strategy
    chosen_by: ChosenBy
    budget_tokens: int  # documents.context_tokens: what one model call may read
    tokens: int  # the documents' estimated size
    coverage: float  # sections read of all their sections
    cited: float  # sections cited of all their sections
    groups: int | None = None  # map-reduce: the groups of sections, and those read
    groups_read: int | None = None
    documents: list[DocumentRead] = Field(default_factory=list)
