#!/usr/bin/env python
"""Switch off each hand rule of the offline answerer (ragcli/llm/offline/rules.py) in turn
and report what it changes in the answers of the train folds of scripts/data/split.yaml.

Each run is scripts/howto_benchmark.py --set all --part train (every documentation site
and the SQuAD Rhine article; the stores kept in --stores DIR), with one rule off. The
figures are, per train fold with every site pooled, the share of questions whose answer
names the solution or states the value, and the median answer length; and the share of
the Rhine article's train questions with a gold answer in the answer. A rule's change is
the mean over the folds of (off - on) with the spread of that difference (largest minus
smallest): a rule whose change is no larger than its spread measures inside the noise.

    .venv/bin/python scripts/ablate_rules.py --stores DIR [--rule NAME ...] [--runs DIR]

Each run's JSON goes to --runs DIR (default DIR/ablation in --stores), and a run already
there is read back rather than asked again (delete it after a change to the backend).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

from howto_benchmark import train_run  # noqa: E402

from ragcli.llm.offline.rules import RULES  # noqa: E402

BASE = "none"


def run(stores: Path, runs: Path, rule: str) -> dict[str, Any]:
    out = runs / f"{rule}.json"
    if not out.exists():
        options = ("--rule-off", rule) if rule != BASE else ()
        print(f"ablate_rules: {rule} …", file=sys.stderr, flush=True)
        failed = f"ablate_rules: the run with {rule} off failed"
        out.write_text(train_run(stores, *options, failed=failed), encoding="utf-8")
    return json.loads(out.read_text(encoding="utf-8"))


def figures(report: dict[str, Any]) -> tuple[dict[str, float], dict[str, float], float]:
    """(per fold: name or value in the answer; per fold: median length; Rhine gold share)."""
    folds = report["train_folds"]["folds"]
    squad = next((s for s in report["sets"] if s["set"] == "squad-rhine"), None)
    gold = float(squad.get("answer_contains_gold", 0.0)) if squad else 0.0
    return (
        {f: v["in_answer"] for f, v in folds.items()},
        {f: float(v["median"]) for f, v in folds.items()},
        gold,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stores", type=Path, required=True, help="the benchmark's stores")
    parser.add_argument("--rule", nargs="+", choices=sorted(RULES), help="these rules only")
    parser.add_argument("--runs", type=Path, help="where each run's JSON is kept")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    runs = args.runs or args.stores / "ablation"
    runs.mkdir(parents=True, exist_ok=True)
    on_answer, on_length, on_gold = figures(run(args.stores, runs, BASE))
    report = []
    for rule in args.rule or list(RULES):
        answer, length, gold = figures(run(args.stores, runs, rule))
        change = [answer[f] - on_answer[f] for f in on_answer]
        mean, spread = statistics.fmean(change), max(change) - min(change)
        report.append(
            {
                "rule": rule,
                "in_answer_change": round(mean, 3),
                "spread": round(spread, 3),
                "beyond_noise": abs(mean) > spread,
                "per_fold": [round(c, 3) for c in change],
                "median_chars_change": round(
                    statistics.fmean(length[f] - on_length[f] for f in on_length), 1
                ),
                "rhine_gold_change": round(gold - on_gold, 3),
            }
        )
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print("rule off: name or value in the answer, change over the train folds (spread);")
    print("median answer length change; Rhine gold answers change")
    for r in report:
        verdict = (
            "no change"
            if not any(r["per_fold"])
            else "beyond the noise"
            if r["beyond_noise"]
            else "inside the noise"
        )
        print(
            f"  {r['rule']:<17} {r['in_answer_change']:+.3f} (spread {r['spread']:.3f}, "
            f"{verdict})  median {r['median_chars_change']:+.0f}  Rhine "
            f"{r['rhine_gold_change']:+.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
