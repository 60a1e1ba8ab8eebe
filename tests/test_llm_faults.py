"""Model endpoint faults through the real `openai` client against the stub: the user gets an
answer or a one-line error with exit code 1, never a traceback, in bounded time."""

from __future__ import annotations

import json
import socket
import time

import pytest
from typer.testing import CliRunner

from ragcli.answer import Answer, AnswerPart
from ragcli.cli import app
from ragcli.llm.base import GradeBands
from ragcli.llm.extractive import ExtractiveBackend
from ragcli.llm.openai_backend import OpenAIBackend
from ragcli.pipeline.support import SupportChecker
from ragcli.trace.recorder import Trace
from tests.support.common import settings_for
from tests.support.storecheck import cli_env, ragcli
from tests.support.stubs import Fault, OpenAIStub

BANDS = GradeBands(correct_at=0.7, ambiguous_at=0.4)

QUESTION = "How long is the refund window for annual plans?"
runner = CliRunner()

THIRTY_DAYS = Answer((AnswerPart("Thirty days.", "statement", (1,)),))


def ask(store, stub_url: str, *extra: str, **env: str):
    environ = {
        "OPENAI_API_KEY": "sk-test-fault",
        "RAGCLI_LLM__BASE_URL": stub_url,
        "RAGCLI_LLM__MAX_RETRIES": "2",
        "RAGCLI_LLM__TIMEOUT": "2",
        **env,
    }
    started = time.monotonic()
    result = runner.invoke(app, ["ask", QUESTION, "--store", str(store), *extra], env=environ)
    return result, time.monotonic() - started


def one_line_error(result) -> str:
    assert isinstance(result.exception, SystemExit), result.exception
    lines = [line for line in result.output.strip().splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), result.output
    return lines[0]


