"""HyDE against a real model: llama.cpp's server with a small GGUF on 127.0.0.1. Its
passages are poor; what is checked is what a user sees of a real model's passage: the
`hyde` step with the passage, its tokens and its cost, the search ranked by it and still
scored by the question, and the answer's call left room for."""

from __future__ import annotations

import json

import pytest

from ragcli import service
from tests.support.common import settings_for
from tests.support.llama_server import MODEL_NAME, installed, llama_cli_env
from tests.support.storecheck import ragcli

pytestmark = [
    pytest.mark.server,  # a real llama.cpp server
    pytest.mark.skipif(not installed(), reason="run scripts/install_llama.sh"),
]
QUESTION = "Which cipher is used when I password-protect a backup archive?"


def model(store, url, **extra):
    values = {
        "llm.base_url": url,
        "llm.api_key": "sk-local",
        "llm.model": MODEL_NAME,
        "llm.max_tokens": 40,
        # A loaded machine slows the small model tenfold (nice'd, it starves): no timeout.
        "llm.timeout": 300,
        "retrieval.hyde": True,
    }
    return settings_for(store, **{**values, **extra})


def test_the_served_models_passage_is_searched_with_and_traced(sample_store, llama):
    settings = model(sample_store, llama)
    result = service.ask(settings, QUESTION, mode="standard")
    trace = service.find_trace(settings, result.trace_id)
    names = [step.name for step in trace.steps]
    assert names.index("hyde") < names.index("retrieve")
    written = trace.steps[names.index("hyde")]
    row = written.details["passage"][0]
    assert row["passage"].strip() and written.decision.startswith("passage of ")
    assert written.llm_calls == 1
    assert row["prompt_tokens"] == written.prompt_tokens > 0
    assert row["completion_tokens"] == written.completion_tokens > 0
    assert row["cost_usd"] == "no price for this model"  # smollm2 is not in `prices:`
    # Ranked with the passage, scored by the question: the thresholds keep their scale.
    plain = service.search(settings_for(sample_store), QUESTION, top_k=50, mode="dense")
    cosine = {hit.chunk_id: hit.score for hit in plain.results}
    shared = [s for s in result.sources if s.chunk_id in cosine]
    assert shared and all(abs(s.score - cosine[s.chunk_id]) < 1e-3 for s in shared)
    assert all("dense_expanded" in s.component_scores for s in result.sources)
    assert result.usage.llm_calls == 2  # the passage and the answer


def test_hyde_on_the_command_line_and_in_the_trace(sample_store, llama, tmp_path):
    env = llama_cli_env(llama, 40)
    store = str(sample_store)
    done = ragcli("ask", QUESTION, "--hyde", "--store", store, "--json", cwd=tmp_path, env=env)
    assert done.returncode in (0, 3), done.stderr
    trace_id = json.loads(done.stdout)["trace_id"]
    shown = ragcli("trace", trace_id, "--store", store, cwd=tmp_path, env=env)
    assert shown.returncode == 0, shown.stderr
    assert "hyde" in shown.stdout and "passage" in shown.stdout


def test_no_room_for_the_answer_means_no_passage(sample_store, llama):
    settings = model(sample_store, llama, **{"limits.max_llm_calls": 1})
    result = service.ask(settings, QUESTION, mode="standard")
    trace = service.find_trace(settings, result.trace_id)
    (skipped,) = [step for step in trace.steps if step.name == "hyde"]
    assert skipped.decision == "skipped: --max-llm-calls 1 reached"
    assert skipped.llm_calls == 0 and result.usage.llm_calls == 1
