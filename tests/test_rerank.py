"""The rerank stage with a real cross-encoder (tests/support/rerankers.py: the bundled
encoder under a fixed random head, loaded by sentence-transformers): the order ragcli
returns is the one CrossEncoder computes on its own, in every mode, in search and in
eval; `score` stays the cosine; a reranker that cannot run is skipped with one line and
the fused order answers; the llm reranker's calls are budgeted and traced."""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from ragcli import service
from ragcli.cli import app
from ragcli.config import load_settings
from ragcli.errors import ConfigError
from ragcli.models import SearchResult
from ragcli.pipeline.modes.registry import AUTO, MODE_NAMES
from ragcli.trace.recorder import Trace
from tests.support.common import settings_for
from tests.support.rerankers import cross_encoder_scores
from tests.support.stubs import OpenAIStub

QUESTION = "How long do I have to ask for a refund of an annual plan?"


def rerank_settings(store: Path, folder: Path, **more):
    return settings_for(
        store,
        **{"retrieval.rerank.provider": "cross-encoder", "retrieval.rerank.model": str(folder)},
        **more,
    )


def saved(settings, trace_id: str) -> Trace:
    trace = service.saved_trace(settings, trace_id)
    assert trace is not None
    return trace


def steps_named(trace: Trace, name: str):
    return [s for s in trace.steps if s.name == name]


# -- settings ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("retrieval:\n  rerank:\n    provider: engine\n", "provider engine needs"),
        ("retrieval:\n  rerank:\n    provider: cross-encoder\n", "needs retrieval.rerank.model"),
        ("retrieval:\n  rerank:\n    provider: cohere\n", "retrieval.rerank.provider"),
        ("retrieval:\n  rerank:\n    candidates: 0\n", "retrieval.rerank.candidates"),
        ("retrieval:\n  rerank:\n    url: gpu-box:7997\n", "url must start with http"),
        ("retrieval:\n  rerank:\n    modle: x\n", "retrieval.rerank.modle: unknown key"),
    ],
)
def test_a_bad_rerank_setting_is_one_line_naming_it_and_the_file(tmp_path, text, expected):
    config = tmp_path / "config.yaml"
    config.write_text(text)
    with pytest.raises(ConfigError) as raised:
        load_settings(config, environ={})
    message = str(raised.value)
    assert expected in message and str(config) in message and "\n" not in message


def test_rerank_settings_come_from_the_environment_and_set_and_the_key_is_never_shown():
    env = {
        "RAGCLI_RETRIEVAL__RERANK__PROVIDER": "engine",
        "RAGCLI_RETRIEVAL__RERANK__URL": "http://127.0.0.1:7997/v1",
        "RAGCLI_RETRIEVAL__RERANK__MODEL": "bge-reranker-v2-m3",
        "RAGCLI_RERANK_API_KEY": "sk-rerank-secret",
    }
    settings = load_settings(None, {"retrieval.rerank.candidates": 50}, environ=env)
    rerank = settings.retrieval.rerank
    assert (rerank.provider, rerank.model, rerank.candidates) == (
        "engine",
        "bge-reranker-v2-m3",
        50,
    )
    assert rerank.api_key is not None and rerank.api_key.get_secret_value() == "sk-rerank-secret"
    assert "sk-rerank-secret" not in json.dumps(settings.redacted())
    assert settings.redacted()["retrieval"]["rerank"]["api_key"] == "***"
    assert "sk-rerank-secret" not in json.dumps(settings.thresholds(), default=str)
    # Missing its url, the error names the variable that chose the provider.
    del env["RAGCLI_RETRIEVAL__RERANK__URL"]
    with pytest.raises(ConfigError, match="RAGCLI_RETRIEVAL__RERANK__.*provider engine needs"):
        load_settings(None, environ=env)


def test_set_takes_a_nested_rerank_setting_and_refuses_a_bad_one():
    from ragcli.overrides import parse_assignments

    values = parse_assignments(["retrieval.rerank.provider=llm", "retrieval.rerank.candidates=8"])
    assert values == {"retrieval.rerank.provider": "llm", "retrieval.rerank.candidates": 8}
    assert load_settings(None, values, environ={}).retrieval.rerank.candidates == 8
    with pytest.raises(ConfigError, match="--set retrieval.rerank.top: unknown setting"):
        parse_assignments(["retrieval.rerank.top=3"])
    with pytest.raises(ConfigError, match="--set retrieval.rerank.candidates=none"):
        parse_assignments(["retrieval.rerank.candidates=none"])


