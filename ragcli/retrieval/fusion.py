"""Combining ranked lists from several retrievers (e.g. "dense" and "bm25").

Pure functions over retriever name -> results. Ties are broken by first appearance, taking
the retrievers in the order given, so output is deterministic.

Weighted fusion of min-max-normalised scores is the default: on SciFact it beats
reciprocal-rank fusion at every k tried (the figures: docs/retrieval.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_RRF_K = 1  # for direct callers; the retriever passes retrieval.rrf_k


def reciprocal_rank_fusion(
    rankings: dict[str, list[str]],
    k: int = DEFAULT_RRF_K,
    weights: dict[str, float] | None = None,
) -> list[tuple[str, float]]:
    """score(d) = sum over retrievers r of weights[r] / (k + rank_r(d)), ranks from 1.

    A retriever that did not return d contributes nothing. Without weights every retriever
    counts 1.0; with weights, every retriever must have one.
    """
    if k < 0:
        raise ValueError(f"RRF k must be >= 0, got {k}")
    fused: dict[str, float] = {}
    for name, ranking in rankings.items():
        w = _weight(weights, name)
        for rank, doc_id in enumerate(_dedupe(ranking), start=1):
            fused[doc_id] = fused.get(doc_id, 0.0) + w / (k + rank)
    return _sorted(fused)


def weighted_score_fusion(
    scores: dict[str, dict[str, float]], weights: dict[str, float] | None = None
) -> list[tuple[str, float]]:
    """score(d) = sum over r of weights[r] * minmax_r(d); a doc r did not return counts 0.

    Min-max runs over each retriever's own result list, so its best hit scores 1 and its worst
    0 -- raw BM25 and cosine scores live on unrelated scales. A retriever whose hits all score
    the same gives them all 1. Without weights, each retriever weighs 1/len(scores), so
    fused scores stay in [0, 1]. (The retriever first gives every candidate a score from
    both retrievers, so the "counts 0" case is then only a chunk deleted meanwhile.)
    """
    if weights is None:
        weights = dict.fromkeys(scores, 1 / len(scores)) if scores else {}
    fused: dict[str, float] = {}
    for name, by_id in scores.items():
        w = _weight(weights, name)
        for doc_id, norm in min_max_normalise(by_id).items():
            fused[doc_id] = fused.get(doc_id, 0.0) + w * norm
    return _sorted(fused)


def min_max_normalise(scores: dict[str, float]) -> dict[str, float]:
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi == lo:
        return dict.fromkeys(scores, 1.0)
    return {doc_id: (s - lo) / (hi - lo) for doc_id, s in scores.items()}


@dataclass(frozen=True)
class FusedHit:
    """A fused result plus what each retriever said about it, for display."""

    id: str
    score: float
    scores: dict[str, float] = field(default_factory=dict)  # raw score per retriever that hit
    ranks: dict[str, int] = field(default_factory=dict)  # 1-based rank per retriever that hit


def with_components(
    fused: list[tuple[str, float]], scores: dict[str, dict[str, float]]
) -> list[FusedHit]:
    """Attach each retriever's raw score and rank to the fused list (order kept).

    Ranks are by descending raw score, ties in the order the retriever returned them.
    """
    ranks = {
        name: {
            doc_id: i
            for i, doc_id in enumerate(sorted(by_id, key=by_id.__getitem__, reverse=True), 1)
        }
        for name, by_id in scores.items()
    }
    return [
        FusedHit(
            id=doc_id,
            score=score,
            scores={name: by_id[doc_id] for name, by_id in scores.items() if doc_id in by_id},
            ranks={name: r[doc_id] for name, r in ranks.items() if doc_id in r},
        )
        for doc_id, score in fused
    ]


def _weight(weights: dict[str, float] | None, name: str) -> float:
    if weights is None:
        return 1.0
    if name not in weights:
        raise ValueError(f"no fusion weight for retriever {name!r} (have {sorted(weights)})")
    return weights[name]


def _dedupe(ids: list[str]) -> list[str]:
    # A repeated id keeps its best (first) rank rather than being counted twice.
    return list(dict.fromkeys(ids))


def _sorted(fused: dict[str, float]) -> list[tuple[str, float]]:
    # sorted() is stable, so equal scores keep first-appearance order.
    return sorted(fused.items(), key=lambda item: item[1], reverse=True)
