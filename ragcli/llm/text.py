"""Small text helpers shared by the backends: sentences, content terms, citations."""

from __future__ import annotations

import re
from functools import lru_cache

from ragcli.words import STOPWORDS

WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'_-]*")
CITATION = re.compile(r"\s*\[(\d+)\]")


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
