#!/usr/bin/env python
"""Fit the sentence-support model (ragcli/pipeline/support.py) on the labelled answers in
tests/data/support.yaml and write ragcli/data/support.json.

Each labelled sentence is scored against each source it cites; the label says whether that
source backs it. Prints the fit, and precision and recall of the unsupported marks both on
the whole set and held out group by group (each group of sources in turn left out of the
fit), which is the honest figure for documents the fit has not seen.

    .venv/bin/python scripts/fit_support.py [--check]   # --check: print, write nothing
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ragcli.pipeline.support import FEATURES, MIN_WORDS, SupportModel, features  # noqa: E402

DATA = ROOT / "tests" / "data" / "support.yaml"
OUT = ROOT / "ragcli" / "data" / "support.json"
THRESHOLD = 0.5


def rows(embedder) -> list[tuple[int, list[float], bool]]:
    from ragcli.llm.text import WORD, sentences

    out = []
    for group, case in enumerate(yaml.safe_load(DATA.read_text())):
        sources = case["sources"]
        pieces = [
            [s for s in sentences(t) if len(WORD.findall(s)) >= MIN_WORDS] or [t] for t in sources
        ]
        texts = [s["text"] for s in case["sentences"]] + [p for ps in pieces for p in ps]
        vectors = dict(zip(texts, embedder.embed(texts), strict=True))
        for sentence in case["sentences"]:
            for n in sentence["cites"]:
                found = features(sentence["text"], sources[n - 1], pieces[n - 1], vectors)
                out.append((group, list(found), bool(sentence["supported"])))
    return out


def fit(data: list[tuple[int, list[float], bool]]) -> SupportModel:
    from sklearn.linear_model import LogisticRegression

    x = np.array([f for _, f, _ in data])
    y = np.array([label for _, _, label in data])
    model = LogisticRegression(C=10.0, class_weight="balanced").fit(x, y)
    return SupportModel(tuple(float(w) for w in model.coef_[0]), float(model.intercept_[0]))


def marks(model: SupportModel, data) -> tuple[float, float]:
    """Precision and recall of 'unsupported' (score below THRESHOLD)."""
    flagged = [(model.probability(f) < THRESHOLD, not label) for _, f, label in data]
    true_pos = sum(1 for mark, wrong in flagged if mark and wrong)
    marked = sum(1 for mark, _ in flagged if mark)
    wrong = sum(1 for _, w in flagged if w)
    return true_pos / marked if marked else 1.0, true_pos / wrong if wrong else 1.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="print the fit, write nothing")
    args = parser.parse_args()
    from ragcli.config import Settings
    from ragcli.embedding.embedder import make_embedder

    data = rows(make_embedder(Settings().embedding))
    model = fit(data)
    precision, recall = marks(model, data)
    held: list = []
    for group in sorted({g for g, _, _ in data}):
        train = [row for row in data if row[0] != group]
        held += [(fit(train), row) for row in data if row[0] == group]
    flagged = [(m.probability(row[1]) < THRESHOLD, not row[2]) for m, row in held]
    tp = sum(1 for a, b in flagged if a and b)
    held_p = tp / max(1, sum(1 for a, _ in flagged if a))
    held_r = tp / max(1, sum(1 for _, b in flagged if b))
    print(
        f"{len(data)} (sentence, source) pairs; "
        f"weights {dict(zip(FEATURES, model.weights, strict=True))}"
    )
    print(f"bias {model.bias:.3f}")
    print(f"unsupported marks, whole set: precision {precision:.2f} recall {recall:.2f}")
    print(f"unsupported marks, each group held out: precision {held_p:.2f} recall {held_r:.2f}")
    if not args.check:
        about = f"fitted by scripts/fit_support.py on {DATA.relative_to(ROOT)}"
        OUT.write_text(
            json.dumps(
                {
                    "about": about,
                    "features": list(FEATURES),
                    "weights": [round(w, 4) for w in model.weights],
                    "bias": round(model.bias, 4),
                },
                indent=2,
            )
            + "\n"
        )
        print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
