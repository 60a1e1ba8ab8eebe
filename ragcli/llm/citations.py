"""Citations across several answers: each sub-answer cites its own sources as [1], [2] …;
merged, they cite one de-duplicated, globally numbered list."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ragcli.answer import Answer
from ragcli.models import RetrievedChunk, SubAnswer
from ragcli.text.citations import format_citations


@dataclass
class MergedSources:
    sources: list[RetrievedChunk]  # de-duplicated by chunk_id, in order of first appearance
    numbering: dict[str, int]  # chunk_id -> its 1-based number in `sources`
    sub_answers: list[SubAnswer]  # answers re-cited with the global numbers
    retrieved: int = 0  # sources before de-duplication
    dropped: list[str] = field(default_factory=list)  # citations that pointed at nothing


def merge_sources(sub_answers: list[SubAnswer]) -> MergedSources:
    """One numbered list of every sub-answer's sources, each chunk once, and the
    sub-answers re-cited against it."""
    sources: list[RetrievedChunk] = []
    numbering: dict[str, int] = {}
    retrieved = 0
    for sub in sub_answers:
        for chunk in sub.sources:
            retrieved += 1
            if chunk.chunk_id not in numbering:
                numbering[chunk.chunk_id] = len(sources) + 1
                sources.append(chunk)
    renumbered: list[SubAnswer] = []
    dropped: list[str] = []
    for index, sub in enumerate(sub_answers, start=1):
        local = {n: numbering[c.chunk_id] for n, c in enumerate(sub.sources, start=1)}
        answer, bad = sub.answer.renumbered(local)
        if bad:
            dropped.append(
                f"sub-answer {index} cites {format_citations(bad)}, "
                f"but it has {len(sub.sources)} sources: removed"
            )
        renumbered.append(SubAnswer(question=sub.question, answer=answer, sources=sub.sources))
    return MergedSources(sources, numbering, renumbered, retrieved, dropped)


def citation_label(chunk: RetrievedChunk) -> str:
    """File (relative to the working directory when under it) and where in it, if known:
    `guide.pdf, page 3`, `deck.pptx, slide 4`, `app.py:12–40`."""
    path = chunk.metadata.source_file
    if "://" not in path:
        try:
            relative = os.path.relpath(path)
            path = path if relative.startswith("..") else relative
        except ValueError:  # another drive on Windows
            pass
    return chunk.metadata.cited(path)


def cited_first(answer: Answer, merged: MergedSources) -> tuple[Answer, MergedSources]:
    """The sources the answer cites, numbered 1..n in the order it first cites them, then
    the rest: an answer never skips a number ([1] [2] [5]). The answer, the sub-answers
    and the numbering follow the new order."""
    order = [n for n in answer.cited() if 1 <= n <= len(merged.sources)]
    order += [n for n in range(1, len(merged.sources) + 1) if n not in order]
    mapping = {old: new for new, old in enumerate(order, start=1)}
    if all(old == new for old, new in mapping.items()):
        return answer, merged
    sources = [merged.sources[old - 1] for old in order]
    subs = [
        sub.model_copy(update={"answer": sub.answer.renumbered(mapping)[0]})
        for sub in merged.sub_answers
    ]
    reordered = MergedSources(
        sources=sources,
        numbering={chunk.chunk_id: n for n, chunk in enumerate(sources, start=1)},
        sub_answers=subs,
        retrieved=merged.retrieved,
        dropped=merged.dropped,
    )
    return answer.renumbered(mapping)[0], reordered
