"""Streaming the final answer with the openai backend: tokens reach the caller as they are
generated, the trace stays complete, and servers without streamed usage are handled."""

import json
import time

import pytest
from typer.testing import CliRunner

from ragcli import service
from ragcli.cli import app
from tests.support.common import settings_for
from tests.support.stubs import OpenAIStub

runner = CliRunner()
QUESTION = "How long is the refund window for annual plans?"
ANSWER = "Annual plans can be refunded within 30 days of purchase [1]."


def _settings(store, stub):
    return settings_for(store, **{"llm.base_url": stub.base_url, "llm.api_key": "sk-test"})


def test_answer_streams_token_by_token_and_usage_is_recorded(sample_store):
    pieces: list[tuple[float, str]] = []
    with OpenAIStub(default=ANSWER) as stub:
        stub.stream_delay = 0.05
        result = service.ask(
            _settings(sample_store, stub),
            QUESTION,
            on_token=lambda p: pieces.append((time.perf_counter(), p)),
        )
    request = stub.requests[0]
    assert request["stream"] is True and request["stream_options"] == {"include_usage": True}
    assert len(pieces) == len(ANSWER.split())  # one callback per streamed word
    assert pieces[-1][0] - pieces[0][0] > 0.2  # they arrived over time, not at the end
    assert "".join(p for _, p in pieces).strip() == result.answer == ANSWER
    words = sum(len(m["content"].split()) for m in request["messages"])
    assert (result.usage.llm_calls, result.usage.prompt_tokens) == (1, words)
    assert result.usage.completion_tokens == len(ANSWER.split())
    steps = service.trace_store(_settings(sample_store, stub)).get(result.trace_id).steps
    generate = next(step for step in steps if step.name == "generate")
    assert generate.name == "generate" and generate.completion_tokens == len(ANSWER.split())
    assert not generate.notes


def test_server_rejecting_stream_options_still_streams_and_says_usage_is_missing(sample_store):
    pieces: list[str] = []
    with OpenAIStub(default=ANSWER) as stub:
        stub.reject_stream_options = True
        result = service.ask(_settings(sample_store, stub), QUESTION, on_token=pieces.append)
    assert len(stub.requests) == 2 and "stream_options" not in stub.requests[1]
    assert "".join(pieces).strip() == result.answer == ANSWER
    assert result.usage.llm_calls == 1 and result.usage.prompt_tokens == 0
    trace = service.trace_store(_settings(sample_store, stub)).get(result.trace_id)
    notes = " ".join(next(s for s in trace.steps if s.name == "generate").notes)
    assert "rejected stream_options" in notes and "tokens are not counted" in notes


def test_server_ignoring_include_usage_is_a_recorded_fallback(sample_store):
    with OpenAIStub(default=ANSWER) as stub:
        stub.stream_usage = False
        result = service.ask(_settings(sample_store, stub), QUESTION, on_token=lambda p: None)
    assert result.answer == ANSWER and result.usage.completion_tokens == 0
    trace = service.trace_store(_settings(sample_store, stub)).get(result.trace_id)
    generate = next(s for s in trace.steps if s.name == "generate")
    assert any("reported no token usage" in n for n in generate.notes)


def test_extractive_backend_does_not_stream_and_answers_as_before(sample_store):
    pieces: list[str] = []
    result = service.ask(settings_for(sample_store), QUESTION, on_token=pieces.append)
    assert pieces == [] and "refund" in result.answer.lower()


def _ask(store, stub, *args, env=None):
    env = {"OPENAI_BASE_URL": stub.base_url, "OPENAI_API_KEY": "sk-test", **(env or {})}
    return runner.invoke(app, ["ask", QUESTION, "--store", str(store), *args], env=env)


@pytest.mark.slow
def test_cli_streams_on_a_terminal_only(sample_store):
    terminal = {"TTY_COMPATIBLE": "1", "COLUMNS": "100"}
    with OpenAIStub(default=ANSWER) as stub:
        streamed = _ask(sample_store, stub, env=terminal)
        no_stream = _ask(sample_store, stub, "--no-stream", env=terminal)
        as_json = _ask(sample_store, stub, "--json", env=terminal)
        piped = _ask(sample_store, stub)
        plain = _ask(sample_store, stub, env={**terminal, "NO_COLOR": "1"})
    assert [r.get("stream", False) for r in stub.requests] == [True, False, False, False, False]
    for result in (streamed, no_stream, piped, plain):
        assert result.exit_code == 0, result.output
        assert "30 days" in result.output and "Sources" in result.output
    assert json.loads(as_json.output)["answer"] == ANSWER
    assert "\x1b" not in piped.output and "\x1b" not in plain.output


def test_live_view_starts_over_when_a_new_generation_begins():
    import io

    from rich.console import Console

    from ragcli.terminal import LiveAnswer
    from ragcli.trace.recorder import Trace

    console = Console(file=io.StringIO(), force_terminal=True, width=60, height=20)
    trace = Trace(question="q", mode="reflect")
    with LiveAnswer(console) as live:
        with trace.step("generate"):
            live("first ")
            live("draft")
        assert (live.text, live.rounds) == ("first draft", 1)
        with trace.step("generate"):  # the next reflection round
            live("second")
        assert (live.text, live.rounds) == ("second", 2)
        rendered = Console(file=io.StringIO(), width=60)
        rendered.print(live._view())
        assert "generating (round 2)" in rendered.file.getvalue()
