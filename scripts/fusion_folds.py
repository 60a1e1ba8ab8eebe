"""Hybrid fusion checked on folds of a BEIR split: is `retrieval.dense_weight` still the
weight that ranks best on queries it was not fitted on?

    .venv/bin/python scripts/fusion_folds.py --store /tmp/scifact-store
    .venv/bin/python scripts/fusion_folds.py --store /tmp/scifact-store --json

It ingests the dataset as `ragcli eval` does (the same collection, so a store that eval
filled is reused), records each query's dense and BM25 candidate scores once (cached in
the store folder), then for each of --folds folds fits the weight on the other folds and
scores it on this one. Printed: nDCG@10 per fold of the configured weight and of the
fitted one, their means and spreads (max - min over folds), and the weight each fold
chose. A retrieval change is kept when its held-out folds do not get worse
(docs/development.md, "Changing retrieval").
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from ragcli.evaluation.folds import folds_of  # noqa: E402
from ragcli.evaluation.metrics import evaluate  # noqa: E402
from ragcli.retrieval.fusion import weighted_score_fusion  # noqa: E402

WEIGHTS = [round(0.3 + 0.05 * i, 2) for i in range(11)]  # 0.30 … 0.80
METRIC = "nDCG@10"
Scores = dict[str, dict[str, dict[str, float]]]  # query id -> retriever -> chunk id -> score


def candidate_scores(store: Path, data: Path, split: str) -> tuple[Scores, dict, dict]:
    """Every judged query's candidates, the chunk -> document map and the qrels."""
    from ragcli import service
    from ragcli.config import load_settings
    from ragcli.evaluation.beir import load_beir
    from ragcli.evaluation.corpus import doc_id_of, ingest_corpus
    from ragcli.evaluation.runner import default_collection
    from ragcli.retrieval.retriever import Retriever

    settings = load_settings(None, {"store.path": str(store)}, environ={})
    dataset = load_beir(data, split)
    collection = default_collection(data)
    cache = store / f"fusion-candidates-{collection}-{split}.json"
    if cache.is_file():
        cached = json.loads(cache.read_text())
        return cached["scores"], cached["documents"], dataset.qrels
    ingestor = service.ingestor(settings)
    ingest_corpus(ingestor, dataset.corpus, collection)
    retriever = Retriever(
        ingestor.store, ingestor.embedder, collection, ingestor.lexical, options=settings.retrieval
    )
    index = ingestor.lexical.searchable(collection, ingestor.store)
    depth = settings.retrieval.candidates
    scores: Scores = {}
    for n, (qid, text) in enumerate(dataset.queries.items(), start=1):
        vector = ingestor.embedder.embed([text])[0]
        dense, bm25 = retriever.candidate_scores(collection, text, vector, depth, index)
        scores[qid] = {"dense": dense, "bm25": bm25}
        if n % 100 == 0:
            print(f"… {n}/{len(dataset.queries)} queries", file=sys.stderr)
    chunk_ids = {cid for by in scores.values() for s in by.values() for cid in s}
    got = ingestor.store.collection(collection).get(ids=sorted(chunk_ids), include=["metadatas"])
    documents = {
        cid: doc_id_of(meta["source_file"])
        for cid, meta in zip(got["ids"], got["metadatas"], strict=True)
    }
    cache.write_text(json.dumps({"scores": scores, "documents": documents}))
    return scores, documents, dataset.qrels


def ranking(by: dict[str, dict[str, float]], documents: dict, weight: float) -> list[str]:
    fused = weighted_score_fusion(by, {"dense": weight, "bm25": 1.0 - weight})
    return list(dict.fromkeys(documents[cid] for cid, _ in fused if cid in documents))[:100]


def score(scores: Scores, documents: dict, qrels: dict, queries: list[str], weight: float):
    run = {qid: ranking(scores[qid], documents, weight) for qid in queries}
    return evaluate(run, {q: qrels[q] for q in queries}, (METRIC,))[METRIC]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared/eval/scifact")
    parser.add_argument("--split", default="train")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from ragcli.config import RetrievalSettings

    configured = RetrievalSettings().dense_weight
    scores, documents, qrels = candidate_scores(args.store, args.data, args.split)
    queries = [q for q in qrels if q in scores]
    # Every query's nDCG at every weight once; a fold's mean is then a sum.
    per_query = {
        w: {q: score(scores, documents, qrels, [q], w) for q in queries} for w in WEIGHTS
    }

    def mean(weight: float, subset: list[str]) -> float:
        return statistics.fmean(per_query[weight][q] for q in subset)

    rows = []
    for n, fold in enumerate(folds_of(queries, args.folds, args.seed), start=1):
        rest = [q for q in queries if q not in set(fold)]
        chosen = max(WEIGHTS, key=lambda w: (round(mean(w, rest), 4), -abs(w - configured)))
        rows.append(
            {"fold": n, "queries": len(fold), "chosen_weight": chosen,
             "configured": round(mean(configured, fold), 4),
             "fitted": round(mean(chosen, fold), 4)}
        )
    summary = {
        "configured_weight": configured,
        "all_queries": {str(w): round(mean(w, queries), 4) for w in WEIGHTS},
        "folds": rows,
    }
    for key in ("configured", "fitted"):
        values = [row[key] for row in rows]
        summary[key] = {"mean": round(statistics.fmean(values), 4),
                        "spread": round(max(values) - min(values), 4)}
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"{METRIC} on {len(queries)} {args.split} queries, all of them, by dense weight:")
    print("  " + "  ".join(f"{w}: {v}" for w, v in summary["all_queries"].items()))
    print(f"{args.folds} folds: configured weight {configured} against the weight fitted on "
          "the other folds")
    for row in rows:
        print(f"  fold {row['fold']} ({row['queries']} queries): configured "
              f"{row['configured']:.4f}, fitted {row['fitted']:.4f} (weight "
              f"{row['chosen_weight']})")
    for key in ("configured", "fitted"):
        print(f"  {key}: mean {summary[key]['mean']:.4f}, spread {summary[key]['spread']:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
