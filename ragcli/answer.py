"""The typed answer every backend returns (issue 67): what it quotes or states, each part
citing the source it comes from, so that citations, support marks, row citations,
synthesis, the trace, `--json` and the MCP tools read parts instead of parsing a string
back. Markdown is made from it once, for the views.

This module is the contract between the backends (llm/), the pipeline and the views; it
imports nothing of ragcli's, so every layer can use it."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

# sentence: prose; list_item: one item of a list; code: a code block (text without fences);
# row: a table row as `header: value; …`; heading: a section's name given as a part's
# subject, or a synthesized section's sub-question; statement: a model's sentence that is
# not a verbatim quote (OpenAI backend), or ragcli's own words inside a synthesized answer;
# source_list: one file of a "Sources: [1] a.md; [2] b.md" line (a synthesized section's,
# or a model's), its text the file's label and its source the number the line gives it;
# the parts of one line follow each other; label: a list item's name in bold (a summarised
# section's, `ask --file`; empty for a section with no name), the claims after it continue
# that item.
PartKind = Literal[
    "sentence", "list_item", "code", "row", "heading", "statement", "source_list", "label"
]
# The kinds that state something a source can back (support is judged for these).
CLAIM_KINDS: frozenset[str] = frozenset({"sentence", "list_item", "row", "statement"})


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
    (None for a model's own sentence); `new_paragraph` starts a paragraph before it.
    A list item's text starts with its marker ("- ", "1. "); a row's is `header: value; …`.
    `continues`: quoted as one with the part before it (the list or code a lead-in
    introduces); such a run's citation is written once, after its last part.
    `same_sentence`: the rest of the sentence the part before it began, where a model
    cited inside a sentence ("Port 7420 [1] and metrics on 9420 [2]."): each stretch
    keeps its citation where it was written, and the sentence is one claim (so is the
    rest of a model's list item, on the item's line)."""

    text: str
    kind: PartKind
    sources: tuple[int, ...] = ()
    chunk_id: str | None = None
    span: Span | None = None
    language: str | None = None  # a code block's language, for its fence
    new_paragraph: bool = False
    continues: bool = False
    new_line: bool = False  # starts a line of its own (a line break in a model's paragraph)
    same_sentence: bool = False

    @property
    def claims(self) -> bool:
        """It states something a source can back (code, headings and lists of files do not)."""
        return self.kind in CLAIM_KINDS


@dataclass(frozen=True)
class Answer:
    """An answer: its parts in order, and notes that are not part of what the sources
    say (a backend's "The sources do not say …", a budget cut), shown before the parts."""

    parts: tuple[AnswerPart, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def empty(self) -> bool:
        return not self.parts

    def cited(self) -> list[int]:
        """The source numbers the parts cite, each once, in order of first citation."""
        return list(dict.fromkeys(n for part in self.parts for n in part.sources))

    def renumbered(self, mapping: dict[int, int]) -> tuple[Answer, list[int]]:
        """The answer citing `mapping[n]` for each source n; citations absent from
        `mapping` point at no source: they are dropped, and returned."""
        dropped: list[int] = []
        parts = []
        for part in self.parts:
            dropped.extend(n for n in part.sources if n not in mapping)
            kept = tuple(dict.fromkeys(mapping[n] for n in part.sources if n in mapping))
            parts.append(replace(part, sources=kept))
        return Answer(tuple(parts), self.notes), list(dict.fromkeys(dropped))

    @classmethod
    def of_notes(cls, *notes: str) -> Answer:
        """ragcli's own words and nothing from the sources ("The retrieved documents do
        not appear to answer this question.", a clarifying question)."""
        return cls((), tuple(n for n in notes if n))
