"""The offline answer's model and its fit (ragcli/llm/offline/model.py, features.py,
rules.py; ragcli/evaluation/answer_fit.py), on rows made here."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import numpy as np
import pytest

from ragcli.evaluation.answer_fit import (
    MODEL_FEATURES,
    Rows,
    ablate,
    cross_validated_top1,
    eliminate,
    feature_names,
    fit,
    fit_selection,
    scorer_of,
    simulate,
    top1,
)
from ragcli.llm.offline import rules
from ragcli.llm.offline.features import FEATURES, UnitContext, answer_features
from ragcli.llm.offline.model import AnswerModel, SelectionParameters, bundled

HOWTO = "How do I stop following redirects?"


def _rows(seed: int = 7, questions: int = 60) -> list[Rows]:
    """Questions whose answering unit has a high `names_new` and a relevance no higher
    than the others'; `name_first` is noise."""
    rng = random.Random(seed)
    out = []
    for n in range(questions):
        features, labels, sizes = [], [], []
        answer = rng.randrange(6)
        for i in range(6):
            values = dict.fromkeys(FEATURES, 0.0)
            values["relevance"] = rng.uniform(0.3, 0.6)
            values["names_new"] = 1.0 if i == answer else float(rng.random() < 0.15)
            values["name_first"] = rng.random()
            features.append([values[name] for name in FEATURES])
            labels.append(i == answer)
            sizes.append(rng.randrange(80, 300))
        out.append(Rows("synthetic", n % 5, HOWTO, features, labels, [0.5] * 6, sizes))
    return out


def test_the_fit_weighs_what_tells_the_answer_and_scores_read_as_probabilities():
    rows = _rows()
    model = fit(rows)
    assert model.weights["names_new"] > 1.0
    assert abs(model.weights.get("name_first", 0.0)) < model.weights["names_new"] / 3
    right, total = top1(rows, scorer_of(model))
    alone, _ = top1(rows, lambda q: np.array(q.relevance))
    assert total == 60 and right / total > 0.5 > alone / total
    scores = [model.score(f) for q in rows for f in q.features]
    assert all(0.0 < s < 1.0 for s in scores)
    assert fit(rows).weights == model.weights  # deterministic


def test_a_feature_left_out_weighs_nothing_and_is_not_written():
    model = fit(_rows(), ["relevance", "names_new"])
    assert set(model.weights) <= {"relevance", "names_new"}
    written = model.to_dict("about")
    assert set(written["weights"]) <= {"relevance", "names_new"}
    again = AnswerModel.from_dict(json.loads(json.dumps(written)))
    assert again.weights == pytest.approx(
        {k: round(v, 4) for k, v in model.weights.items()}, abs=1e-4
    )


def test_an_unknown_feature_in_the_model_file_is_refused():
    with pytest.raises(ValueError, match="unknown features"):
        AnswerModel.from_dict({"weights": {"shoe_size": 1.0}, "bias": 0.0})


def test_the_bundled_model_weighs_known_features_and_fitted_selection():
    model = bundled()
    assert model.weights and set(model.weights) <= set(FEATURES)
    assert model.weights["relevance"] > 0
    assert 0 < model.selection.keep_share_howto < 1 and 0 < model.selection.keep_share_fact < 1
    assert 0.5 < model.selection.covered_fact < 1 and 0.5 < model.selection.covered_howto < 1


def test_ablation_finds_the_group_that_matters_and_elimination_drops_the_noise():
    rows = _rows()
    groups = {"relevance": ("relevance",), "names": ("names_new",), "noise": ("name_first",)}
    report = {a.dropped: a for a in ablate(rows, groups, cross_validated_top1)}
    assert report["names"].change < -0.3 and report["names"].beyond_noise
    assert not report["noise"].beyond_noise
    left, dropped = eliminate(rows, groups, cross_validated_top1, keep=("relevance",))
    assert list(left) == ["relevance", "names"]
    assert [a.dropped for a in dropped] == ["noise"]


def test_the_simulated_selection_keeps_to_the_budget_and_the_stop():
    rows = _rows()
    model = fit(rows)
    every = SelectionParameters(
        keep_share_howto=0.0,
        keep_share_fact=0.0,
        covered_howto=1.0,
        covered_fact=1.0,
        covered_shown=1.0,
    )
    long = simulate(rows, scorer_of(model), every, budget=700)
    assert long.held > 0.95 and 400 < long.median_chars <= 700 + 5 * 6
    short = simulate(rows, scorer_of(model), replace(every, keep_share_howto=0.99), budget=700)
    assert short.median_chars < 300
    chosen = fit_selection(rows, scorer_of(model), median_chars={"instruction": 350})
    assert simulate(rows, scorer_of(model), chosen).medians["instruction"] <= 350


def test_new_name_features_tell_the_setting_asked_for_from_a_list_of_others():
    def features(text: str):
        unit = UnitContext("sentence", 0.5, 0.0, 0.0, 0.0, 1, False, text, "", frozenset())
        return answer_features(HOWTO, "instruction", text, unit)

    named = features("`follow_redirects=False` stops following redirects for a request.")
    listed = features("It takes `timeout`, `proxies`, `verify` and `follow_redirects` too.")
    assert named.name_first > 0.9 > listed.name_first
    assert listed.other_names > named.other_names == 0.0
    assert named.name_of_question == pytest.approx(2 / 3)  # follow, redirect; not false
    assert listed.name_of_question == 0.0
    fact = UnitContext("sentence", 0.5, 0.0, 0.0, 0.0, 1, False, "", "", frozenset())
    stated = answer_features(
        "What is the default timeout?", "other", "The default timeout is 5 seconds.", fact
    )
    around = answer_features(
        "What is the default timeout?",
        "other",
        "Timeouts are configured on the client and apply everywhere and in every case "
        "we know of, 5 of them.",
        fact,
    )
    assert stated.value_stated == 1.0 and around.value_stated == 0.0


def test_a_rule_is_switched_off_only_inside_its_block():
    assert rules.on("section_example")
    with rules.switched_off("section_example", "titled"):
        assert not rules.on("section_example") and not rules.on("titled")
        assert rules.on("duplicates")
    assert rules.on("section_example") and rules.on("titled")
    with pytest.raises(KeyError):
        rules.on("no_such_rule")
    with pytest.raises(KeyError), rules.switched_off("no_such_rule"):
        pass


def test_the_fit_weighs_its_own_features_unless_told_and_names_an_unknown_one():
    assert feature_names(None) == list(MODEL_FEATURES)
    assert set(MODEL_FEATURES) < set(FEATURES)
    assert feature_names("all") == list(FEATURES)
    assert feature_names("relevance, rank") == ["relevance", "rank"]
    with pytest.raises(SystemExit, match="unknown features: relevence"):
        feature_names("relevence,rank")
    # The bundled model is the fit's: it weighs no feature the fit leaves out.
    assert set(bundled().weights) <= set(MODEL_FEATURES)
