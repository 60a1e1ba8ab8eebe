"""The llm reranker against a real answer model: llama.cpp's server with SmolLM2-135M
(tests/support/llama_server.py). The model's judgement is poor; what is checked is what a
user sees of a real model's replies: the rerank's calls made within the run's budget,
their tokens on the trace's `rerank` step, and an order that follows the scores the model
gave, or, where its reply was not the JSON asked for, the fused order with one warning
line and the trace saying why."""

from __future__ import annotations

import logging

import pytest

from ragcli import service
from tests.support.common import settings_for
from tests.support.llama_server import MODEL_NAME, installed

pytestmark = [
    pytest.mark.server,  # a real llama.cpp server
    pytest.mark.skipif(not installed(), reason="run scripts/install_llama.sh"),
]

QUESTION = "How long is the refund window for annual plans?"


def llm_settings(store, url: str, **more):
    values = {
        "llm.provider": "openai",
        "llm.base_url": url,
        "llm.model": MODEL_NAME,
        "llm.api_key": "sk-local",
        "llm.max_tokens": 200,
        "llm.timeout": 120,
        "retrieval.rerank.provider": "llm",
        "retrieval.rerank.candidates": 10,
        "retrieval.rerank.llm_window": 5,
        "support.enabled": False,
    }
    return settings_for(store, **(values | more))


@pytest.mark.parametrize("method", ["pointwise", "listwise"])
def test_the_answer_model_reranks_within_the_budget_and_its_tokens_are_traced(
    sample_store, llama, caplog, method
):
    settings = llm_settings(sample_store, llama, **{"retrieval.rerank.llm_method": method})
    with caplog.at_level(logging.WARNING, logger="ragcli"):
        result = service.ask(settings, QUESTION, "standard")
    trace = service.saved_trace(settings, result.trace_id)
    assert trace is not None
    (retrieve,) = [s for s in trace.steps if s.name == "retrieve"]
    (rerank,) = [s for s in trace.steps if s.name == "rerank"]
    calls = 2 if method == "pointwise" else 1  # 10 candidates, 5 a call
    assert rerank.inputs["reranker"] == f"llm {MODEL_NAME}"
    assert rerank.prompt_tokens > 200 and rerank.completion_tokens > 0
    assert result.usage.llm_calls == rerank.llm_calls + 1  # and the answer
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    fused = [c["chunk_id"] for c in retrieve.details["chunks"]]
    if rerank.details.get("skipped"):  # the small model's reply was not the JSON asked for
        assert 1 <= rerank.llm_calls <= calls  # the first unusable reply ends the rerank
        assert len(warnings) == 1 and "reranker skipped" in warnings[0]
        assert [s.chunk_id for s in result.sources] == fused[:5]
    else:
        assert rerank.llm_calls == calls and not warnings
        scores = [s.component_scores["rerank"] for s in result.sources]
        assert scores == sorted(scores, reverse=True)
        rows = rerank.details["candidates"]
        assert [r["chunk_id"] for r in rows[:5]] == [s.chunk_id for s in result.sources]
