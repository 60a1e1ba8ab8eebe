"""The typed answer every backend returns (issue 67): what it quotes or states, each part
citing the source it comes from, so that citations, support marks, row citations,
synthesis, the trace, `--json` and the MCP tools read parts instead of parsing a string
back. Markdown is made from it once, for the views.

This module is the contract between the backends (llm/), the pipeline and the views; it
imports nothing of ragcli's, so every layer can use it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

# sentence: prose; list_item: one item of a list; code: a code block (text without fences);
# row: a table row as `header: value; …`; heading: a section's name given as a part's
# subject; statement: a model's sentence that is not a verbatim quote (OpenAI backend).
PartKind = Literal["sentence", "list_item", "code", "row", "heading", "statement"]


@dataclass(frozen=True)
class Span:
    """Where a quote sits in its source chunk's stored text: [start, end) characters."""

    start: int
    end: int


@dataclass(frozen=True)
class AnswerPart:
    """One sentence, list item, code block or row of an answer.

    `text` is the part as shown (inline Markdown for prose, the code itself for code);
    `sources` the 1-based numbers of the run's sources it cites (empty for a part that
    cites nothing); `chunk_id` and `span` locate a verbatim quote in the stored chunk
    (None for a model's own sentence); `new_paragraph` starts a paragraph before it."""

    text: str
    kind: PartKind
    sources: tuple[int, ...] = ()
    chunk_id: str | None = None
    span: Span | None = None
    language: str | None = None  # a code block's language, for its fence
    new_paragraph: bool = False


@dataclass(frozen=True)
class Answer:
    """An answer: its parts in order, and notes that are not part of what the sources
    say (a backend's "The sources do not say …", a budget cut)."""

    parts: tuple[AnswerPart, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def empty(self) -> bool:
        return not self.parts
