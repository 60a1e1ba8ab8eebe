"""The openai backend against a real OpenAI-compatible model server: llama.cpp's, serving
a small GGUF on 127.0.0.1. The model's answers are poor; what is checked is what a user
sees of a real model's replies: an answer with the model's tokens counted and traced."""

from __future__ import annotations

import json

import pytest

from tests.support.llama_server import installed, llama_cli_env
from tests.support.storecheck import ragcli

pytestmark = [
    pytest.mark.server,  # a real llama.cpp server
    pytest.mark.skipif(not installed(), reason="run scripts/install_llama.sh"),
]


def test_a_standard_ask_is_answered_by_the_served_model_and_its_tokens_traced(
    sample_store, llama, tmp_path
):
    env = llama_cli_env(llama, 60)
    question = "How long is the refund window for annual plans?"
    done = ragcli("ask", question, "--store", str(sample_store), "--json", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["answer"].strip()
    trace = json.loads(
        ragcli(
            "trace",
            result["trace_id"],
            "--store",
            str(sample_store),
            "--json",
            cwd=tmp_path,
            env=env,
        ).stdout
    )
    calls = [step for step in trace["steps"] if step["llm_calls"]]
    assert [step["name"] for step in calls] == ["generate"]
    assert calls[0]["prompt_tokens"] > 50 and calls[0]["completion_tokens"] > 0
    assert trace["usage"]["prompt_tokens"] == calls[0]["prompt_tokens"]
