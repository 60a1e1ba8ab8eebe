"""scripts/ablate_rules.py --eliminate: which hand rules go, from the runs' figures."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import ablate_rules  # noqa: E402

FOLDS = ("0", "1", "2", "3", "4")


def report(answered: float, flawed: float, wobble: float = 0.0) -> dict[str, Any]:
    """A train run's JSON: the same figures in each fold, give or take `wobble`."""
    folds = {
        f: {
            "in_answer": answered + (wobble if i % 2 else -wobble),
            "median": 400,
            "flawed": flawed,
            "declined": 0.0,
        }
        for i, f in enumerate(FOLDS)
    }
    return {"sets": [], "train_folds": {"folds": folds}}


def test_rules_go_while_the_answers_stay_inside_the_noise(monkeypatch, tmp_path):
    # idle changes nothing; reads keeps answers from a flaw in every fold; names is
    # what a fifth of the answers name; noisy moves the names within the folds' spread.
    effects = {
        "idle": (0.0, 0.0, 0.0),
        "reads": (0.0, 0.1, 0.0),
        "names": (-0.2, 0.0, 0.0),
        "noisy": (-0.01, 0.0, 0.05),
    }
    monkeypatch.setattr(ablate_rules, "RULES", dict.fromkeys(effects, ""))

    def run(stores: Path, runs: Path, *off: str) -> dict[str, Any]:
        answered, flawed, wobble = 0.7, 0.1, 0.0
        for rule in off:
            d_answered, d_flawed, d_wobble = effects[rule]
            answered, flawed, wobble = answered + d_answered, flawed + d_flawed, wobble + d_wobble
        return report(answered, flawed, wobble)

    monkeypatch.setattr(ablate_rules, "run", run)
    steps = ablate_rules.eliminate(tmp_path, tmp_path)
    assert [step["off"][-1] for step in steps] == ["idle", "noisy"]
    assert steps[-1]["off"] == ["idle", "noisy"]
    assert not steps[-1]["in_answer"]["beyond_noise"]


def test_a_change_is_beyond_the_noise_only_past_the_folds_spread():
    on = {f: 0.5 for f in FOLDS}
    steady = ablate_rules.change({f: 0.45 for f in FOLDS}, on)
    assert steady["change"] == pytest.approx(-0.05) and steady["beyond_noise"]
    wobbly = ablate_rules.change({f: 0.45 + (0.06 if f == "0" else 0.0) for f in FOLDS}, on)
    assert not wobbly["beyond_noise"]
