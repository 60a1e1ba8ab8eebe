"""reflect and both modes, every branch, with the openai backend through the real
`openai` client and Tavily through `tavily-python`, against stubs on 127.0.0.1."""

from __future__ import annotations

import logging

import pytest
from typer.testing import CliRunner

from ragcli import service
from ragcli.cli import app
from tests.support.crag import HITS, QUESTION, grades, settings_with, steps_named
from tests.support.stubs import OpenAIStub, TavilyStub


def verdict(score: float, grounded: bool = True, regenerate: bool | None = None, reason: str = ""):
    return {
        "answer_grounded": grounded,
        "hallucination_detected": not grounded,
        "reflection_score": score,
        "sources_cited": ["1"],
        "reflection_reason": reason or f"stub verdict {score}",
        "needs_regeneration": score < 0.8 if regenerate is None else regenerate,
    }


def test_approved_at_once(sample_store):
    with OpenAIStub() as llm:
        llm.enqueue("Business costs $12 per user [1].", verdict(0.9))
        settings = settings_with(sample_store, llm)
        result = service.ask(settings, QUESTION, mode="reflect")
    assert result.answer == "Business costs $12 per user [1]." and result.answer_type == "answer"
    details = result.reflection_details
    assert details.iterations == 1 and details.approved is True
    assert details.final_answer == result.answer
    assert [h.model_dump() for h in details.history] == [
        {
            "iteration": 1,
            "query": QUESTION,
            "score": 0.9,
            "grounded": True,
            "hallucination": False,
            "reason": "stub verdict 0.9",
            "action": "approved",
            # The sentence-support check beside the model's verdict: its one sentence is
            # backed by source [1], the price table.
            "support": 1.0,
        }
    ]
    assert details.reflection.sources_cited == ["1"]
    assert result.notes == [] and result.usage.llm_calls == 2
    assert "Answer to check" in llm.prompts()[1] and result.answer in llm.prompts()[1]
    reflect_step = steps_named(settings, result, "reflect")[0]
    assert reflect_step.scores == {"reflection": 0.9, "support": 1.0}  # both verdicts


def test_reflect_and_the_final_marks_are_one_judgement(sample_store):
    """The support check judges an answer once in a run: the share reflect records beside
    the model's verdict, its round's history and the final answer's marks are the same
    judgement, and the final support step says where it was made."""
    reply = (
        "A new annual subscription cancelled within 30 days of purchase is refunded in full [2]. "
        "Monthly plans are refunded pro rata for the unused days [1]. "
        "Refunds reach your card within two business days."
    )
    with OpenAIStub() as llm:
        llm.enqueue(reply, verdict(0.9))
        settings = settings_with(sample_store, llm)
        question = "How do refunds work for annual and monthly plans?"
        result = service.ask(settings, question, mode="reflect")
    # One sentence backed; one cites a source that does not say it; one cites nothing.
    assert [(s.supported, s.uncited) for s in result.support] == [
        (True, False),
        (False, False),
        (False, True),
    ]
    share = round(1 / 3, 3)
    reflect_step = steps_named(settings, result, "reflect")[0]
    assert reflect_step.scores == {"reflection": 0.9, "support": share}
    assert result.reflection_details.history[0].support == share
    final = steps_named(settings, result, "support")[0]
    assert final.details["judged_in"] == "reflect (round 1)"
    assert final.decision == "2 of 3 sentences marked"


def test_refine_then_approve_retrieves_fresh_chunks(sample_store):
    refined = "Business edition annual price per seat"
    with OpenAIStub() as llm:
        llm.enqueue(
            "A vague answer [1].",
            verdict(0.5, reason="the answer does not give a price"),
            refined,
            "Business costs $12 per user per month billed annually [1].",
            verdict(0.92),
        )
        settings = settings_with(sample_store, llm)
        result = service.ask(settings, QUESTION, mode="reflect")
    assert result.answer.startswith("Business costs $12") and result.answer_type == "answer"
    assert "the answer does not give a price" in llm.prompts()[2]  # refined from the feedback
    history = result.reflection_details.history
    assert [h.action for h in history] == ["refine", "approved"]
    assert [h.query for h in history] == [QUESTION, refined]
    retrievals = steps_named(settings, result, "retrieve")
    assert [s.inputs["query"] for s in retrievals] == [QUESTION, refined]
    assert result.usage.llm_calls == 5


