"""A split's queries in folds: how much a retrieval figure moves with the queries asked.

A change tuned on one split can rise there and fall on held-out queries (issue 40: SciFact
train rose while test fell). `ragcli eval --folds K` shows each metric's spread over K
folds of the judged queries, and scripts/fusion_folds.py fits a setting on K-1 folds and
scores it on the one left out."""

from __future__ import annotations

import random
import statistics
from typing import Any

from ragcli.errors import ConfigError
from ragcli.evaluation.metrics import Qrels, Run, evaluate

FOLD_METRICS = ("nDCG@10", "Recall@10")


def folds_of(query_ids: list[str], k: int, seed: int = 0) -> list[list[str]]:
    """`k` disjoint folds of about equal size, the same for the same ids and seed."""
    if k < 2 or k > len(query_ids):
        raise ConfigError(f"--folds {k}: choose from 2 to the {len(query_ids)} judged queries")
    shuffled = sorted(query_ids)
    random.Random(seed).shuffle(shuffled)
    return [shuffled[i::k] for i in range(k)]


def fold_summary(run: Run, qrels: Qrels, k: int, seed: int = 0) -> dict[str, Any]:
    """Each metric on each fold, with their mean and the spread (max - min)."""
    per_fold = [
        evaluate(run, {q: qrels[q] for q in fold}, FOLD_METRICS)
        for fold in folds_of(list(qrels), k, seed)
    ]
    summary: dict[str, Any] = {}
    for metric in FOLD_METRICS:
        values = [scores[metric] for scores in per_fold]
        summary[metric] = {
            "mean": statistics.fmean(values),
            "spread": max(values) - min(values),
            "folds": values,
        }
    return summary