# -- cross-encoder ----------------------------------------------------------------------


@pytest.mark.slow  # torch and the cross-encoder load
def test_ask_answers_from_the_cross_encoders_order_not_the_fused_one(
    sample_store, cross_encoder_folder
):
    settings = rerank_settings(sample_store, cross_encoder_folder)
    result = service.ask(settings, QUESTION, "standard")
    trace = saved(settings, result.trace_id)
    retrieve, rerank = steps_named(trace, "retrieve")[0], steps_named(trace, "rerank")[0]
    candidates = retrieve.details["chunks"]
    assert len(candidates) == 30 and retrieve.inputs["candidates"] == 30
    texts = {c.chunk_id: c.content for c in result.sources}
    # The candidates' texts, from the store, scored by sentence-transformers directly.
    store = service.vector_store(settings)
    got = store.collection("docs").get(ids=[c["chunk_id"] for c in candidates])
    by_id = dict(zip(got["ids"], got["documents"], strict=True))
    ids = [c["chunk_id"] for c in candidates]
    expected = cross_encoder_scores(cross_encoder_folder, QUESTION, [by_id[i] for i in ids])
    best_first = sorted(range(len(ids)), key=lambda i: -expected[i])
    assert [c.chunk_id for c in result.sources] == [ids[i] for i in best_first[:5]]
    assert [c.chunk_id for c in result.sources] != ids[:5], "the fused order, not reranked"
    for source in result.sources:
        i = ids.index(source.chunk_id)
        assert source.component_scores["rerank"] == pytest.approx(expected[i], abs=1e-5)
        assert source.score == candidates[i]["score"]  # still the cosine the bands compare
        assert texts[source.chunk_id] == by_id[source.chunk_id]
    rows = rerank.details["candidates"]
    assert [r["after"] for r in rows] == list(range(1, 31))
    assert sorted(r["before"] for r in rows) == list(range(1, 31))
    assert sum(r["kept"] for r in rows) == 5
    assert rerank.decision.startswith("reordered 30 candidates, kept 5")


@pytest.mark.slow
@pytest.mark.parametrize("mode", [*MODE_NAMES, AUTO])
def test_every_mode_reranks_what_it_retrieves_from_the_documents(
    sample_store, cross_encoder_folder, mode
):
    settings = rerank_settings(sample_store, cross_encoder_folder)
    result = service.ask(settings, "How do I reset my password?", mode)
    trace = saved(settings, result.trace_id)
    reranked = len(steps_named(trace, "rerank"))
    document_retrievals = [
        s for s in steps_named(trace, "retrieve") if s.inputs.get("collection") == "docs"
    ]
    if mode == "agentic":
        assert reranked == len(result.agentic_details.sub_questions) >= 1
    else:
        assert reranked == len(document_retrievals) >= 1, [s.name for s in trace.steps]
    for step in steps_named(trace, "rerank"):
        assert not step.details.get("skipped")
    documents = [s for s in result.sources if not s.is_web and s.metadata.file_type != "qna"]
    assert documents or mode == "tos"  # tos may answer from its FAQ, which is not reranked
    assert all("rerank" in s.component_scores for s in documents)


@pytest.mark.slow  # torch and the cross-encoder load
def test_search_returns_the_reranked_order_with_its_scores(sample_store, cross_encoder_folder):
    settings = rerank_settings(sample_store, cross_encoder_folder)
    result = service.search(settings, "refund annual plan", top_k=4)
    assert result.rerank is not None and result.rerank.candidates == 30
    assert result.rerank.reranker == f"cross-encoder {cross_encoder_folder}"
    assert result.rerank.skipped is None
    scores = [hit.rerank for hit in result.results]
    assert all(s is not None for s in scores) and scores == sorted(scores, reverse=True)
    expected = cross_encoder_scores(
        cross_encoder_folder, "refund annual plan", [h.text for h in result.results]
    )
    assert scores == pytest.approx(expected, abs=1e-5)
    data = result.to_json_dict()
    jsonschema.validate(data, SearchResult.dumped_schema())
    assert data["rerank"]["reranker"].startswith("cross-encoder")