def test_rounds_exhausted_returns_the_best_answer_with_a_warning(sample_store):
    with OpenAIStub() as llm:
        llm.enqueue(
            "First answer [1].", verdict(0.55), "better query", "Second answer [1].", verdict(0.4)
        )
        settings = settings_with(sample_store, llm)
        result = service.ask(settings, QUESTION, mode="reflect")
    assert result.answer == "First answer [1]."  # the best-scoring, not the last
    assert result.answer_type == "unverified"
    assert "not verified: 0.55 < 0.80" in result.notes
    details = result.reflection_details
    assert details.iterations == 2 and details.approved is False
    assert details.chosen_iteration == 1
    assert [h.action for h in details.history] == ["refine", "out of rounds"]
    assert details.reflection.reflection_score == 0.55
    assert result.usage.llm_calls == 5  # max_retries 2: two rounds, one refinement


def test_low_score_without_regeneration_stops_unverified(sample_store):
    with OpenAIStub() as llm:
        llm.enqueue("An answer [1].", verdict(0.6, regenerate=False))
        settings = settings_with(sample_store, llm)
        result = service.ask(settings, QUESTION, mode="reflect")
    assert result.answer_type == "unverified" and "not verified: 0.60 < 0.80" in result.notes
    assert result.usage.llm_calls == 2


def test_malformed_reflection_json_falls_back_and_is_recorded(sample_store):
    with OpenAIStub() as llm:
        llm.enqueue("Some answer [1].", '{"answer_grounded": true, "reflection_sc')
        settings = settings_with(sample_store, llm, **{"reflect.max_retries": 1})
        result = service.ask(settings, QUESTION, mode="reflect")
    step = steps_named(settings, result, "reflect")[0]
    assert any("not valid JSON" in n and "extractive fallback" in n for n in step.notes)
    # "Some answer" is not in the sources: the extractive check cannot approve it.
    assert result.answer_type == "unverified"
    assert result.reflection_details.history[0].grounded is False


def test_max_llm_calls_stops_the_loop_with_the_best_answer_and_says_why(sample_store):
    with OpenAIStub() as llm:
        llm.enqueue("First answer [1].", verdict(0.5))
        settings = settings_with(sample_store, llm, **{"limits.max_llm_calls": 3})
        result = service.ask(settings, QUESTION, mode="reflect")
    assert result.answer == "First answer [1]." and result.answer_type == "unverified"
    reason = "stopped before reflection round 2: --max-llm-calls 3 reached"
    assert reason in result.notes
    assert result.reflection_details.history[0].action == "stopped (limit)"
    assert len(llm.requests) == 2
    assert steps_named(settings, result, "limit")[0].inputs["reason"] == reason


def test_max_iterations_flag_stops_after_one_round(sample_store):
    with OpenAIStub() as llm:
        llm.enqueue("First answer [1].", verdict(0.5))
        store = str(sample_store)
        env = {"OPENAI_BASE_URL": llm.base_url, "OPENAI_API_KEY": "sk-test"}
        run = CliRunner().invoke(
            app,
            ["ask", QUESTION, "--mode", "reflect", "--max-iterations", "1", "--store", store],
            env=env,
        )
    assert run.exit_code == 3, run.output  # unverified
    assert "not verified: 0.50 < 0.80" in run.output
    assert "--max-iterations 1 reached" in run.output
    assert "Reflection rounds" in run.output and len(llm.requests) == 2


def test_both_second_round_triggers_web_search(sample_store, caplog):
    refined = "Driftwood Business price 2026"
    with OpenAIStub() as llm, TavilyStub(HITS) as web:
        llm.enqueue(
            grades(0.9, 0.2, 0.1, 0.1, 0.1),  # CRAG: relevant, documents only
            "A vague answer [1].",
            verdict(0.5, reason="no price in the answer"),
            refined,
            grades(0.0, 0.0, 0.0, 0.0, 0.0),  # re-retrieval: irrelevant -> web
            grades(0.9, 0.8, 0.7),  # the web results
            "Business costs $15 a seat [1].",
            verdict(0.9),
        )
        settings = settings_with(sample_store, llm, web)
        with caplog.at_level(logging.INFO, logger="ragcli"):
            result = service.ask(settings, QUESTION, mode="both")
    assert result.answer == "Business costs $15 a seat [1]." and result.answer_type == "answer"
    # The re-retrieval searches the web with the refined query, not the first one again.
    assert len(web.requests) == 1 and web.requests[0]["query"] == refined
    assert all(s.is_web for s in result.sources) and len(result.sources) == 3
    crag = result.crag_details
    assert crag.route == "documents"  # the first CRAG pass
    assert crag.used_web_search is True
    assert crag.re_retrievals[0].route == "web"
    assert crag.re_retrievals[0].query == refined
    assert [r.chunk_id for r in crag.web_results] == [
        "web_search_0",
        "web_search_1",
        "web_search_2",
    ]
    assert [h.action for h in result.reflection_details.history] == ["refine", "approved"]
    assert result.usage.llm_calls == 8 and result.usage.web_searches == 1
    lines = [r.getMessage() for r in caplog.records]
    for expected in (
        "Mode=both: Using 1 chunks for Self-Reflective (0 from web search)",
        "CRAG Evaluation: relevant (score: 0.90)",
        "Self-Reflective iteration 1",
        "Reflection score: 0.50, Grounded: True",
        "CRAG Evaluation: irrelevant (score: 0.00)",
        "CRAG: Triggering web search",
        "Web search returned 3 results",
        "Mode=both: Using 3 chunks for Self-Reflective (3 from web search)",
        "Self-Reflective iteration 2",
        "Reflection score: 0.90, Grounded: True",
    ):
        assert expected in lines, expected


