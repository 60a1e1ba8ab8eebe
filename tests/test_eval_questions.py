"""`ragcli eval QUESTIONS.yaml`: the modes over a labelled question file, scored against
the labels (answered / limited / missed, declined) and the evidence found."""

from __future__ import annotations

import json

import pytest

from ragcli.errors import ConfigError
from ragcli.evaluation.questions import LabelledQuestion, load_questions, score
from ragcli.models import QuestionOutcome
from tests.support.common import ROOT
from tests.support.labelled_questions import QUESTIONS
from tests.support.storecheck import cli_env, ragcli


def test_both_file_shapes_load_and_bad_ones_say_why(tmp_path):
    listed = tmp_path / "q.yaml"
    listed.write_text(QUESTIONS)
    found = load_questions(listed)
    assert [(q.answerable, q.evidence, q.expect_mode) for q in found] == [
        (True, ["30 days"], "tos"),
        (True, ["12"], "standard"),
        (False, [], "crag"),
    ]
    # calibrate's shape: a source makes a question answerable, `expect` is its evidence.
    calibrate = load_questions(ROOT / "tests" / "data" / "labelled_questions.yaml")
    assert calibrate[0].answerable and calibrate[0].evidence == ["within 30 days of purchase"]
    assert not calibrate[-1].answerable
    broken = tmp_path / "broken.yaml"
    broken.write_text("- {question: ''}\n")
    with pytest.raises(ConfigError, match=r"broken.yaml: item 1 has no question"):
        load_questions(broken)
    broken.write_text("- {question: 'Q?', expect_evidence: {a: 1}}\n")
    with pytest.raises(ConfigError, match="item 1: expect_evidence is not text or a list"):
        load_questions(broken)


def test_a_mode_is_scored_against_the_labels():
    questions = [
        LabelledQuestion(question="a", answerable=True, evidence=["x", "y"], expect_mode="tos"),
        LabelledQuestion(question="b", answerable=True, evidence=["z"]),
        LabelledQuestion(question="c", answerable=False, expect_mode="crag"),
    ]

    def done(answer_type: str, found: float | None, calls: int, routed: str | None):
        return QuestionOutcome(
            question="q",
            mode="auto",
            answer_type=answer_type,
            evidence_found=found,
            llm_calls=calls,
            seconds=0.5,
            routed_to=routed,
        )

    outcomes = [
        done("answer", 0.5, 0, "tos"),
        done("not_covered", 0.0, 2, "standard"),
        done("handoff", None, 1, "standard"),
    ]
    result = score("auto", questions, outcomes)
    assert (result.answered, result.limited, result.missed) == (1, 0, 1)
    assert (result.declined, result.unanswerable) == (1, 1)
    assert result.evidence == 0.25 and result.llm_calls_per_question == 1.0
    assert result.routed_as_labelled == 0.5  # tos as labelled; standard, not crag


@pytest.mark.slow
def test_eval_runs_the_modes_over_the_store(sample_store, tmp_path):
    path = tmp_path / "questions.yaml"
    path.write_text(QUESTIONS)
    args = ("eval", str(path), "--mode", "standard", "--mode", "auto", "--store", str(sample_store))
    as_json = ragcli(*args, "--json", cwd=sample_store.parent, env=cli_env())
    assert as_json.returncode == 0, as_json.stderr
    report = json.loads(as_json.stdout)
    scores = {s["mode"]: s for s in report["scores"]}
    assert list(scores) == ["standard", "auto"]
    assert scores["auto"]["routed_as_labelled"] == 1.0
    assert scores["auto"]["declined"] == 1 and scores["auto"]["evidence"] == 1.0
    assert scores["standard"]["routed_as_labelled"] is None
    assert len(report["outcomes"]) == 6 and report["backend"] == "extractive"
    shown = ragcli(*args, cwd=sample_store.parent, env=cli_env(COLUMNS="80"))
    assert "questions.yaml · backend extractive" in shown.stdout
    row = next(line for line in shown.stdout.splitlines() if line.startswith("auto"))
    assert row.split()[1:5] == ["2/2", "0/2", "0/2", "1.00"]
    wrong = ragcli(
        "eval",
        str(path),
        "--mode",
        "turbo",
        "--store",
        str(sample_store),
        cwd=sample_store.parent,
        env=cli_env(),
    )
    assert wrong.returncode == 2 and "--mode 'turbo': choose one of" in wrong.stderr
