#!/usr/bin/env python
"""Drop each answer feature of the offline backend (ragcli/llm/offline/features.py) in
turn and report what it changes on the train folds of scripts/data/split.yaml, with the
folds' spread.

For each feature the scorer is refitted without it on the other train folds and each
fold is scored (a documentation site sits in one fold only). The figure is how often the
best-scored unit holds the answer: the mean over the folds of (without - with), and the
spread of that difference over the folds (largest minus smallest). A feature whose drop
moves the mean by less than that spread measures inside the noise.

`--eliminate` drops, one at a time, the feature whose drop costs least while one measures
inside the noise (relevance stays: it is the ground the others stand on), and prints each
step; with `--write` the features left go to scripts/data/answer_features.txt, which
scripts/fit_answers.py fits on.

    .venv/bin/python scripts/fit_answers.py --stores DIR --dump /tmp/rows.json
    .venv/bin/python scripts/ablate_answers.py --rows /tmp/rows.json [--eliminate [--write]]
        [--json]
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from dataclasses import asdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ragcli.evaluation.answer_fit import (  # noqa: E402
    Ablation,
    Rows,
    ablate,
    cross_validated_top1,
    eliminate,
)
from ragcli.llm.offline.features import FEATURES  # noqa: E402

CHOICE = ROOT / "scripts" / "data" / "answer_features.txt"


def load_rows(path: Path) -> list[Rows]:
    return [Rows(**r) for r in json.loads(path.read_text(encoding="utf-8"))]


def line(a: Ablation) -> str:
    verdict = "beyond the noise" if a.beyond_noise else "inside the noise"
    folds = " ".join(f"{c:+.3f}" for c in a.per_fold)
    return f"  {a.feature:<17} {a.change:+.3f} (spread {a.spread:.3f}, {verdict})  folds {folds}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=Path, required=True, help="fit_answers.py --dump's file")
    parser.add_argument("--eliminate", action="store_true", help="backward elimination")
    parser.add_argument("--write", action="store_true", help="with --eliminate: keep its choice")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = load_rows(args.rows)
    if not args.eliminate:
        report = ablate(rows, FEATURES, cross_validated_top1)
        if args.json:
            print(json.dumps([asdict(a) | {"beyond_noise": a.beyond_noise} for a in report]))
            return 0
        print("drop each feature: best unit holds the answer, change over the train folds")
        print("\n".join(line(a) for a in report))
        return 0
    left, dropped = eliminate(rows, FEATURES, cross_validated_top1, keep=("relevance",))
    if args.json:
        print(json.dumps({"kept": left, "dropped": [asdict(a) for a in dropped]}))
    else:
        print("dropped, in turn (the change its drop made, with the folds' spread):")
        print("\n".join(line(a) for a in dropped) or "  none")
        print("kept, each beyond the noise:")
        print("\n".join(line(a) for a in ablate(rows, left, cross_validated_top1)))
    if args.write:
        CHOICE.write_text(
            f"# The answer features scripts/fit_answers.py fits on: what\n"
            f"# scripts/ablate_answers.py --eliminate left on {datetime.date.today()} over\n"
            f"# {len(rows)} train questions; each dropped one measured inside the noise.\n"
            + "".join(f"{name}\n" for name in left),
            encoding="utf-8",
        )
        print(f"wrote {CHOICE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
