"""A unit of a retrieved chunk (llm/segment.py) as a part of a typed answer
(ragcli/answer.py): its kind, the source it cites, and where the chunk holds it."""

from __future__ import annotations

import re

from ragcli.answer import AnswerPart, PartKind, Span
from ragcli.llm.segment import UnitKind
from ragcli.models import RetrievedChunk
from ragcli.text.fences import unfence

PART_KINDS: dict[UnitKind, PartKind] = {
    "sentence": "sentence",
    "item": "list_item",
    "row": "row",
    "code": "code",
    "heading": "heading",
}


def quoted_part(
    shown: str,
    kind: UnitKind,
    number: int,
    chunk: RetrievedChunk,
    source_text: str | None = None,
    continues: bool = False,
) -> AnswerPart:
    """A unit of `chunk` (source `number`) as a part of the answer: `shown` is how it is
    quoted (a sentence with its heading as subject, llm/subject.py), `source_text` the
    unit as the chunk holds it, whose place there is the part's span when found whole."""
    span = found_whole(chunk.content, shown if source_text is None else source_text)
    language = None
    if kind == "code" and (unfenced := unfence(shown)) is not None:
        shown, language = unfenced
    return AnswerPart(
        shown,
        PART_KINDS[kind],
        (number,),
        chunk.chunk_id,
        span,
        language,
        continues=continues,
    )


def found_whole(content: str, text: str) -> Span | None:
    """Where `text` is in `content`, word for word (a unit joins a paragraph's wrapped
    lines with spaces, so any run of white space matches one); None when it is not."""
    at = content.find(text)
    if at >= 0:
        return Span(at, at + len(text))
    words = text.split()
    if not words:
        return None
    match = re.search(r"\s+".join(map(re.escape, words)), content)
    return Span(match.start(), match.end()) if match else None
