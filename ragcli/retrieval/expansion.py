"""Query expansion: what a search adds to the question before it ranks.

- HyDE (`retrieval.hyde`): the answer model writes a short passage that would answer the
  question (pipeline/steps.py's `hyde` step); the dense retriever ranks by the question's
  and the passage's embeddings together, the keyword retriever by the question.
- PRF (`retrieval.expand: prf`): pseudo-relevance feedback, offline. A first search's best
  FEEDBACK_CHUNKS chunks are taken as relevant, and the dense query vector moves towards
  their embeddings (Rocchio); the second search ranks by it. The keyword query is left as
  it is: adding the feedback's terms to it (RM3) lowered nDCG@10 on SciFact train
  (docs/retrieval.md).

Whatever ranks, a chunk's `score` stays its cosine with the question itself, the scale
crag's and tos's thresholds are set on (retrieval/retriever.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

FEEDBACK_CHUNKS = 5  # the first search's best chunks taken as relevant
FEEDBACK_DEPTH = 30  # candidates each retriever gives the first (hybrid) search
ROCCHIO_WEIGHT = 0.5  # how far the dense query moves towards the feedback chunks (beta)

EXPANSIONS = ("none", "prf")


@dataclass(frozen=True)
class Hyde:
    """A hypothetical passage and how a search uses it (measured: docs/retrieval.md)."""

    passage: str
    dense: Literal["average", "passage"] = "average"  # with the question's vector, or alone
    keywords: bool = False  # the passage's words join the keyword query too


@dataclass(frozen=True)
class Ranking:
    """What a search ranks by: a vector for the dense retriever, a query for BM25."""

    vector: np.ndarray
    keywords: str


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
