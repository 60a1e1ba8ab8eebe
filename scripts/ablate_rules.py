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
The same for two figures of how answers read, which a rule may be kept for instead: the
share of answers with a flaw (ragcli/evaluation/answer_defects.py) and the share declined
though their sources hold the answer.

--eliminate switches rules off one after another, as scripts/ablate_answers.py
--eliminate drops features: while some rule can go with the answers still inside the noise
of those with every rule on (names and flaws), the one whose removal costs least goes.

    .venv/bin/python scripts/ablate_rules.py --stores DIR [--rule NAME ... | --eliminate]
        [--runs DIR]

Each run's JSON goes to --runs DIR (default DIR/ablation in --stores), and a run already
there is read back rather than asked again (delete it after a change to the backend).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

from howto_benchmark import train_run  # noqa: E402

from ragcli.evaluation.answer_fit import fold_change  # noqa: E402
from ragcli.llm.offline.rules import RULES  # noqa: E402

BASE = "none"


def run(stores: Path, runs: Path, *off: str) -> dict[str, Any]:
    """The train run with the rules `off` switched off (none: BASE), kept in `runs`."""
    name = "+".join(sorted(off)) or BASE
    out = runs / f"{name}.json"
    if not out.exists():
        options = [option for rule in sorted(off) for option in ("--rule-off", rule)]
        print(f"ablate_rules: {name} …", file=sys.stderr, flush=True)
        failed = f"ablate_rules: the run with {name} off failed"
        out.write_text(train_run(stores, *options, failed=failed), encoding="utf-8")
    return json.loads(out.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Figures:
    answered: dict[str, float]  # per fold: name or value in the answer
    median: dict[str, float]  # per fold: median answer length
    flawed: dict[str, float]  # per fold: answers with a flaw
    declined: dict[str, float]  # per fold: declined though the sources hold the answer
    gold: float  # the Rhine article's gold answers


def figures(report: dict[str, Any]) -> Figures:
    folds = report["train_folds"]["folds"]
    squad = next((s for s in report["sets"] if s["set"] == "squad-rhine"), None)
    return Figures(
        {f: v["in_answer"] for f, v in folds.items()},
        {f: float(v["median"]) for f, v in folds.items()},
        {f: v.get("flawed", 0.0) for f, v in folds.items()},
        {f: v.get("declined", 0.0) for f, v in folds.items()},
        float(squad.get("answer_contains_gold", 0.0)) if squad else 0.0,
    )


def change(off: dict[str, float], on: dict[str, float]) -> dict[str, Any]:
    """The mean over the folds of (off - on), its spread, and whether it is beyond it, as
    the features' ablation measures them (answer_fit.fold_change)."""
    found = fold_change(on, off, "")
    return {
        "change": round(found.change, 3),
        "spread": round(found.spread, 3),
        "beyond_noise": found.beyond_noise,
        "per_fold": list(found.per_fold),
    }


def worse(off: Figures, on: Figures) -> bool:
    """Answers measurably worse than `on`'s: fewer name the solution, or more are flawed,
    beyond the folds' spread."""
    answered, flawed = change(off.answered, on.answered), change(off.flawed, on.flawed)
    return (answered["change"] < 0 and answered["beyond_noise"]) or (
        flawed["change"] > 0 and flawed["beyond_noise"]
    )


def eliminate(stores: Path, runs: Path) -> list[dict[str, Any]]:
    """Backward elimination, as scripts/ablate_answers.py does for features: while some
    rule can be switched off with the answers still inside the noise of those with every
    rule on (names and flaws, against every rule on, so that small losses do not add up
    unseen), the one whose removal costs least goes. Returns each step."""
    full = figures(run(stores, runs))
    off: list[str] = []
    steps = []
    while len(off) < len(RULES):
        tried = []
        for rule in (r for r in RULES if r not in off):
            found = figures(run(stores, runs, *off, rule))
            if not worse(found, full):
                answered = change(found.answered, full.answered)["change"]
                flawed = change(found.flawed, full.flawed)["change"]
                tried.append((answered, -flawed, rule, found))
        if not tried:
            break
        *_, rule, found = max(tried)
        off.append(rule)
        steps.append(
            {
                "off": list(off),
                "in_answer": change(found.answered, full.answered),
                "flawed": change(found.flawed, full.flawed),
                "rhine_gold_change": round(found.gold - full.gold, 3),
            }
        )
    return steps


def verdict(found: dict[str, Any]) -> str:
    if not any(found["per_fold"]):
        return "no change"
    return "beyond the noise" if found["beyond_noise"] else "inside the noise"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stores", type=Path, required=True, help="the benchmark's stores")
    parser.add_argument("--rule", nargs="+", choices=sorted(RULES), help="these rules only")
    parser.add_argument("--runs", type=Path, help="where each run's JSON is kept")
    parser.add_argument(
        "--eliminate",
        action="store_true",
        help="switch rules off one after another while the answers stay inside the noise",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    runs = args.runs or args.stores / "ablation"
    runs.mkdir(parents=True, exist_ok=True)
    if args.eliminate:
        steps = eliminate(args.stores, runs)
        if args.json:
            print(json.dumps(steps, indent=2))
            return 0
        print("switched off in turn (change against every rule on, over the train folds):")
        for step in steps:
            answered, flawed = step["in_answer"], step["flawed"]
            print(
                f"  {step['off'][-1]:<17} names {answered['change']:+.3f} "
                f"(spread {answered['spread']:.3f})  flawed {flawed['change']:+.3f} "
                f"(spread {flawed['spread']:.3f})  Rhine {step['rhine_gold_change']:+.3f}"
            )
        return 0
    on = figures(run(args.stores, runs))
    report = []
    for rule in args.rule or list(RULES):
        off = figures(run(args.stores, runs, rule))
        answered = change(off.answered, on.answered)
        report.append(
            {
                "rule": rule,
                "in_answer_change": answered["change"],
                "spread": answered["spread"],
                "beyond_noise": answered["beyond_noise"],
                "per_fold": answered["per_fold"],
                "median_chars_change": round(
                    statistics.fmean(off.median[f] - on.median[f] for f in on.median), 1
                ),
                "rhine_gold_change": round(off.gold - on.gold, 3),
                "flawed": change(off.flawed, on.flawed),
                "declined": change(off.declined, on.declined),
            }
        )
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print("rule off: change over the train folds (spread) of the name or value in the")
    print("answer, of flawed answers and of answerable questions declined; median answer")
    print("length change; Rhine gold answers change")
    for r in report:
        print(
            f"  {r['rule']:<17} {r['in_answer_change']:+.3f} (spread {r['spread']:.3f}, "
            f"{verdict(r)})  median {r['median_chars_change']:+.0f}  Rhine "
            f"{r['rhine_gold_change']:+.3f}"
        )
        for figure in ("flawed", "declined"):
            found = r[figure]
            print(
                f"  {'':<17} {figure} {found['change']:+.3f} (spread {found['spread']:.3f}, "
                f"{verdict(found)})"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
