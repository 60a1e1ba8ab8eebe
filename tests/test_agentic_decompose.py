"""Decomposition: the offline splitter, and the decompose step's min/max/duplicate/fallback
rules applied to what a model proposes (the real openai client against the stub)."""

from __future__ import annotations

import pytest

from ragcli import service
from ragcli.llm import make_llm
from ragcli.llm.decompose import decompose
from ragcli.pipeline.context import RunContext
from ragcli.pipeline.modes.agentic import steps
from ragcli.trace.recorder import Trace
from tests.support.common import settings_for
from tests.support.stubs import OpenAIStub

# -- the extractive backend's splitter ---------------------------------------------------


def test_list_question_becomes_one_question_per_item():
    question = (
        "What are the default web port, the default time of day for scheduled backups, "
        "and the port used for Prometheus metrics?"
    )
    assert decompose(question, 4) == [
        "What is the default web port?",
        "What is the default time of day for scheduled backups?",
        "What is the port used for Prometheus metrics?",
    ]


def test_comparison_asks_about_each_side_and_how_they_differ():
    assert decompose("Compare Postgres and SQLite", 4) == [
        "What is Postgres?",
        "What is SQLite?",
        "How do Postgres and SQLite differ?",
    ]
    assert decompose("What is the difference between a Viewer and a Commenter?", 4)[2] == (
        "How do a Viewer and a Commenter differ?"
    )
    assert decompose("How does the Team plan compare to the Business plan?", 4)[:2] == [
        "What is the Team plan?",
        "What is the Business plan?",
    ]


def test_a_comparison_on_named_aspects_asks_each_side_about_them():
    assert decompose("Compare Postgres and SQLite in terms of write speed", 4) == [
        "What is the write speed of Postgres?",
        "What is the write speed of SQLite?",
        "How do Postgres and SQLite differ in write speed?",
    ]
    assert decompose("Compare the Team and Business plans: price and refund window", 4) == [
        "What is the price and refund window of the Team plans?",
        "What is the price and refund window of Business plans?",
        "How do the Team and Business plans differ in price and refund window?",
    ]
    # A colon outside a comparison is part of the question.
    assert decompose("What is the port: 7420 or 8080?", 4) == ["What is the port: 7420 or 8080?"]


def test_comparison_inside_a_phrase_keeps_the_phrase_for_both_sides():
    parts = decompose(
        "Compare the yearly prices of the Team and Business plans, and tell me how long "
        "I have to get a refund if I buy an annual plan.",
        4,
    )
    assert parts == [
        "What are the yearly prices of the Team plans?",
        "What are the yearly prices of the Business plans?",
        "How do the yearly prices of the Team and Business plans differ?",
        "How long do I have to get a refund if I buy an annual plan?",
    ]


def test_over_the_limit_the_contrast_goes_before_a_part_the_user_asked_for():
    question = "Compare Postgres and SQLite, and how do I back up the database?"
    assert decompose(question, 4) == [
        "What is Postgres?",
        "What is SQLite?",
        "How do Postgres and SQLite differ?",
        "How do I back up the database?",
    ]
    assert decompose(question, 3) == [
        "What is Postgres?",
        "What is SQLite?",
        "How do I back up the database?",
    ]


def test_conjunctions_and_question_marks_split_into_clean_questions():
    assert decompose(
        "What changed about the default session timeout in 3.2.0? Also, how can an admin "
        "unlock a user who is locked out?",
        4,
    ) == [
        "What changed about the default session timeout in 3.2.0?",
        "How can an admin unlock a user who is locked out?",
    ]
    assert decompose("What is the web port and what is the metrics port?", 4) == [
        "What is the web port?",
        "What is the metrics port?",
    ]
    assert decompose("which port? which protocol?", 4) == ["Which port?", "Which protocol?"]
    assert decompose("Where are backups stored; how are they encrypted?", 4) == [
        "Where are backups stored?",
        "How are they encrypted?",
    ]


def test_one_part_questions_stay_whole():
    for question in (
        "How do I restore a backup?",
        "What are the terms and conditions?",  # a fixed phrase, not a list
        "After I cancel, how long is my content kept?",
        "How do I back up and restore the server?",
    ):
        assert decompose(question, 4) == [question]


def test_repeated_parts_are_asked_once():
    assert decompose("What is the web port? what is the web port? And the metrics port?", 4) == [
        "What is the web port?",
        "The metrics port?",
    ]


# -- the decompose step's rules ----------------------------------------------------------


@pytest.fixture(scope="module")
def embedder(tmp_path_factory):
    return service.embedder(settings_for(tmp_path_factory.mktemp("unused")))


def run_decompose(embedder, reply, question="Q about A and B?", **overrides):
    with OpenAIStub(default=reply) as stub:
        settings = settings_for(
            "unused", **{"llm.base_url": stub.base_url, "llm.api_key": "k", **overrides}
        )
        trace = Trace(question=question, mode="agentic")
        ctx = RunContext(
            settings,
            retriever=None,
            llm=make_llm(settings, embedder, service.calibration(settings)),
            trace=trace,
        )
        kept = steps.decompose(ctx, question)
    (step,) = trace.steps
    return kept, step, stub


def test_step_keeps_a_good_decomposition_with_one_model_call(embedder):
    kept, step, stub = run_decompose(embedder, ["What is A?", "What is B?"])
    assert kept == ["What is A?", "What is B?"]
    assert step.decision == "2 sub-questions" and step.llm_calls == 1
    assert step.threshold == {"min_sub_questions": 2, "max_sub_questions": 4}
    assert "2 to 4 simpler sub-questions" in stub.prompts()[0]


def test_step_falls_back_to_the_question_when_the_model_gives_one_part(embedder):
    kept, step, _ = run_decompose(embedder, ["What is A?"])
    assert kept == ["Q about A and B?"]
    assert step.decision.startswith("fallback: 1 distinct sub-question(s), fewer than 2")
    assert step.details["proposed"] == [{"#": 1, "sub_question": "What is A?", "status": "kept"}]


def test_step_trims_five_parts_to_the_maximum(embedder):
    five = [f"What is part {n}?" for n in range(1, 6)]
    kept, step, _ = run_decompose(embedder, five)
    assert kept == five[:4]
    assert step.scores == {"proposed": 5, "kept": 4}
    assert step.details["proposed"][4]["status"] == "over max_sub_questions 4: dropped"
    kept, _, _ = run_decompose(embedder, five, **{"agentic.max_sub_questions": 3})
    assert kept == five[:3]


def test_step_falls_back_on_a_reply_that_is_not_json(embedder):
    kept, step, _ = run_decompose(embedder, "Sure! Here are some sub-questions: A, B")
    assert kept == ["Q about A and B?"]
    assert step.decision.startswith("fallback")
    assert any("not valid JSON" in note for note in step.notes)


def test_step_accepts_fenced_json_and_removes_duplicates(embedder):
    reply = '```json\n["What is A?", "what is  a", "What is B?", "What is A?"]\n```'
    kept, step, _ = run_decompose(embedder, reply)
    assert kept == ["What is A?", "What is B?"]
    statuses = [row["status"] for row in step.details["proposed"]]
    assert statuses == ["kept", "duplicate of 1: dropped", "kept", "duplicate of 1: dropped"]
    # Duplicates that leave fewer than the minimum fall back too.
    kept, step, _ = run_decompose(embedder, ["What is A?", "What is A ?"])
    assert kept == ["Q about A and B?"] and step.decision.startswith("fallback")
