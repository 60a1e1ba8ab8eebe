"""crag, reflect and both end to end on the offline extractive backend (no model calls),
and the labelled-set check that aggregate relevance means what the thresholds say."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ragcli import service
from ragcli.llm import make_llm
from ragcli.pipeline import steps
from ragcli.pipeline.context import RunContext
from ragcli.pipeline.modes.crag import steps as crag_steps
from ragcli.retrieval.retriever import Retriever
from ragcli.trace.recorder import Trace
from tests.support.common import settings_for
from tests.support.stubs import TavilyStub, WebHit

LABELLED = yaml.safe_load((Path(__file__).parent / "data" / "labelled_questions.yaml").read_text())
ANSWERABLE = "Which port do the desktop apps use for their live sync connection?"
OFF_TOPIC = "What is the boiling point of mercury in kelvin?"


@pytest.mark.parametrize("mode", ["crag", "reflect", "both"])
def test_answerable_question_is_answered_offline(sample_store, mode):
    settings = settings_for(sample_store)
    result = service.ask(settings, ANSWERABLE, mode=mode)
    assert result.answer_type == "answer", (result.answer, result.notes)
    assert "7421" in result.answer
    assert result.usage.llm_calls == 0 and result.backend.llm == "extractive"
    if mode != "reflect":
        assert result.crag_details.evaluation.relevance_label == "relevant"
    if mode != "crag":
        assert result.reflection_details.iterations == 1
        assert result.reflection_details.history[0].action == "approved"


@pytest.mark.parametrize("mode", ["crag", "both"])
def test_off_topic_question_is_not_covered_offline(sample_store, mode):
    settings = settings_for(sample_store)
    result = service.ask(settings, OFF_TOPIC, mode=mode)
    assert result.answer_type == "not_covered"
    assert result.answer.startswith("The documents do not cover this question")
    assert "TAVILY_API_KEY" in result.answer and result.sources


def test_extractive_reflection_out_of_rounds_warns(sample_store):
    # A bar no extractive answer reaches (a quoted answer is accepted only when it is this
    # relevant): every round is refined, then rounds run out.
    settings = settings_for(
        sample_store, **{"reflect.min_score": 0.99, "llm.answer_min_relevance": 0.999}
    )
    question = LABELLED["answerable"][0]["question"]
    result = service.ask(settings, question, mode="reflect")
    details = result.reflection_details
    assert result.answer_type == "unverified" and details.iterations == 2
    warning = f"not verified: {details.reflection.reflection_score:.2f} < 0.99"
    assert warning in result.notes


def test_extractive_crag_answers_an_off_topic_question_from_the_web(sample_store):
    hits = [
        WebHit("Mercury", "https://example.org/mercury", "Mercury boils at 629.88 kelvin."),
        WebHit("Cats", "https://example.org/cats", "Cats sleep for most of the day."),
    ]
    with TavilyStub(hits) as web:
        settings = settings_for(
            sample_store, **{"web.api_key": "tvly-test", "web.base_url": web.url}
        )
        result = service.ask(settings, OFF_TOPIC, mode="crag")
    assert result.crag_details.route == "web"
    assert result.answer_type == "answer"
    assert "629.88 kelvin" in result.answer
    assert [s.metadata.source_file for s in result.sources] == ["https://example.org/mercury"]
    used = {r.url: r.used for r in result.crag_details.web_results}
    assert used == {"https://example.org/mercury": True, "https://example.org/cats": False}


# Measured with the bundled calibration (ragcli/data/calibration.json) on 39 answerable and
# 31 unanswerable questions: 28/39 answerable aggregate >= 0.7, 25/31 unanswerable < 0.4,
# accuracy 0.76 (0.60 before the BM25 features). Raise this floor when calibration improves.
CURRENT_CALIBRATION_ACCURACY_FLOOR = 0.74


@pytest.mark.slow
def test_labelled_set_aggregate_relevance_accuracy(sample_store_master):
    settings = settings_for(sample_store_master)
    embedder = service.embedder(settings)
    lexical = service.lexical_indexes(settings)
    retriever = Retriever(service.vector_store(settings), embedder, "docs", lexical=lexical)
    # The extractive backend weighs query terms by the retriever's BM25 statistics.
    llm = make_llm(settings, embedder, service.calibration(settings), service.term_stats(retriever))
    trace = Trace(question="labelled set", mode="crag")
    ctx = RunContext(settings, retriever, llm, trace)
    crag = settings.crag

    def aggregate(question: str) -> float:
        _, evaluation = crag_steps.grade(ctx, question, steps.retrieve(ctx, question))
        return evaluation.relevance_score

    answerable = [aggregate(c["question"]) for c in LABELLED["answerable"]]
    unanswerable = [aggregate(c["question"]) for c in LABELLED["unanswerable"]]
    assert len(answerable) >= 20 and len(unanswerable) >= 20
    hits = sum(s >= crag.relevant_threshold for s in answerable)
    rejections = sum(s < crag.ambiguous_threshold for s in unanswerable)
    accuracy = (hits + rejections) / (len(answerable) + len(unanswerable))
    print(
        f"\nlabelled set: answerable >= {crag.relevant_threshold}: {hits}/{len(answerable)}, "
        f"unanswerable < {crag.ambiguous_threshold}: {rejections}/{len(unanswerable)}, "
        f"accuracy {accuracy:.2f}"
    )
    assert accuracy >= CURRENT_CALIBRATION_ACCURACY_FLOOR