def test_both_irrelevant_without_web_is_not_covered_without_reflection(sample_store):
    with OpenAIStub() as llm:
        llm.enqueue(grades(0.1, 0.0, 0.0, 0.0, 0.0))
        settings = settings_with(sample_store, llm)
        result = service.ask(settings, "What is the boiling point of mercury?", mode="both")
    assert result.answer_type == "not_covered" and "TAVILY_API_KEY" in result.answer
    assert result.reflection_details is None and result.usage.llm_calls == 1


@pytest.mark.slow
def test_both_json_and_trace_tables_through_the_cli(sample_store):
    with OpenAIStub() as llm, TavilyStub(HITS) as web:
        replies = (
            grades(0.5, 0.2, 0.1, 0.1, 0.1),
            grades(0.9, 0.1, 0.8),
            "Ans [1].",
            verdict(0.85),
        )
        llm.enqueue(*replies)
        env = {
            "OPENAI_BASE_URL": llm.base_url,
            "OPENAI_API_KEY": "sk-test",
            "TAVILY_API_KEY": "tvly-test",
            "RAGCLI_WEB__BASE_URL": web.url,
        }
        store = str(sample_store)
        run = CliRunner().invoke(
            app, ["ask", QUESTION, "--mode", "both", "--store", store, "--json"], env=env
        )
        assert run.exit_code == 0, run.output
        import json

        data = json.loads(run.output)
        assert len(llm.requests) == 4  # grade, grade web results, generate, reflect
        llm.enqueue(*replies)
        shown = CliRunner().invoke(app, ["ask", QUESTION, "-m", "both", "--store", store], env=env)
    assert set(data["crag_details"]) >= {
        "used_web_search",
        "evaluation",
        "grades",
        "rewrites",
        "web_results",
    }
    assert set(data["crag_details"]["evaluation"]) == {
        "relevance_score",
        "relevance_label",
        "needs_web_search",
    }
    assert set(data["reflection_details"]) >= {
        "final_answer",
        "iterations",
        "history",
        "reflection",
    }
    assert set(data["reflection_details"]["history"][0]) == {
        "iteration",
        "query",
        "score",
        "grounded",
        "hallucination",
        "reason",
        "action",
    }
    assert data["backend"]["web"] == "tavily"
    for title in ("Chunk grades", "CRAG routing", "Web results", "Reflection rounds"):
        assert title in shown.output, title
    assert "0.85 vs 0.80" in shown.output
    trace = CliRunner().invoke(app, ["trace", data["trace_id"], "--store", store])
    assert trace.exit_code == 0
    for title in (
        "grade: grades",
        "grade: routing",
        "web_search: web_results",
        "grade_web: grades",
        "reflect: reflection",
        "Reflection rounds",
    ):
        assert title in trace.output, title


def test_both_relevant_approved_at_once_costs_three_calls(sample_store):
    with OpenAIStub() as llm, TavilyStub(HITS) as web:
        llm.enqueue(grades(0.9, 0.6, 0.1, 0.1, 0.1), "Business costs $12 [1].", verdict(0.95))
        settings = settings_with(sample_store, llm, web)
        result = service.ask(settings, QUESTION, mode="both")
    assert result.answer_type == "answer" and result.usage.llm_calls == 3
    assert web.requests == [] and len(result.sources) == 2
    assert result.crag_details.used_web_search is False
    assert result.reflection_details.iterations == 1
