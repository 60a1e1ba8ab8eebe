"""Citations across several answers: each sub-answer cites its own sources as [1], [2] …;
merged, they cite one de-duplicated, globally numbered list."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ragcli.models import RetrievedChunk, SubAnswer

# [3], and the [1, 2] form some models write.
CITATION_GROUP = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
# A run of text followed by its citations: "The port is 7420. [1]" or "... 7420 [1][2]."
# Brackets that are not citations ("the [metrics] section") belong to the text.
CITED_RUN = re.compile(
    r"(?P<body>(?:(?!\[\d+(?:\s*,\s*\d+)*\]).)+?)\s*"
    r"(?P<cites>(?:\[\d+(?:\s*,\s*\d+)*\]\s*)+)",
    re.DOTALL,
)


@dataclass
class MergedSources:
    sources: list[RetrievedChunk]  # de-duplicated by chunk_id, in order of first appearance
    numbering: dict[str, int]  # chunk_id -> its 1-based number in `sources`
    sub_answers: list[SubAnswer]  # answers re-cited with the global numbers
    retrieved: int = 0  # sources before de-duplication
    dropped: list[str] = field(default_factory=list)  # citations that pointed at nothing


def renumber(text: str, mapping: dict[int, int]) -> tuple[str, list[int]]:
    """`text` with each [n] replaced by [mapping[n]]; citations absent from `mapping` are
    removed (they point at no source) and returned."""
    dropped: list[int] = []

    def replace(match: re.Match[str]) -> str:
        numbers = [int(n) for n in re.findall(r"\d+", match.group(1))]
        kept = [mapping[n] for n in numbers if n in mapping]
        dropped.extend(n for n in numbers if n not in mapping)
        return "".join(f"[{n}]" for n in dict.fromkeys(kept))

    renumbered = CITATION_GROUP.sub(replace, text)
    # A removed citation can leave a space before punctuation or a doubled space.
    renumbered = re.sub(r"[ \t]+([.,;:!?])", r"\1", renumbered)
    return re.sub(r"[ \t]{2,}", " ", renumbered).strip(), dropped


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
        answer, bad = renumber(sub.answer, local)
        if bad:
            dropped.append(
                f"sub-answer {index} cites {', '.join(f'[{n}]' for n in bad)}, "
                f"but it has {len(sub.sources)} sources: removed"
            )
        renumbered.append(SubAnswer(question=sub.question, answer=answer, sources=sub.sources))
    return MergedSources(sources, numbering, renumbered, retrieved, dropped)


def cited_runs(text: str) -> list[tuple[str, list[int]]]:
    """Each stretch of text with the citation numbers that follow it; uncited text is
    left out (it is not backed by a source)."""
    runs = []
    for match in CITED_RUN.finditer(text):
        # A model may put the full stop after the citation: "... 7420 [1]. Next ...".
        body = match.group("body").strip().lstrip(".,;:!? ").strip()
        numbers = [int(n) for n in re.findall(r"\d+", match.group("cites"))]
        if body:
            runs.append((body, list(dict.fromkeys(numbers))))
    return runs


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


def cited_first(answer: str, merged: MergedSources) -> tuple[str, MergedSources]:
    """The sources the answer cites, numbered 1..n in the order it first cites them, then
    the rest: an answer never skips a number ([1] [2] [5]). The answer, the sub-answers
    and the numbering follow the new order."""
    order = [
        int(n) for n in dict.fromkeys(re.findall(r"\d+", " ".join(CITATION_GROUP.findall(answer))))
    ]
    order = [n for n in order if 1 <= n <= len(merged.sources)]
    order += [n for n in range(1, len(merged.sources) + 1) if n not in order]
    mapping = {old: new for new, old in enumerate(order, start=1)}
    if all(old == new for old, new in mapping.items()):
        return answer, merged
    sources = [merged.sources[old - 1] for old in order]
    subs = [
        sub.model_copy(update={"answer": renumber(sub.answer, mapping)[0]})
        for sub in merged.sub_answers
    ]
    reordered = MergedSources(
        sources=sources,
        numbering={chunk.chunk_id: n for n, chunk in enumerate(sources, start=1)},
        sub_answers=subs,
        retrieved=merged.retrieved,
        dropped=merged.dropped,
    )
    return renumber(answer, mapping)[0], reordered
