"""Query expansion on the sample corpus: PRF (retrieval.expand: prf) and HyDE
(retrieval.hyde) with the offline backend and with a model behind the OpenAI protocol (a
stub: its replies are scripted, so the passage and the faults are known). HyDE against a
real model: tests/test_hyde_server.py."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from ragcli import service
from ragcli.cli import app
from ragcli.llm import prompts
from ragcli.pipeline import hyde
from tests.support.common import SAMPLE, settings_for
from tests.support.stubs import Fault, OpenAIStub

runner = CliRunner()
QUESTION = "Which cipher is used when I password-protect a backup archive?"
# Worded like nothing in the corpus, so only a passage can say what it is about.
OPAQUE = "What does the thing I mentioned earlier use?"
PASSAGE = "Backup archives made with --encrypt are protected with AES-256-GCM and a passphrase."


def step(settings, result, name):
    trace = service.find_trace(settings, result.trace_id)
    return [s for s in trace.steps if s.name == name]


def cosines(settings, query):
    """Each chunk's score in a plain search: its cosine with the query."""
    found = service.search(settings, query, top_k=30, mode="dense")
    return {hit.chunk_id: hit.score for hit in found.results}


def test_prf_moves_the_dense_query_and_scores_stay_cosines_with_the_question(sample_store):
    plain = settings_for(sample_store, **{"llm.provider": "extractive"})
    settings = settings_for(
        sample_store, **{"llm.provider": "extractive", "retrieval.expand": "prf"}
    )
    result = service.ask(settings, QUESTION, mode="standard")
    retrieve = step(settings, result, "retrieve")[0]
    feedback = retrieve.details["expansion"]
    assert [row["feedback"] for row in feedback] == [1, 2, 3, 4, 5]
    assert {row["method"] for row in feedback} == {"prf"}
    assert feedback[0]["source_file"].endswith("backups_and_restore.md")
    scale = cosines(plain, QUESTION)
    for source in result.sources:
        assert abs(source.score - scale[source.chunk_id]) < 1e-3  # the thresholds' scale
        assert source.component_scores["dense_expanded"] != source.score
    assert "backups_and_restore" in result.sources[0].metadata.source_file


def test_prf_leaves_faq_matching_alone(sample_store):
    settings = settings_for(sample_store, **{"retrieval.expand": "prf"})
    result = service.ask(settings, "How old must I be to use Driftwood?", mode="tos")
    assert result.tos_details.answer_type == "qna_answer"
    assert "expansion" not in step(settings, result, "retrieve")[0].details


def test_hyde_offline_says_so_once_and_retrieves_as_usual(sample_store, caplog):
    plain = settings_for(sample_store, **{"llm.provider": "extractive"})
    settings = settings_for(sample_store, **{"llm.provider": "extractive", "retrieval.hyde": True})
    hyde._said_no_model = False
    with caplog.at_level(logging.WARNING, logger="ragcli"):
        first = service.ask(settings, QUESTION, mode="standard")
        second = service.ask(settings, QUESTION, mode="standard")
    warned = [r.message for r in caplog.records if "retrieval.hyde" in r.message]
    assert warned == [hyde.NO_MODEL]  # one line, once per process
    (skipped,) = step(settings, second, "hyde")
    assert skipped.decision == "skipped: no model" and skipped.notes == [hyde.NO_MODEL]
    usual = service.ask(plain, QUESTION, mode="standard")
    assert [s.chunk_id for s in first.sources] == [s.chunk_id for s in usual.sources]


def model_settings(store, stub, **extra):
    values = {"llm.base_url": stub.base_url, "llm.api_key": "sk-test", "retrieval.hyde": True}
    return settings_for(store, **{**values, **extra})


def test_hyde_searches_with_the_models_passage_and_traces_it(sample_store):
    with OpenAIStub() as stub:
        stub.enqueue(PASSAGE, "AES-256-GCM [1].")
        settings = model_settings(sample_store, stub)
        result = service.ask(settings, OPAQUE, mode="standard")
    first_request = stub.requests[0]
    assert first_request["messages"][0]["content"] == prompts.HYDE_SYSTEM
    assert OPAQUE in first_request["messages"][1]["content"]
    (written,) = step(settings, result, "hyde")
    row = written.details["passage"][0]
    assert row["passage"] == PASSAGE
    assert written.llm_calls == 1 and row["completion_tokens"] == len(PASSAGE.split())
    assert (
        row["cost_usd"]
        == f"{(row['prompt_tokens'] * 0.15 + row['completion_tokens'] * 0.6) / 1e6:.6f}"
    )
    assert "backups_and_restore" in result.sources[0].metadata.source_file
    # Ranked by the passage, scored by the question: the thresholds keep their scale.
    scale = cosines(settings_for(sample_store), OPAQUE)
    assert all(
        abs(s.score - scale[s.chunk_id]) < 1e-3 for s in result.sources if s.chunk_id in scale
    )
    assert result.usage.llm_calls == 2


