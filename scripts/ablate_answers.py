#!/usr/bin/env python
"""Drop each group of answer features of the offline backend (FEATURE_GROUPS in
ragcli/llm/offline/features.py) in turn and report what it changes on the train folds of
scripts/data/split.yaml, with the folds' spread.

For each group the scorer is refitted without it on the other train folds and each fold
is scored (a documentation site sits in one fold only). The figure is the mean reciprocal
rank of the first unit holding the answer (the answer quotes several units, so how near
the top the answering one comes matters): the mean over the folds of (without - with),
and the spread of that difference over the folds (largest minus smallest). A group whose
drop moves the mean by less than that spread measures inside the noise. Features are
dropped by group because the features of one group stand in for each other: each alone
measures inside the noise while the group does not.

`--eliminate` drops, one at a time, the group whose drop costs least while the model stays
inside the noise of the full one (relevance stays: it is the ground the others stand on),
and prints each step. A group it drops is taken out of features.py, with its figure in
docs/dev-log/offline-backend.md.

    .venv/bin/python scripts/fit_answers.py --stores DIR --dump /tmp/rows.json
    .venv/bin/python scripts/ablate_answers.py --rows /tmp/rows.json [--eliminate]
        [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ragcli.evaluation.answer_fit import (  # noqa: E402
    Ablation,
    ablate,
    cross_validated_mrr,
    eliminate,
    load_rows,
)
from ragcli.llm.offline.features import FEATURE_GROUPS  # noqa: E402


def line(a: Ablation) -> str:
    verdict = "beyond the noise" if a.beyond_noise else "inside the noise"
    folds = " ".join(f"{c:+.3f}" for c in a.per_fold)
    return f"  {a.dropped:<17} {a.change:+.3f} (spread {a.spread:.3f}, {verdict})  folds {folds}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=Path, required=True, help="fit_answers.py --dump's file")
    parser.add_argument("--eliminate", action="store_true", help="backward elimination")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = load_rows(args.rows)
    if not args.eliminate:
        report = ablate(rows, FEATURE_GROUPS, cross_validated_mrr)
        if args.json:
            print(json.dumps([asdict(a) | {"beyond_noise": a.beyond_noise} for a in report]))
            return 0
        print("drop each group: reciprocal rank of the first answering unit, change over folds")
        print("\n".join(line(a) for a in report))
        return 0
    left, dropped = eliminate(rows, FEATURE_GROUPS, cross_validated_mrr, keep=("relevance",))
    if args.json:
        print(json.dumps({"kept": left, "dropped": [asdict(a) for a in dropped]}))
    else:
        print("dropped, in turn (the change from the full model once it had gone, with spread):")
        print("\n".join(line(a) for a in dropped) or "  none")
        print("kept (each dropped from what is left):")
        print("\n".join(line(a) for a in ablate(rows, left, cross_validated_mrr)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
