"""Query expansion: what a search adds to the question before it ranks.

- HyDE (`retrieval.hyde`): the answer model writes a short passage that would answer the
  question (pipeline/steps.py's `hyde` step); the dense retriever ranks by the question's
  and the passage's embeddings together, the keyword retriever by the question.
- PRF (`retrieval.expand: prf`): pseudo-relevance feedback, offline. A first search's best
  FEEDBACK_CHUNKS chunks are taken as relevant: the keyword query gains their most
  telling terms, weighted as RM3 weighs them (a relevance model of the feedback chunks
  mixed with the question's terms), and the dense query moves towards their embeddings
  (Rocchio). The second search ranks by both.

Whatever ranks, a chunk's `score` stays its cosine with the question itself, the scale
crag's and tos's thresholds are set on (retrieval/retriever.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np

FEEDBACK_CHUNKS = 3  # the first search's best chunks taken as relevant
FEEDBACK_DEPTH = 30  # candidates each retriever gives the first (hybrid) search
EXPANSION_TERMS = 10  # terms the feedback adds at most
QUESTION_WEIGHT = 0.5  # RM3's share of the question's own terms (lambda)
ROCCHIO_WEIGHT = 0.5  # how far the dense query moves towards the feedback chunks (beta)
# A feedback term found in more than this share of the collection's chunks says nothing.
MAX_TERM_SHARE = 0.1

EXPANSIONS = ("none", "prf")


@dataclass(frozen=True)
class Hyde:
    """A hypothetical passage and how a search uses it (measured: docs/retrieval.md)."""

    passage: str
    dense: Literal["average", "passage"] = "average"  # with the question's vector, or alone
    keywords: bool = False  # the passage's words join the keyword query too


@dataclass(frozen=True)
class Ranking:
    """What a search ranks by: a vector for the dense retriever, a query for BM25 (text,
    or index terms with weights)."""

    vector: np.ndarray
    keywords: str | Mapping[str, float]


def unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector


def with_passage(question: str, vector: np.ndarray, passage_vector: np.ndarray, hyde: Hyde):
    """The ranking HyDE gives a question: its vector with the passage's (their mean, as
    the HyDE paper averages the question with its generated documents), or the passage's
    alone; its keywords with the passage's words when `hyde.keywords`."""
    if hyde.dense == "passage":
        ranked = unit(passage_vector)
    else:
        ranked = unit(unit(vector) + unit(passage_vector))
    keywords = f"{question}\n{hyde.passage}" if hyde.keywords else question
    return Ranking(ranked.astype(np.float32), keywords)


def rocchio(vector: np.ndarray, feedback: list[np.ndarray]) -> np.ndarray:
    """The query vector moved towards the mean of the feedback chunks' vectors."""
    if not feedback:
        return vector
    centre = np.mean([unit(v) for v in feedback], axis=0)
    return unit(unit(vector) + ROCCHIO_WEIGHT * centre).astype(np.float32)


def rm3(
    question_terms: list[str],
    tokens: Mapping[str, list[str]],
    weights: Mapping[str, float],
    idf: Mapping[str, float],
    documents: int,
    stop_terms: frozenset[str] = frozenset(),
) -> dict[str, float]:
    """Weighted index terms: the question's (QUESTION_WEIGHT each) plus the feedback's
    relevance model, sum over chunks d of weight(d) * tf(t, d) / |d|, over its
    EXPANSION_TERMS best terms, scaled so the two parts weigh as lambda and 1 - lambda.
    Terms in more than MAX_TERM_SHARE of the chunks, and `stop_terms`, are never added."""
    distinct = list(dict.fromkeys(question_terms))
    if not distinct:
        return {}
    total_weight = sum(weights.get(i, 0.0) for i in tokens) or 1.0
    model: dict[str, float] = {}
    for chunk_id, found in tokens.items():
        if not found:
            continue
        share = weights.get(chunk_id, 0.0) / total_weight
        for term, count in Counter(found).items():
            model[term] = model.get(term, 0.0) + share * count / len(found)
    floor = _idf_at_share(documents, MAX_TERM_SHARE)
    ranked = [
        (term, p)
        for term, p in sorted(model.items(), key=lambda item: (-item[1], item[0]))
        if term not in stop_terms and idf.get(term, 0.0) > floor and not term.isdigit()
    ][:EXPANSION_TERMS]
    mass = sum(p for _, p in ranked) or 1.0
    expanded = dict.fromkeys(distinct, QUESTION_WEIGHT)
    for term, p in ranked:
        expanded[term] = expanded.get(term, 0.0) + (1 - QUESTION_WEIGHT) * len(distinct) * p / mass
    return expanded


def _idf_at_share(documents: int, share: float) -> float:
    """The Lucene idf of a term found in `share` of `documents`."""
    df = max(1.0, documents * share)
    return float(np.log(1 + (documents - df + 0.5) / (df + 0.5)))