def test_a_model_not_on_this_machine_is_skipped_in_one_line_and_the_fused_order_answers(
    sample_store, caplog
):
    settings = settings_for(
        sample_store,
        **{
            "retrieval.rerank.provider": "cross-encoder",
            "retrieval.rerank.model": "example-org/reranker-not-downloaded",
        },
    )
    plain = service.ask(settings_for(sample_store), QUESTION, "standard")
    with caplog.at_level(logging.WARNING, logger="ragcli"):
        result = service.ask(settings, QUESTION, "standard")
    assert result.answer == plain.answer
    assert [s.chunk_id for s in result.sources] == [s.chunk_id for s in plain.sources]
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1, warnings
    assert "reranker skipped" in warnings[0] and "retrieval.rerank.model" in warnings[0]
    assert "hf download example-org/reranker-not-downloaded" in warnings[0]
    step = steps_named(saved(settings, result.trace_id), "rerank")[0]
    assert step.decision.startswith("skipped: retrieval.rerank.model")
    assert "rerank" not in result.sources[0].component_scores


@pytest.mark.slow  # torch and the cross-encoder load
def test_eval_scores_the_reranker_against_the_same_run_without_it(tmp_path, cross_encoder_folder):
    from tests.support.tiny_beir import CORPUS, NDCG_Q2, write_dataset

    data = tmp_path / "tiny"
    write_dataset(data)
    spec = f"cross-encoder:{cross_encoder_folder}"
    args = ["eval", str(data), "--store", str(tmp_path / "store"), "-r", "bm25", "--rerank", spec]
    run = CliRunner().invoke(app, [*args, "--json"])
    assert run.exit_code == 0, run.output
    report = json.loads(run.output)
    assert set(report["results"]) == {"bm25", "bm25+rerank"}
    # q1 ("zebra") retrieves d2 then d1 (relevant); the reranker decides which comes first.
    texts = {d["_id"]: d["text"] for d in CORPUS}
    d1, d2 = cross_encoder_scores(cross_encoder_folder, "zebra", [texts["d1"], texts["d2"]])
    q1 = 1.0 if d1 > d2 else 1 / math.log2(3)
    assert report["results"]["bm25+rerank"]["nDCG@10"] == pytest.approx((q1 + NDCG_Q2) / 2)
    delta = report["rerank"]["delta"]["bm25"]["nDCG@10"]
    assert delta == pytest.approx(
        report["results"]["bm25+rerank"]["nDCG@10"] - report["results"]["bm25"]["nDCG@10"]
    )
    assert report["rerank"]["reranker"] == f"cross-encoder {cross_encoder_folder}"
    shown = CliRunner().invoke(app, args, env={"COLUMNS": "100"})
    assert shown.exit_code == 0, shown.output
    words = " ".join(shown.output.split())
    assert "bm25+rerank" in words and "(30 candidates): change" in words
    assert f"Reranked by cross-encoder {cross_encoder_folder}" in words


def test_eval_refuses_a_reranker_it_cannot_measure(tmp_path):
    from ragcli.errors import RagcliError
    from tests.support.tiny_beir import write_dataset

    data = tmp_path / "tiny"
    write_dataset(data)
    settings = settings_for(tmp_path / "store")
    with pytest.raises(RagcliError, match="--rerank engine: provider engine needs"):
        service.eval_dataset(settings, data, ["bm25"], rerank="engine")
    with pytest.raises(RagcliError, match="the reranker failed: retrieval.rerank.model"):
        service.eval_dataset(settings, data, ["bm25"], rerank="cross-encoder:org/not-here")


@pytest.mark.slow
def test_eval_of_labelled_questions_runs_each_mode_with_and_without_the_reranker(
    sample_store, tmp_path, cross_encoder_folder
):
    from tests.support.labelled_questions import QUESTIONS

    path = tmp_path / "questions.yaml"
    path.write_text(QUESTIONS)
    settings = settings_for(sample_store)
    report = service.eval_questions(
        settings, path, ["standard"], rerank=f"cross-encoder:{cross_encoder_folder}"
    )
    assert [s.mode for s in report.scores] == ["standard", "standard+rerank"]
    traces = service.trace_store(settings)
    runs = [traces.get(row["id"]) for row in traces.recent(limit=100)]
    reranked = [t for t in runs if t is not None and steps_named(t, "rerank")]
    questions = report.scores[0].questions
    assert len(runs) == 2 * questions and len(reranked) == questions


