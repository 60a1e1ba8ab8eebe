#!/usr/bin/env python
"""HyDE on a BEIR collection already in a store (SciFact train by default): how each way of
combining the model's passage with the question ranks, against no expansion and PRF.

A model behind the OpenAI protocol (`--set llm.base_url=... --set llm.model=...`, e.g. the
llama.cpp server of the tests) writes one passage per query, once: they are kept in
`--passages FILE` and reused, so the variants differ only in how the passage is used:
- average:           dense ranks by the mean of the question's and the passage's vectors
- passage:           dense ranks by the passage's vector alone
- average+keywords:  as average, and BM25 searches the question with the passage
Each is scored with nDCG@10 and Recall@10 over `--queries` queries (the first by id) and
their spread over 5 folds; the store is only read.

    .venv/bin/python scripts/hyde_benchmark.py --store /tmp/sf/store --queries 100 \\
        --set llm.base_url=http://127.0.0.1:8080/v1 --set llm.model=smollm2 \\
        --passages /tmp/hyde-passages.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DATA = ROOT.parent / "shared" / "eval" / "scifact"
VARIANTS = {
    "none": None,
    "prf": None,
    "average": {"dense": "average", "keywords": False},
    "passage": {"dense": "passage", "keywords": False},
    "average+keywords": {"dense": "average", "keywords": True},
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--split", default="train")
    parser.add_argument("--collection", default=None)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--passages", type=Path, required=True, help="passages cache (JSON)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from ragcli import wiring
    from ragcli.config import load_settings
    from ragcli.evaluation.beir import load_qrels, load_queries
    from ragcli.evaluation.folds import fold_summary
    from ragcli.evaluation.metrics import evaluate
    from ragcli.evaluation.runner import (
        CHUNKS_PER_DOC,
        RANK_DEPTH,
        default_collection,
        rank_documents,
    )
    from ragcli.llm import make_llm
    from ragcli.overrides import parse_assignments
    from ragcli.retrieval.expansion import Hyde
    from ragcli.retrieval.retriever import Retriever
    from ragcli.trace.recorder import Trace

    settings = load_settings(
        None, {"store.path": str(args.store)} | parse_assignments(args.set), environ={}
    )
    qrels_all = load_qrels(args.data / "qrels" / f"{args.split}.tsv")
    texts = load_queries(args.data / "queries.jsonl")
    chosen = sorted(qrels_all, key=lambda q: (len(q), q))[: args.queries]
    qrels = {q: qrels_all[q] for q in chosen}
    collection = args.collection or default_collection(args.data)

    embedder = wiring.embedder(settings)
    passages: dict[str, dict] = {}
    if args.passages.is_file():
        passages = json.loads(args.passages.read_text(encoding="utf-8"))
    missing = [q for q in chosen if q not in passages]
    if missing:
        llm = make_llm(settings, embedder, wiring.calibration(settings))
        if llm.name == "extractive":
            raise SystemExit("set llm.base_url (and llm.model): HyDE needs a model")
        trace = Trace(question="hyde benchmark", mode="standard")
        for number, qid in enumerate(missing, 1):
            with trace.step("hyde") as step:
                started = time.perf_counter()
                text = llm.hypothesize(texts[qid])
                passages[qid] = {
                    "passage": text,
                    "seconds": round(time.perf_counter() - started, 3),
                    "prompt_tokens": step.prompt_tokens,
                    "completion_tokens": step.completion_tokens,
                }
            print(f"\rpassages {number}/{len(missing)}", end="", file=sys.stderr, flush=True)
            args.passages.write_text(json.dumps(passages, indent=1), encoding="utf-8")
        print(file=sys.stderr)

    store = wiring.vector_store(settings)
    lexical = wiring.lexical_indexes(settings)
    rows = []
    for name, how in VARIANTS.items():
        options = settings.retrieval.model_copy(
            update={"expand": "prf" if name == "prf" else "none"}
        )
        retriever = Retriever(store, embedder, collection, "hybrid", lexical, options)
        run = {}
        started = time.perf_counter()
        for qid in chosen:
            hyde = Hyde(passages[qid]["passage"], **how) if how else None
            chunks = retriever.search(texts[qid], RANK_DEPTH * CHUNKS_PER_DOC, hyde=hyde)
            run[qid] = rank_documents(chunks)[:RANK_DEPTH]
        seconds = (time.perf_counter() - started) / len(chosen)
        scores = evaluate(run, qrels, ("nDCG@10", "Recall@10"))
        folds = fold_summary(run, qrels, 5)
        rows.append(
            {
                "variant": name,
                "nDCG@10": round(scores["nDCG@10"], 4),
                "nDCG@10 spread": round(folds["nDCG@10"]["spread"], 4),
                "nDCG@10 folds": [round(v, 4) for v in folds["nDCG@10"]["folds"]],
                "Recall@10": round(scores["Recall@10"], 4),
                "Recall@10 spread": round(folds["Recall@10"]["spread"], 4),
                "search seconds": round(seconds, 3),
            }
        )
    written = [passages[q] for q in chosen]
    summary = {
        "queries": len(chosen),
        "model": settings.llm.model,
        "passage seconds (median)": statistics.median(p["seconds"] for p in written),
        "completion tokens (median)": statistics.median(p["completion_tokens"] for p in written),
        "variants": rows,
    }
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(
        f"{summary['queries']} queries · {summary['model']} · passage "
        f"{summary['passage seconds (median)']:.2f} s, "
        f"{summary['completion tokens (median)']} tokens (median)"
    )
    print(f"{'variant':<18} {'nDCG@10':>8} {'spread':>7} {'R@10':>7} {'spread':>7} {'s/search':>9}")
    for row in rows:
        print(
            f"{row['variant']:<18} {row['nDCG@10']:>8.4f} {row['nDCG@10 spread']:>7.4f}"
            f" {row['Recall@10']:>7.4f} {row['Recall@10 spread']:>7.4f}"
            f" {row['search seconds']:>9.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
