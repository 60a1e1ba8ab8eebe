"""The evidence the offline backend's relevance is calibrated on: the embedding model's
cosine and the collection's lexical statistics, turned into a probability by the
calibration (ragcli/llm/calibration.py). Vectors are kept for the backend's lifetime."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any

import numpy as np

from ragcli.embedding.embedder import Embedder
from ragcli.llm.calibration import Calibration
from ragcli.llm.text import WORD, sentences, term_coverage
from ragcli.terms import terms


class Evidence:
    def __init__(
        self,
        embedder: Embedder,
        calibration: Calibration,
        term_stats: Callable[[], Any] | None = None,
    ):
        self.embedder = embedder
        self.calibration = calibration
        # Supplies the collection's BM25 index (the retriever's, repaired when it lags).
        self._term_stats_source = term_stats
        self._cache: dict[str, np.ndarray] = {}
        self._idf: dict[str, dict[str, float]] = {}

    @cached_property
    def term_stats(self) -> Any:
        """The collection's BM25 index, whose statistics weight query terms by rarity; None
        when there is none (every term then weighs the same)."""
        return self._term_stats_source() if self._term_stats_source is not None else None

    def vectors(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            for text, vector in zip(missing, self.embedder.embed(missing), strict=True):
                self._cache[text] = vector
        if not texts:
            return np.zeros((0, 1), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts])

    def features(self, query: str, text: str) -> tuple[float, float, float]:
        """The evidence relevance is calibrated on (see ragcli/llm/calibration.py): the best
        cosine between the query and the text or one of its sentences, the idf-weighted
        share of query terms the text contains, and the text's BM25 score."""
        query_vector = self.vectors([query])[0]
        parts = [s for s in sentences(text) if len(WORD.findall(s)) >= 3] or [text]
        similarity = float(np.max(self.vectors(parts + [text]) @ query_vector))
        return (similarity, *self.lexical(query, text))

    def lexical(self, query: str, text: str) -> tuple[float, float]:
        """idf-weighted query term coverage and BM25, under the collection's statistics;
        without a BM25 index, plain coverage and no BM25 evidence."""
        stats = self.term_stats
        if stats is None:
            return term_coverage(set(terms(query)), set(terms(text))), 0.0
        if query not in self._idf:
            self._idf[query] = stats.term_idf(query)
        idf, text_terms = self._idf[query], stats.terms(text)
        total = sum(idf.values())
        if not total:
            return 0.0, 0.0
        covered = sum(weight for term, weight in idf.items() if term in text_terms)
        return covered / total, stats.score_text(query, text)

    def relevances(self, query: str, texts: list[str]) -> list[float]:
        """Calibrated probabilities that each of `texts` answers `query`."""
        return [self.calibration.probability(*self.features(query, text)) for text in texts]