# -- llm --------------------------------------------------------------------------------


def llm_settings(store: Path, stub: OpenAIStub, **more):
    return settings_for(
        store,
        **{
            "llm.provider": "openai",
            "llm.base_url": stub.base_url,
            "llm.model": "gpt-4o-mini",
            "retrieval.rerank.provider": "llm",
            "support.enabled": False,
        },
        **more,
    )


def scores_by_length(body: dict) -> str:
    """The stub model's judgement: longer passages score higher; other roles answer."""
    prompt = body["messages"][-1]["content"]
    if '{"scores"' not in prompt:
        return "An answer [1]."
    passages = prompt.split('<source id="')[1:]
    lengths = [len(p) for p in passages]
    top = max(lengths)
    return json.dumps(
        {"scores": [{"id": n, "score": 10 * ln / top} for n, ln in enumerate(lengths, 1)]}
    )


def test_the_llm_reranker_spends_counted_traced_calls(sample_store):
    with OpenAIStub(default=scores_by_length) as stub:
        settings = llm_settings(sample_store, stub)
        result = service.ask(settings, QUESTION, "standard")
        rerank_prompts = [p for p in stub.prompts() if '{"scores"' in p]
    step = steps_named(saved(settings, result.trace_id), "rerank")[0]
    assert len(rerank_prompts) == step.llm_calls == 3  # 30 candidates, 10 a call
    assert step.prompt_tokens > 0 and step.completion_tokens > 0
    assert result.usage.llm_calls == 4  # the rerank's three and the answer
    trace = saved(settings, result.trace_id)
    assert service.cost_of(settings, trace.backend, trace.usage()) > 0
    scores = [s.component_scores["rerank"] for s in result.sources]
    assert scores == sorted(scores, reverse=True) and not step.details.get("skipped")


def test_the_llm_reranker_is_skipped_when_the_budget_lacks_its_calls(sample_store, caplog):
    with OpenAIStub(default=scores_by_length) as stub:
        settings = llm_settings(sample_store, stub, **{"limits.max_llm_calls": 3})
        with caplog.at_level(logging.WARNING, logger="ragcli"):
            result = service.ask(settings, QUESTION, "standard")
        assert not [p for p in stub.prompts() if '{"scores"' in p]
    assert result.answer == "An answer [1]."
    step = steps_named(saved(settings, result.trace_id), "rerank")[0]
    assert "3 model calls, more than limits.max_llm_calls" in step.decision
    assert len([r for r in caplog.records if r.levelno >= logging.WARNING]) == 1


def test_an_unusable_judgement_keeps_the_fused_order_and_is_said_once(sample_store, caplog):
    with OpenAIStub(default=lambda body: "An answer [1].") as stub:
        settings = llm_settings(sample_store, stub, **{"retrieval.rerank.llm_window": 30})
        with caplog.at_level(logging.WARNING, logger="ragcli"):
            result = service.ask(settings, QUESTION, "reflect")
    trace = saved(settings, result.trace_id)
    reranks = steps_named(trace, "rerank")
    assert reranks and all(s.decision.startswith("skipped") for s in reranks)
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "no usable relevance score" in warnings[0], warnings
    fused = [c["chunk_id"] for c in steps_named(trace, "retrieve")[0].details["chunks"][:5]]
    assert [s.chunk_id for s in result.sources][: len(fused)] == fused[: len(result.sources)]


def test_the_llm_reranker_without_a_model_says_what_to_set(sample_store, caplog):
    settings = settings_for(sample_store, **{"retrieval.rerank.provider": "llm"})
    with caplog.at_level(logging.WARNING, logger="ragcli"):
        result = service.ask(settings, QUESTION, "standard")
    assert result.answer
    (warning,) = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert "llm.base_url or OPENAI_API_KEY" in warning
