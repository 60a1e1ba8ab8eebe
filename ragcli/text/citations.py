"""The one citation pattern: `[3]`, and the `[1, 2]` some models write. Everything that
reads a source number out of text, or writes one into it, goes through here."""

from __future__ import annotations

import re
from collections.abc import Iterable

# A group of source numbers in brackets; brackets that hold anything else ("the [metrics]
# section", a Markdown link) are no citation.
CITATION = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
# Citations in a row, with the space before them: what follows a cited sentence.
CITATIONS_RUN = re.compile(r"(?:\s*" + CITATION.pattern + r")+")


def numbers_in(group: str) -> list[int]:
    """The numbers of one citation's inside ("1, 2" -> [1, 2])."""
    return [int(n) for n in re.findall(r"\d+", group)]


def cited_numbers(text: str) -> list[int]:
    """Every source number `text` cites, each once, in order of first citation."""
    return list(dict.fromkeys(n for m in CITATION.finditer(text) for n in numbers_in(m[1])))


def strip_citations(text: str) -> str:
    """`text` without its citations (and the space before each), stripped."""
    return re.sub(r"\s*" + CITATION.pattern, "", text).strip()


def format_citations(numbers: Iterable[int]) -> str:
    """`[1][2]`: each number once, in the order given."""
    return "".join(f"[{n}]" for n in dict.fromkeys(numbers))


def renumber(text: str, mapping: dict[int, int]) -> tuple[str, list[int]]:
    """`text` with each [n] replaced by [mapping[n]]; citations absent from `mapping` are
    removed (they point at no source) and returned."""
    dropped: list[int] = []

    def replace(match: re.Match[str]) -> str:
        numbers = numbers_in(match.group(1))
        dropped.extend(n for n in numbers if n not in mapping)
        return format_citations(mapping[n] for n in numbers if n in mapping)

    renumbered = CITATION.sub(replace, text)
    # A removed citation can leave a space before punctuation or a doubled space.
    renumbered = re.sub(r"[ \t]+([.,;:!?])", r"\1", renumbered)
    return re.sub(r"[ \t]{2,}", " ", renumbered).strip(), dropped
