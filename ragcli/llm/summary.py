"""The offline backend's answer over whole documents: an extractive summary. No model
reads the documents, so the sentences it quotes are chosen for coverage: the best sentence
of each section first (sections in the order of their weight), then more where the budget
allows, none repeating what a chosen one says. A sentence's weight is how many of the
document's frequent terms it holds (Luhn's measure), a section's first sentence counts a
little more (a section opens with what it is about), and words the question adds beyond
"summarise the X" (its focus: "… about annual plans") count most.

Every sentence is quoted as it stands in its section and cites that section."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from ragcli.llm.segment import units
from ragcli.terms import terms
from ragcli.text.lead_ins import LEAD_IN_END

# Words a request for a summary or comparison is made of: not what it is about.
REQUEST_WORDS = frozenset(
    terms(
        "summarise summarize summary summaries overview outline gist tldr recap key points "
        "main points give tell me please brief short document documents file files page "
        "compare comparison contrast difference differences between these those both "
        "describe explain say says said"
    )
)
MIN_WORDS = 4  # a shorter unit is a label, not a sentence worth quoting
LEAD_BONUS = 0.25  # a section's first sentence: this share of the best score more
FOCUS_WEIGHT = 1.0  # the question's own focus: this share of the best score per term share
REDUNDANT = 0.6  # a sentence sharing this share of its terms with a chosen one is skipped
_SPACES = re.compile(r"\s+")
_LIST_MARKER = re.compile(r"^(?:[-*+]|\d+[.)])\s+")


@dataclass(frozen=True)
class SectionText:
    """A section as the summary reads it: its source number in the run, its document
    (path) and heading, and its text."""

    number: int
    document: str
    heading: str | None
    text: str


@dataclass(frozen=True)
class Pick:
    """A quoted sentence and the section it cites."""

    number: int  # the section's source number
    order: int  # its place in the document: sections in order, units in order
    text: str
    kind: str  # "sentence" or "list_item"


@dataclass
class _Candidate:
    number: int
    order: int
    text: str
    kind: str
    terms: frozenset[str]
    score: float = 0.0


def summarise(
    question: str, sections: list[SectionText], budget: int, name_words: set[str] | None = None
) -> list[Pick]:
    """At most `budget` sentences over `sections` (one document's, or several's), in the
    documents' order. `name_words`: the documents' own name terms, which a question
    naming them does not focus on."""
    candidates = _candidates(sections)
    if not candidates:
        return []
    focus = set(terms(question)) - REQUEST_WORDS - (name_words or set())
    _score(candidates, focus)
    by_section: dict[int, list[_Candidate]] = {}
    for candidate in candidates:
        by_section.setdefault(candidate.number, []).append(candidate)
    for found in by_section.values():
        found.sort(key=lambda c: -c.score)
    chosen: list[_Candidate] = []
    # First the best sentence of each section, the weightiest sections first.
    for number in sorted(by_section, key=lambda n: -by_section[n][0].score):
        if len(chosen) >= budget:
            break
        best = by_section[number][0]
        if not _repeats(best, chosen):
            chosen.append(best)
    # Then the best of the rest, while the budget lasts.
    rest = sorted((c for c in candidates if c not in chosen), key=lambda c: -c.score)
    for candidate in rest:
        if len(chosen) >= budget:
            break
        if not _repeats(candidate, chosen):
            chosen.append(candidate)
    chosen.sort(key=lambda c: c.order)
    return [Pick(c.number, c.order, c.text, c.kind) for c in chosen]


def _candidates(sections: list[SectionText]) -> list[_Candidate]:
    found: list[_Candidate] = []
    for section in sections:
        for unit in units(section.text):
            if unit.kind not in ("sentence", "item"):
                continue
            text = _LIST_MARKER.sub("", _SPACES.sub(" ", unit.text).strip())
            words = set(terms(text))
            if len(text.split()) < MIN_WORDS or not words or LEAD_IN_END.search(text):
                continue  # a label, or a lead-in whose code or list is not quoted
            kind = "list_item" if unit.kind == "item" else "sentence"
            found.append(_Candidate(section.number, len(found), text, kind, frozenset(words)))
    return found


def _score(candidates: list[_Candidate], focus: set[str]) -> None:
    frequency = Counter(term for c in candidates for term in c.terms)
    top = max(frequency.values())
    weight = {term: count / top for term, count in frequency.items() if count > 1}
    firsts: dict[int, _Candidate] = {}
    for candidate in candidates:
        firsts.setdefault(candidate.number, candidate)
    for candidate in candidates:
        held = sum(weight.get(term, 0.0) for term in candidate.terms)
        candidate.score = held / math.sqrt(len(candidate.terms))
    best = max(c.score for c in candidates) or 1.0
    for candidate in candidates:
        if firsts[candidate.number] is candidate:
            candidate.score += LEAD_BONUS * best
        if focus:
            share = len(focus & candidate.terms) / len(focus)
            candidate.score += FOCUS_WEIGHT * best * share


def _repeats(candidate: _Candidate, chosen: list[_Candidate]) -> bool:
    return any(
        len(candidate.terms & other.terms) / len(candidate.terms) >= REDUNDANT for other in chosen
    )
