"""The changes since the BM25 matrix was last built, kept beside it instead of rebuilding it.

bm25s cannot update a matrix in place, and rebuilding it for a one-file change took five
minutes at a million chunks. So a small change is saved as a delta, as a search engine's
segments are: the documents added or replaced (their tokens) and the matrix rows they hide.
Delta documents are scored at query time with the matrix's statistics (its document count,
document frequencies and mean length), so their scores compare with the matrix's; the
statistics drift by the delta's share of the collection, which stays small because the
index merges (rebuilds) beyond MERGE_SHARE.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

MERGE_SHARE = 0.05  # a delta above this share of the matrix's rows is merged into it
MERGE_MAX = 20_000  # nor larger than this: a cold process parses the delta on every load


@dataclass(frozen=True)
class Statistics:
    """What BM25 needs of the collection: the matrix's, for every document alike."""

    documents: int
    average_length: float
    k1: float
    b: float
    frequency: Callable[[str], int]  # documents of the matrix holding a term

    def idf(self, term: str) -> float:
        df = self.frequency(term)
        return math.log(1 + (self.documents - df + 0.5) / (df + 0.5))

    def saturation(self, tf: int, length: int) -> float:
        """The Lucene BM25 factor of a term `tf` times in a document of `length` tokens:
        a term's score is its idf times this."""
        return tf / (tf + self.k1 * (1 - self.b + self.b * length / self.average_length))


@dataclass
class Delta:
    added: dict[str, list[str]] = field(default_factory=dict)  # id -> tokens, in add order
    hidden: set[str] = field(default_factory=set)  # matrix ids deleted or replaced since
    _postings: dict[str, list[tuple[str, int]]] | None = None  # term -> (id, frequency)
    _ranks: dict[str, int] | None = None

    def __len__(self) -> int:
        """Documents it touches: added, deleted or replaced (once)."""
        return len(self.hidden | self.added.keys())

    def due(self, matrix_rows: int) -> bool:
        """Whether it is time to merge: rebuild the matrix with the delta in it."""
        return len(self) > min(MERGE_SHARE * matrix_rows, MERGE_MAX)

    def put(self, doc_id: str, tokens: list[str], in_matrix: bool) -> None:
        self.added[doc_id] = tokens
        if in_matrix:
            self.hidden.add(doc_id)
        self._postings = self._ranks = None

    def drop(self, doc_id: str, in_matrix: bool) -> bool:
        """Delete; False when the id was not indexed."""
        found = self.added.pop(doc_id, None) is not None
        if in_matrix and doc_id not in self.hidden:
            self.hidden.add(doc_id)
            found = True
        if found:
            self._postings = self._ranks = None
        return found

    def scores(self, query_terms: list[str], stats: Statistics) -> dict[str, float]:
        """Lucene BM25 of each delta document sharing a term with the query, summed over
        the query's terms as they repeat (as the matrix scores them)."""
        postings = self._index()
        scores: dict[str, float] = {}
        for term in query_terms:
            found = postings.get(term)
            if not found:
                continue
            idf = stats.idf(term)
            for doc_id, tf in found:
                weight = idf * stats.saturation(tf, len(self.added[doc_id]))
                scores[doc_id] = scores.get(doc_id, 0.0) + weight
        return scores

    def _index(self) -> dict[str, list[tuple[str, int]]]:
        if self._postings is None:
            postings: dict[str, list[tuple[str, int]]] = {}
            for doc_id, tokens in self.added.items():
                for term, tf in Counter(tokens).items():
                    postings.setdefault(term, []).append((doc_id, tf))
            self._postings = postings
        return self._postings

    def to_json(self) -> dict:
        return {"added": self.added, "hidden": sorted(self.hidden)}

    @classmethod
    def from_json(cls, data: dict) -> Delta:
        return cls(dict(data.get("added", {})), set(data.get("hidden", [])))

    def rank(self, doc_id: str) -> int:
        """Its place among the added documents, in the order they were added."""
        if self._ranks is None:
            self._ranks = {d: n for n, d in enumerate(self.added)}
        return self._ranks[doc_id]
