"""The offline answer's model and its fit (ragcli/llm/offline/model.py, features.py,
rules.py; ragcli/evaluation/answer_fit.py), on rows made here."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import numpy as np
import pytest

from ragcli.evaluation.answer_fit import (
    DUPLICATE_COSINES,
    MODEL_FEATURES,
    Rows,
    ablate,
    cross_validated_top1,
    eliminate,
    feature_names,
    fit,
    fit_selection,
    grades,
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


def _sentence_and_example_rows(seed: int = 11, questions: int = 60) -> list[Rows]:
    """Questions with two units holding the answer, a sentence naming it and a code block
    showing it (as relevant), among units that name other things, a third of them code."""
    rng = random.Random(seed)
    out = []
    for n in range(questions):
        features, labels = [], []
        for i in range(6):
            values = dict.fromkeys(FEATURES, 0.0)
            values["relevance"] = rng.uniform(0.3, 0.6)
            values["names_new"] = 1.0 if i < 2 else float(rng.random() < 0.15)
            values["code_unit"] = 1.0 if i == 1 else float(i > 1 and rng.random() < 0.3)
            features.append([values[name] for name in FEATURES])
            labels.append(i < 2)
        out.append(Rows("synthetic", n % 5, HOWTO, features, labels, [0.5] * 6, [100] * 6))
    return out


def test_preferring_prose_ranks_the_sentence_naming_the_fix_above_the_example():
    rows = _sentence_and_example_rows()
    assert grades(rows[0]).tolist() == [1, 1, 0, 0, 0, 0]
    assert grades(rows[0], prefer_prose=True).tolist() == [2, 1, 0, 0, 0, 0]
    plain, prose = fit(rows), fit(rows, prefer_prose=True)
    # Both rank an answering unit first; only the graded fit learns which of the two.
    assert min(top1(rows, scorer_of(prose))[0], top1(rows, scorer_of(plain))[0]) >= 50
    assert prose.weights["code_unit"] < 0 < plain.weights["code_unit"]
    sentence_first = sum(scorer_of(prose)(q)[0] > scorer_of(prose)(q)[1] for q in rows)
    assert sentence_first == 60


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
        duplicate_cosine=1.0,
    )
    long = simulate(rows, scorer_of(model), every, budget=700)
    assert long.held > 0.95 and 400 < long.median_chars <= 700 + 5 * 6
    short = simulate(rows, scorer_of(model), replace(every, keep_share_howto=0.99), budget=700)
    assert short.median_chars < 300
    chosen = fit_selection(rows, scorer_of(model), median_chars={"instruction": 350})
    assert simulate(rows, scorer_of(model), chosen).medians["instruction"] <= 350


def _repeating_rows(questions: int = 40) -> list[Rows]:
    """Questions whose two best units say the same thing (0.96 alike) and do not answer,
    and whose answering unit comes third: a 300-character budget holds two of the three."""
    out = []
    for n in range(questions):
        features = []
        for relevance, names in ((0.9, 0.0), (0.85, 0.0), (0.5, 1.0)):
            values = dict.fromkeys(FEATURES, 0.0)
            values.update(relevance=relevance, names_new=names)
            features.append([values[name] for name in FEATURES])
        out.append(
            Rows(
                "synthetic",
                n % 5,
                HOWTO,
                features,
                [False, False, True],
                [0.5] * 3,
                [140] * 3,
                near=[[0, 1, 0.96]],
            )
        )
    return out


def test_a_unit_saying_what_a_chosen_one_says_is_left_out_as_far_as_fitted():
    rows = _repeating_rows()
    ranked = AnswerModel({"relevance": 4.0, "names_new": 1.0}, -3.0, bundled().selection)
    loose = SelectionParameters(0.0, 0.0, 1.0, 1.0, 1.0, duplicate_cosine=1.0)
    # Only the same words are the same: both repeating units fill the budget.
    assert simulate(rows, scorer_of(ranked), loose, budget=300).held == 0.0
    # At 0.95 the second says what the first says: the answering unit takes its place.
    paraphrase = replace(loose, duplicate_cosine=0.95)
    assert simulate(rows, scorer_of(ranked), paraphrase, budget=300).held == 1.0
    fitted = fit_selection(rows, scorer_of(ranked), median_chars={"instruction": 700})
    assert fitted.duplicate_cosine in DUPLICATE_COSINES and fitted.duplicate_cosine < 0.96


def test_the_model_file_holds_the_redundancy_and_an_earlier_file_reads_as_it_quoted():
    written = bundled().to_dict("about")
    assert 0.8 <= written["selection"]["duplicate_cosine"] <= 1.0
    del written["selection"]["duplicate_cosine"]  # a file from before it was fitted
    assert AnswerModel.from_dict(written).selection.duplicate_cosine == 0.92


def test_the_selector_judges_two_units_the_same_by_the_fitted_redundancy():
    from ragcli.llm.offline.candidates import Candidate
    from ragcli.llm.offline.selection import same

    def unit(text: str, cosine: float, kind: str = "sentence") -> Candidate:
        vector = np.array([cosine, (1 - cosine**2) ** 0.5])
        return Candidate(text, 1, 0, vector, kind=kind)  # type: ignore[arg-type]

    first = unit("Set `follow_redirects=False` on the client.", 1.0)
    threshold = bundled().selection.duplicate_cosine
    assert same(first, unit("Pass follow_redirects=False to the client.", threshold + 0.01))
    assert not same(first, unit("Redirects are followed by default.", threshold - 0.05))
    assert same(first, unit("set `follow_redirects=False`  on the client", 0.5))  # same words
    # Rows of one table embed alike whatever their values: only the same words are the same.
    row = unit("Code: 429; Phrase: Too Many Requests", 1.0, "row")
    assert not same(row, unit("Code: 404; Phrase: Not Found", 0.999, "row"))


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
        assert rules.on("clauses")
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