def test_hyde_never_takes_the_answers_model_call(sample_store):
    with OpenAIStub() as stub:
        stub.enqueue("AES-256-GCM [1].")
        settings = model_settings(sample_store, stub, **{"limits.max_llm_calls": 1})
        result = service.ask(settings, QUESTION, mode="standard")
    (skipped,) = step(settings, result, "hyde")
    assert skipped.decision == "skipped: --max-llm-calls 1 reached"
    assert result.answer == "AES-256-GCM [1]." and len(stub.requests) == 1


def test_a_model_that_fails_to_write_the_passage_leaves_the_search_as_usual(sample_store):
    with OpenAIStub() as stub:
        stub.enqueue(Fault(500), Fault(500), Fault(500), "AES-256-GCM [1].")
        settings = model_settings(sample_store, stub)
        result = service.ask(settings, QUESTION, mode="standard")
    (skipped,) = step(settings, result, "hyde")
    assert skipped.decision == "skipped: the model failed"
    assert "HTTP 500" in skipped.notes[0]
    assert result.answer == "AES-256-GCM [1]."
    assert "backups_and_restore" in result.sources[0].metadata.source_file


def test_a_faq_match_searches_without_a_passage(sample_store):
    """tos matches FAQ questions to questions: a passage would only blur that."""
    with OpenAIStub() as stub:
        settings = model_settings(sample_store, stub)
        result = service.ask(settings, "How old must I be to use Driftwood?", mode="tos")
    assert result.tos_details.answer_type == "qna_answer" and stub.requests == []
    assert step(settings, result, "hyde") == []


def test_crags_rewritten_query_gets_its_own_passage(sample_store):
    """The design puts expansion in every retrieval: crag's rewrite searches with a passage
    written for the rewritten query, not the first one's."""
    graded: list[int] = []

    def reply(body):
        system, prompt = body["messages"][0]["content"], body["messages"][-1]["content"]
        if system == prompts.HYDE_SYSTEM:
            asked = prompt.split("Question: ")[1].split("\nPassage:")[0].strip()
            return f"A passage about: {asked}"
        if prompt.startswith("Question:") and "Grade each source" in prompt:
            graded.append(1)
            if len(graded) == 1:  # no source answers, several come close: rewrite
                grades = [{"id": i, "score": 0.5, "label": "ambiguous"} for i in range(1, 6)]
                return {"grades": grades, "better_query": "backup archive encryption cipher"}
            grades = [{"id": i, "score": 0.9, "label": "correct"} for i in range(1, 6)]
            return {"grades": grades, "better_query": ""}
        return "AES-256-GCM [1]."

    with OpenAIStub(default=reply) as stub:
        settings = model_settings(sample_store, stub, **{"web.provider": "none"})
        result = service.ask(settings, QUESTION, mode="crag")
    written = step(settings, result, "hyde")
    assert [s.inputs["query"] for s in written] == [QUESTION, "backup archive encryption cipher"]
    assert written[1].decision.startswith("passage"), (written[1].decision, written[1].notes)
    assert written[1].details["passage"][0]["passage"] == (
        "A passage about: backup archive encryption cipher"
    )
    assert result.crag_details.rewrites[0].query == "backup archive encryption cipher"


@pytest.mark.slow
def test_ask_hyde_offline_is_one_warning_line_and_an_answer(sample_store):
    """A subprocess, so logging is set up as for a real run."""
    args = ["ask", QUESTION, "--hyde", "--llm", "extractive", "--store", str(sample_store)]
    run = subprocess.run(
        [sys.executable, "-m", "ragcli", *args],
        capture_output=True,
        text=True,
        cwd=SAMPLE.parent,
        env={**os.environ, "PYTHONPATH": str(SAMPLE.parent), "NO_COLOR": "1"},
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr.strip().splitlines() == [f"warning: {hyde.NO_MODEL}"]
    assert "AES-256-GCM" in run.stdout


def test_expand_flags_reach_the_search(sample_store):
    store = str(sample_store)
    shown = runner.invoke(app, ["ask", QUESTION, "--expand", "prf", "--store", store, "--json"])
    assert shown.exit_code == 0, shown.output
    settings = settings_for(sample_store)
    trace = service.find_trace(settings, json.loads(shown.output)["trace_id"])
    assert "expansion" in next(s for s in trace.steps if s.name == "retrieve").details
    found = runner.invoke(app, ["search", QUESTION, "--expand", "prf", "--store", store, "--json"])
    assert found.exit_code == 0 and json.loads(found.output)["results"]
    wrong = runner.invoke(app, ["search", QUESTION, "--expand", "rm3", "--store", store])
    assert wrong.exit_code == 2
    assert "--expand: retrieval.expand: Input should be 'none' or 'prf'" in wrong.output