def test_429_with_retry_after_is_waited_out_then_answered(sample_store):
    with OpenAIStub(default="Within 30 days [1].") as stub:
        stub.enqueue(Fault(429, headers={"Retry-After": "1"}), Fault(503))
        result, seconds = ask(sample_store, stub.base_url, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["answer"] == "Within 30 days [1]."
    assert len(stub.requests) == 3
    assert 1.0 <= seconds < 15  # honoured Retry-After: 1, then a short backoff


@pytest.mark.parametrize("status", [500, 503])
def test_server_errors_past_the_retries_are_one_line_and_exit_1(sample_store, status):
    with OpenAIStub(default=Fault(status)) as stub:
        result, seconds = ask(sample_store, stub.base_url)
    assert result.exit_code == 1
    line = one_line_error(result)
    assert f"HTTP {status}" in line and "after 2 retries" in line
    assert len(stub.requests) == 3  # the first try and llm.max_retries more
    assert seconds < 20


def test_timeouts_are_bounded_by_timeout_and_retries(sample_store):
    with OpenAIStub(default=Fault(200, delay=60)) as stub:  # a reply that never comes in time
        result, seconds = ask(
            sample_store, stub.base_url, RAGCLI_LLM__TIMEOUT="0.5", RAGCLI_LLM__MAX_RETRIES="1"
        )
    assert result.exit_code == 1
    assert "timed out after 0.5s" in one_line_error(result)
    assert len(stub.requests) == 2
    # Two tries of 0.5 s and a backoff (a few seconds with the embedder's loading), not the
    # 60 s the reply takes: a generous bound, since a loaded machine is slow to load models.
    assert seconds < 30


def test_refused_connection(sample_store):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result, seconds = ask(sample_store, f"http://127.0.0.1:{port}/v1", RAGCLI_LLM__MAX_RETRIES="1")
    assert result.exit_code == 1
    assert "cannot be reached" in one_line_error(result)
    assert seconds < 30  # at once, not after a connect timeout: generous for a loaded machine


@pytest.mark.parametrize(
    "fault, message",
    [
        (Fault(200, "this is not json"), "malformed reply"),
        (Fault(200, '{"id": "chatcmpl-x"}'), "empty answer"),  # no choices at all
        (Fault(200, '{"choices": [{"message": {}}]}'), "empty answer"),
    ],
)
def test_malformed_or_empty_replies_are_one_line_errors(sample_store, fault, message):
    with OpenAIStub(default=fault) as stub:
        result, _ = ask(sample_store, stub.base_url)
    assert result.exit_code == 1
    assert message in one_line_error(result)


def test_empty_content_is_an_error_not_a_blank_answer(sample_store):
    with OpenAIStub(default="   ") as stub:
        result, _ = ask(sample_store, stub.base_url)
    assert result.exit_code == 1 and "empty answer" in one_line_error(result)


def test_a_reply_far_over_max_tokens_is_cut_and_noted(sample_store):
    flood = "Refunds take thirty days [1]. " * 5000  # ~150 000 characters
    with OpenAIStub(default=flood) as stub:
        result, _ = ask(sample_store, stub.base_url, "--json", RAGCLI_LLM__MAX_TOKENS="100")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert 100 < len(answer["answer"]) <= 100 * 8 + 2
    trace = runner.invoke(app, ["trace", "--json", "--store", str(sample_store)])
    notes = [n for s in json.loads(trace.output)["steps"] for n in s["notes"]]
    assert any("exceeded llm.max_tokens (100)" in n for n in notes)


@pytest.mark.slow
def test_no_traceback_from_a_real_process(sample_store, tmp_path):
    with OpenAIStub(default=Fault(200, "<html>gateway</html>")) as stub:
        env = cli_env(OPENAI_API_KEY="sk-test", RAGCLI_LLM__BASE_URL=stub.base_url)
        out = ragcli("ask", QUESTION, "--store", str(sample_store), cwd=tmp_path, env=env)
    assert out.returncode == 1
    assert "Traceback" not in out.stderr + out.stdout
    assert out.stderr.strip().count("\n") == 0 and "malformed reply" in out.stderr


@pytest.mark.parametrize("reply", ["I think they are all relevant!", "```json\n{oops", ""])
def test_unparseable_structured_replies_fall_back_and_are_recorded(sample_store, reply):
    from ragcli import service

    with OpenAIStub(default=reply) as stub:
        settings = settings_for(
            sample_store, **{"llm.base_url": stub.base_url, "llm.api_key": "sk-test"}
        )
        embedder = service.embedder(settings)
        extractive = ExtractiveBackend(embedder, settings.llm, service.calibration(settings))
        backend = OpenAIBackend(settings.llm, fallback=extractive)
        store = service.vector_store(settings)
        chunks = store.query("docs", embedder.embed([QUESTION])[0], 3)
        judged = SupportChecker(embedder, settings.support.threshold).check(THIRTY_DAYS, chunks)
        trace = Trace(question=QUESTION, mode="test")
        with trace.step("grade") as grade_step:
            grades = backend.grade(QUESTION, chunks, BANDS)
        with trace.step("reflect") as reflect_step:
            reflection = backend.reflect(QUESTION, THIRTY_DAYS, chunks, 0.7, judged)
        with trace.step("verify") as verify_step:
            verification = backend.verify(THIRTY_DAYS, chunks, judged)
        with trace.step("decompose") as decompose_step:
            parts = backend.decompose(QUESTION, 2, 4)
    assert grades == extractive.grade(QUESTION, chunks, BANDS)
    assert reflection == extractive.reflect(QUESTION, THIRTY_DAYS, chunks, 0.7, judged)
    assert verification == extractive.verify(THIRTY_DAYS, chunks, judged)
    assert parts == [QUESTION]
    for step, role in [
        (grade_step, "grade"),
        (reflect_step, "reflect"),
        (verify_step, "verify"),
        (decompose_step, "decompose"),
    ]:
        assert any(n.startswith(role) and "fallback" in n or "original" in n for n in step.notes)
        assert step.llm_calls == 1
