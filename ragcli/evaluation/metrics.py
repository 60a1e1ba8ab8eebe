"""Ranking metrics, matching trec_eval / pytrec_eval (what BEIR reports).

A run is a ranked list of doc ids, best first; qrels map doc id -> graded relevance, where
only grades > 0 count as relevant. Repeated ids in a run count once, at their first rank.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

Qrels = dict[str, dict[str, int]]  # query id -> doc id -> grade
Run = dict[str, list[str]]  # query id -> ranked doc ids
MetricFn = Callable[[list[str], dict[str, int], int], float]


def ndcg_at_k(ranked: list[str], qrels: dict[str, int], k: int) -> float:
    """nDCG@k with linear gain (grade) and 1/log2(rank + 1) discount, as trec_eval's ndcg_cut.

    The ideal ranking is all judged documents sorted by grade, cut at k. 0.0 if none relevant.
    """
    ideal = sorted((g for g in qrels.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    if idcg == 0:
        return 0.0
    dcg = sum(
        max(qrels.get(doc_id, 0), 0) / math.log2(i + 2) for i, doc_id in enumerate(_top(ranked, k))
    )
    return dcg / idcg


def recall_at_k(ranked: list[str], qrels: dict[str, int], k: int) -> float:
    """Share of the relevant documents found in the top k. 0.0 if none relevant."""
    relevant = {d for d, g in qrels.items() if g > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(_top(ranked, k))) / len(relevant)


def mrr_at_k(ranked: list[str], qrels: dict[str, int], k: int) -> float:
    """1 / rank of the first relevant document within the top k, else 0.0."""
    for i, doc_id in enumerate(_top(ranked, k), start=1):
        if qrels.get(doc_id, 0) > 0:
            return 1.0 / i
    return 0.0


_METRICS: dict[str, MetricFn] = {"nDCG": ndcg_at_k, "Recall": recall_at_k, "MRR": mrr_at_k}


def evaluate(
    run: Run,
    qrels: Qrels,
    metrics: Iterable[str] = ("nDCG@10", "Recall@10", "Recall@100", "MRR@10"),
) -> dict[str, float]:
    """Mean of each metric ("nDCG@10", "Recall@100", "MRR@10", ...) over the queries in qrels.

    A judged query missing from the run scores 0, so a retriever cannot gain by skipping.
    """
    parsed = [_parse_metric(m) for m in metrics]
    if not qrels:
        raise ValueError("qrels are empty: nothing to evaluate")
    totals = dict.fromkeys(metrics, 0.0)
    for qid, judged in qrels.items():
        ranked = run.get(qid, [])
        for name, (fn, k) in zip(totals, parsed, strict=True):
            totals[name] += fn(ranked, judged, k)
    return {name: total / len(qrels) for name, total in totals.items()}


def _parse_metric(metric: str) -> tuple[MetricFn, int]:
    name, sep, k = metric.partition("@")
    if name not in _METRICS or not sep or not k.isdigit() or int(k) < 1:
        raise ValueError(f"unknown metric {metric!r}; use e.g. nDCG@10, Recall@100, MRR@10")
    return _METRICS[name], int(k)


def _top(ranked: list[str], k: int) -> list[str]:
    return list(dict.fromkeys(ranked))[:k]
