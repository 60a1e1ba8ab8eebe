#!/usr/bin/env python
"""Drop each answer feature of the offline backend in turn and report what it changes on
the train folds of scripts/data/split.yaml, with the folds' spread.

For every feature of ragcli/llm/answer_choice.py, the answer choice is refitted without it
on the other train folds and each fold is scored (scripts/fit_answers.py's
cross-validation: a documentation site sits in one fold only). The figure is how often the
best-scored sentence holds the answer: the mean over the folds of (without - with), and
the spread of that difference over the folds (largest minus smallest). A feature whose
drop moves the mean by less than the spread of the difference measures inside the noise.

    .venv/bin/python scripts/fit_answers.py --stores DIR --dump /tmp/rows.json
    .venv/bin/python scripts/ablate_answers.py --rows /tmp/rows.json [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

from fit_answers import cross_validated, load_rows  # noqa: E402

from ragcli.llm.answer_choice import FEATURES  # noqa: E402


def ablation(rows_path: Path) -> list[dict[str, object]]:
    rows = load_rows(rows_path)
    every = list(range(len(FEATURES)))
    full = cross_validated(rows, every)
    report = []
    for index, name in enumerate(FEATURES):
        without = cross_validated(rows, [i for i in every if i != index])
        change = [without[f] - full[f] for f in full]
        mean = statistics.fmean(change)
        spread = max(change) - min(change)
        report.append(
            {
                "feature": name,
                "with": round(statistics.fmean(full.values()), 3),
                "without": round(statistics.fmean(without.values()), 3),
                "change": round(mean, 3),
                "spread": round(spread, 3),
                "beyond_noise": abs(mean) > spread,
                "per_fold": [round(c, 3) for c in change],
            }
        )
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=Path, required=True, help="fit_answers.py --dump's file")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = ablation(args.rows)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(
        f"{'feature dropped':<16} {'with':>6} {'without':>8} {'change':>7} {'spread':>7}  per fold"
    )
    for r in report:
        mark = "" if r["beyond_noise"] else "  (inside the noise)"
        folds = " ".join(f"{c:+.3f}" for c in r["per_fold"])  # type: ignore[attr-defined]
        print(
            f"{r['feature']:<16} {r['with']:>6.3f} {r['without']:>8.3f} {r['change']:>+7.3f} "
            f"{r['spread']:>7.3f}  {folds}{mark}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
