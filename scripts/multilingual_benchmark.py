"""Retrieval in nine languages on one parallel task: scripts/data/multilingual/ (30 passages
of desktop help and 60 questions, the same in every language; README.md there).

    .venv/bin/python scripts/multilingual_benchmark.py --work /tmp/ml        # the table
    .venv/bin/python scripts/multilingual_benchmark.py --work /tmp/ml --fit  # the weight

Each language is written as a BEIR dataset under --work and scored by `ragcli eval`'s own
code (the store under --work too, so a second run reuses it): nDCG@10 of dense, bm25 and
hybrid, and each language's hybrid against English's. `--fit` fits
`retrieval.uncovered_dense_weight`: every query of the languages the bundled embedder does
not cover, pooled, in --folds folds; each fold is scored with the weight that ranked the
other folds best (each query's candidates are scored once and fused again per weight,
as scripts/fusion_folds.py does).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from ragcli.evaluation.folds import folds_of  # noqa: E402
from scripts.fusion_folds import candidate_scores, score  # noqa: E402

DATA = REPO / "scripts" / "data" / "multilingual"
LANGUAGES = ["en", "de", "es", "ru", "th", "ar", "hi", "zh", "ja"]
WEIGHTS = [round(0.05 * i, 2) for i in range(13)]  # 0.00 … 0.60
METRIC = "nDCG@10"


def write_beir(language: str, work: Path) -> Path:
    """The language's passages and questions as a BEIR dataset (split `test`)."""
    data = yaml.safe_load((DATA / f"{language}.yaml").read_text(encoding="utf-8"))
    folder = work / f"ml-{language}"
    (folder / "qrels").mkdir(parents=True, exist_ok=True)
    rows = [{"_id": pid, "title": "", "text": text} for pid, text in data["passages"].items()]
    queries = [{"_id": qid, "text": text} for qid, text in data["questions"].items()]
    for name, lines in (("corpus.jsonl", rows), ("queries.jsonl", queries)):
        body = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        (folder / name).write_text(body, encoding="utf-8")
    judged = "".join(f"{qid}\t{qid[:3]}\t1\n" for qid in data["questions"])
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + judged)
    return folder


def table(work: Path, languages: list[str], overrides: dict[str, str]) -> dict[str, dict]:
    from ragcli.config import load_settings
    from ragcli.evaluation.runner import run_eval

    settings = load_settings(None, {"store.path": str(work / "store"), **overrides}, environ={})
    found = {}
    for language in languages:
        report = run_eval(settings, write_beir(language, work), ["dense", "bm25", "hybrid"])
        found[language] = {r: round(m[METRIC], 3) for r, m in report.results.items()}
        print(language, found[language], file=sys.stderr)
    return found


def fit(work: Path, languages: list[str], folds: int) -> dict:
    pooled: dict[str, dict] = {}
    documents: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    for language in languages:
        scores, docs, judged = candidate_scores(work / "store", write_beir(language, work), "test")
        # One pool: a query and a chunk are named by language too.
        pooled |= {f"{language}:{q}": by for q, by in scores.items()}
        documents |= {cid: f"{language}:{doc}" for cid, doc in docs.items()}
        qrels |= {
            f"{language}:{q}": {f"{language}:{d}": g for d, g in j.items()}
            for q, j in judged.items()
        }
    queries = sorted(q for q in qrels if q in pooled)
    per_query = {w: {q: score(pooled, documents, qrels, [q], w) for q in queries} for w in WEIGHTS}

    def mean(weight: float, subset: list[str]) -> float:
        return statistics.fmean(per_query[weight][q] for q in subset)

    rows = []
    for n, fold in enumerate(folds_of(queries, folds), start=1):
        held = set(fold)
        rest = [q for q in queries if q not in held]
        chosen = max(WEIGHTS, key=lambda w: (round(mean(w, rest), 4), -w))
        rows.append(
            {
                "fold": n,
                "weight": chosen,
                "held_out": round(mean(chosen, fold), 4),
                "dense_0.6": round(mean(0.6, fold), 4),
                "bm25": round(mean(0.0, fold), 4),
            }
        )
    return {
        "queries": len(queries),
        "by_weight": {str(w): round(mean(w, queries), 4) for w in WEIGHTS},
        "folds": rows,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True, help="datasets and the store")
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    parser.add_argument("--fit", action="store_true", help="fit uncovered_dense_weight")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    languages = args.languages.split(",")
    if args.fit:
        result = fit(args.work, [lang for lang in languages if lang != "en"], args.folds)
    else:
        overrides = dict(item.split("=", 1) for item in args.set)
        result = table(args.work, languages, overrides)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    if args.fit:
        print(f"{METRIC} of {result['queries']} queries by dense weight: {result['by_weight']}")
        for row in result["folds"]:
            print(
                f"  fold {row['fold']}: weight {row['weight']}, held out {row['held_out']}, "
                f"dense 0.6 {row['dense_0.6']}, bm25 alone {row['bm25']}"
            )
        return 0
    english = result.get("en", {}).get("hybrid")
    print(f"| {METRIC} | " + " | ".join(languages) + " |")
    print("|---|" + "---|" * len(languages))
    for retriever in ("hybrid", "dense", "bm25"):
        print(
            f"| {retriever} | "
            + " | ".join(f"{result[lang][retriever]:.3f}" for lang in languages)
            + " |"
        )
    if english:
        ratios = " | ".join(f"{result[lang]['hybrid'] / english:.2f}" for lang in languages)
        print(f"| hybrid ÷ en | {ratios} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
