"""Small text helpers shared by the backends: sentences, content terms, citations."""

from __future__ import annotations

import re
from functools import lru_cache

WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'_-]*")
CITATION = re.compile(r"\s*\[(\d+)\]")

# Function words and question words: they say nothing about what a text is about.
STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing done down during each
    either else ever few for from further get gets got had has have having he her here hers
    him his how i if in into is it its itself just may me might more most much must my no nor
    not now of off on once only or other our ours out over own per please same shall she should
    so some such than that the their theirs them then there these they this those through to
    too under until up upon us use used using very was we were what when where which while who
    whom whose why will with within without would you your yours tell know want need like""".split()
)


def sentences(text: str) -> list[str]:
    """Sentences, list items, code blocks and headings (segment.py): a hard-wrapped
    sentence is one sentence, not one per line."""
    from ragcli.llm.segment import sentence_texts

    return sentence_texts(text)


@lru_cache(maxsize=1)
def _stemmer():
    import Stemmer

    return Stemmer.Stemmer("english")


def terms(text: str) -> list[str]:
    """Stemmed content words, in order."""
    words = [w.lower() for w in WORD.findall(text)]
    content = [w for w in words if w not in STOPWORDS and (len(w) > 1 or w.isdigit())]
    return _stemmer().stemWords(content)


def stems(text: str) -> list[str]:
    """Stemmed words, in order, stopwords kept (a name's "of" and "IT" are part of it)."""
    return _stemmer().stemWords([w.lower() for w in WORD.findall(text)])


def term_coverage(query_terms: set[str], text_terms: set[str]) -> float:
    """Share of the query's content terms that the text contains."""
    if not query_terms:
        return 0.0
    return len(query_terms & text_terms) / len(query_terms)


def strip_citations(text: str) -> str:
    return CITATION.sub("", text).strip()


def cited_numbers(text: str) -> list[str]:
    seen: list[str] = []
    for number in CITATION.findall(text):
        if number not in seen:
            seen.append(number)
    return seen


def normalise(text: str) -> str:
    return " ".join(WORD.findall(text.lower()))
