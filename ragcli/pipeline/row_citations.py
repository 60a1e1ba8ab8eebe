"""A source whose quoted lines are table rows is cited by those rows.

A sheet's or a CSV file's chunk holds some twenty rows (`Prices, rows 20–45`); an answer
that quotes one of them is cited as `Prices, row 42`, two as `Prices, rows 42, 57`. The
chunk's stored `rows` gives the row number of each of its lines, counted from its last
line (a heading line put before the rows has none). Whatever backend wrote the answer, a
part it quotes word for word (list marker aside) is found; an answer that only
paraphrases a row keeps the chunk's own locator."""

from __future__ import annotations

import re

from ragcli.answer import Answer
from ragcli.ingest.loaders.base import expand_rows, rows_locator
from ragcli.llm.text import normalise
from ragcli.models import RetrievedChunk

LIST_MARKER = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")


def cite_quoted_rows(answer: Answer, sources: list[RetrievedChunk]) -> list[RetrievedChunk]:
    """`sources`, each table chunk the answer quotes rows of carrying those rows' locator
    (a copy; the others as they are)."""
    quoted: dict[int, set[str]] = {}
    for part in answer.parts:
        lines = {normalise(LIST_MARKER.sub("", line)) for line in part.text.split("\n")}
        for number in part.sources:
            quoted.setdefault(number, set()).update(line for line in lines if line)
    narrowed = []
    for number, source in enumerate(sources, start=1):
        rows = _quoted_rows(source, quoted.get(number, set()))
        if rows:
            locator = rows_locator(source.metadata.heading, rows)
            metadata = source.metadata.model_copy(update={"locator": locator})
            source = source.model_copy(update={"metadata": metadata})
        narrowed.append(source)
    return narrowed


def _quoted_rows(source: RetrievedChunk, quoted: set[str]) -> list[int]:
    if not quoted or not source.metadata.rows:
        return []
    numbers = expand_rows(source.metadata.rows)
    lines = [line for line in source.content.split("\n") if line.strip()]
    if not numbers or len(lines) < len(numbers):
        return []  # stored before this chunk's text changed shape: its own locator holds
    rows = lines[len(lines) - len(numbers) :]
    return [n for n, line in zip(numbers, rows, strict=True) if normalise(line) in quoted]
