"""Which languages the embedder covers, and what a run says when a query is in another.

The bundled all-MiniLM-L6-v2 was trained on English: outside Latin scripts its cosines are
near chance, and fusing them at the English weight ranked below BM25 alone. A served model
covers what `embedding.languages` says (unset: English, the safe reading of a model ragcli
knows nothing of; "*": every language). A query in a language outside them is fused with
`retrieval.uncovered_dense_weight`, fitted on folds (docs/retrieval.md, "Languages").
"""

from __future__ import annotations

from collections.abc import Collection

from ragcli.config import EmbeddingSettings

BUNDLED_LANGUAGES = frozenset({"en"})
ANY_LANGUAGE = "*"


def embedder_languages(settings: EmbeddingSettings) -> frozenset[str] | None:
    """The languages the configured embedder covers; None: every language."""
    if settings.languages is None:
        return BUNDLED_LANGUAGES
    if ANY_LANGUAGE in settings.languages:
        return None
    return frozenset(code.lower() for code in settings.languages)


def covers(languages: Collection[str] | None, language: str) -> bool:
    """Whether an embedder covering `languages` covers `language` ("": not known, so it
    is taken as covered and nothing changes)."""
    return languages is None or not language or language in languages


def language_name(code: str) -> str:
    """`German (de)`: a code as people read it (lingua's name for it)."""
    from lingua import IsoCode639_1, Language

    try:
        language = Language.from_iso_code_639_1(getattr(IsoCode639_1, code.upper()))
    except (AttributeError, ValueError):
        return code
    return f"{language.name.title()} ({code})"


def uncovered_note(model: str, codes: Collection[str]) -> str:
    """What `ask` and `search` say once when a query's language is not the embedder's."""
    names = ", ".join(language_name(code) for code in sorted(codes))
    return (
        f"the embedding model {model} does not cover {names}: ranked mostly by keywords "
        "(BM25). For a multilingual model, serve one (e.g. multilingual-e5-base or bge-m3 "
        "through Infinity, TEI or vLLM) and set embedding.provider openai, embedding.url, "
        "embedding.model, embedding.languages and the prefixes it needs "
        "(E5: embedding.query_prefix 'query: ', embedding.passage_prefix 'passage: '), "
        'then ingest again; docs/retrieval.md, "Languages"'
    )
