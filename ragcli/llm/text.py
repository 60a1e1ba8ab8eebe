"""Small text helpers shared by the backends: a chunk's sentences, term coverage. A text's
terms are ragcli/terms.py's, the BM25 index's tokenizer; citations are ragcli/text's."""

from __future__ import annotations

from ragcli.terms import WORD


def sentences(text: str) -> list[str]:
    """Sentences, list items, code blocks and headings (segment.py): a hard-wrapped
    sentence is one sentence, not one per line."""
    from ragcli.llm.segment import sentence_texts

    return sentence_texts(text)


def term_coverage(query_terms: set[str], text_terms: set[str]) -> float:
    """Share of the query's content terms that the text contains."""
    if not query_terms:
        return 0.0
    return len(query_terms & text_terms) / len(query_terms)


def normalise(text: str) -> str:
    return " ".join(WORD.findall(text.lower()))
