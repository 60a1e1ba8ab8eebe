"""`ragcli serve --openai` driven by real clients nobody here wrote: the official `openai`
Python SDK (streaming and not) and Simon Willison's `llm` command-line tool, configured
with OpenAI-compatible models that point at the server. What a chat front end sees: the
models, answers citing [n] with the sources listed, the run's trace id and outcome in the
`ragcli` field, usage, follow-ups read with the conversation, errors as OpenAI's error
object with their status, and the bearer token."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import openai
import pytest

from ragcli.pipeline.modes.registry import CHOICES
from ragcli.serve.openai.conversation import read_messages
from ragcli.serve.openai.protocol import ApiError
from tests.support.common import ROOT
from tests.support.embedding_servers import free_port, wait_listening
from tests.support.storecheck import cli_env

QUESTION = "How long is the refund window for annual plans?"
TOKEN = "local-token-for-tests"
LLM = ROOT / ".venv-llm" / "bin" / "llm"


class OpenAIServer:
    """`ragcli serve --openai` in a subprocess over the sample store, stopped on exit."""

    def __init__(self, store: Path, cwd: Path, **env: str):
        self.port = free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ragcli", "serve", "--openai", "--port", str(self.port)]
            + ["--store", str(store)],
            cwd=cwd,
            env=cli_env(RAGCLI_LLM__PROVIDER="extractive", **env),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> OpenAIServer:
        wait_listening(self.process, self.port, 90)
        return self

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)


@pytest.fixture(scope="module")
def server(sample_store_master, tmp_path_factory):
    """One server for the module, with a token (checked on loopback too)."""
    store = tmp_path_factory.mktemp("openai") / "store"
    shutil.copytree(sample_store_master, store)
    running = OpenAIServer(store, store.parent, RAGCLI_SERVE__TOKEN=TOKEN).start()
    yield running
    running.stop()


def client(server: OpenAIServer, key: str = TOKEN) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.url, api_key=key, max_retries=0, timeout=120)


def test_messages_are_read_as_a_question_and_the_turns_before_it():
    question, conversation = read_messages(
        [
            {"role": "system", "content": "Answer like a pirate."},
            {"role": "user", "content": "How long is the refund window?"},
            {
                "role": "assistant",
                "content": "30 days. [1]\n\nSources:\n- [1] policies/refund.md:7–11 · Refunds",
            },
            {"role": "user", "content": "Sorry?"},
            {"role": "user", "content": [{"type": "text", "text": "And monthly?"}]},
        ]
    )
    assert question == "And monthly?" and conversation.id.startswith("oai-")
    turns = [(t.question, t.answer) for t in conversation.turns]
    assert turns == [("How long is the refund window?", "30 days. [1]"), ("Sorry?", "")]
    again = read_messages([{"role": "user", "content": "How long is the refund window?"}])
    assert again[1].id == conversation.id  # one chat, one conversation id in the traces
    with pytest.raises(ApiError, match="the last message must be the user's question"):
        read_messages([{"role": "user", "content": "Q"}, {"role": "assistant", "content": "A"}])


@pytest.mark.server
def test_every_mode_answers_through_the_sdk_with_sources_trace_and_usage(server):
    sdk = client(server)
    listed = [model.id for model in sdk.models.list()]
    assert listed[: len(CHOICES)] == [f"ragcli-{mode}" for mode in CHOICES]
    assert sdk.models.retrieve("ragcli-auto").owned_by == "ragcli"
    for mode in CHOICES:
        reply = sdk.chat.completions.create(
            model=f"ragcli-{mode}", messages=[{"role": "user", "content": QUESTION}]
        )
        text = reply.choices[0].message.content
        extra = reply.model_extra["ragcli"]
        assert reply.model == f"ragcli-{mode}" and reply.choices[0].finish_reason == "stop"
        assert "30 days" in text, (mode, text)
        if "[1]" in extra["answer"]:  # tos may quote the FAQ, which it cites by no number
            # The sources the answer cites, listed under it by their numbers.
            assert "\n\nSources:\n- [1] " in text, (mode, text)
            assert "refund_policy.md" in text.split("Sources:")[1]
        assert extra["answer_type"] in ("answer", "limited") and len(extra["trace_id"]) == 12
        assert reply.usage.completion_tokens > 0 and reply.usage.total_tokens == (
            reply.usage.prompt_tokens + reply.usage.completion_tokens
        )
        if mode == "auto":
            assert extra["auto_details"]["mode"] in CHOICES


@pytest.mark.server
def test_a_stream_carries_the_same_message_then_the_run_and_usage(server):
    sdk = client(server)
    whole = sdk.chat.completions.create(
        model="ragcli-standard", messages=[{"role": "user", "content": QUESTION}]
    )
    stream = sdk.chat.completions.create(
        model="ragcli-standard",
        messages=[{"role": "user", "content": QUESTION}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == whole.choices[0].message.content
    finished = [c for c in chunks if c.choices and c.choices[0].finish_reason == "stop"]
    assert len(finished) == 1 and finished[0].model_extra["ragcli"]["trace_id"]
    assert chunks[-1].choices == [] and chunks[-1].usage.total_tokens > 0


@pytest.mark.server
def test_a_follow_up_reads_the_conversation_and_the_listed_sources_are_not_history(server):
    sdk = client(server)
    first = sdk.chat.completions.create(
        model="ragcli-standard", messages=[{"role": "user", "content": QUESTION}]
    )
    history = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "content": first.choices[0].message.content},
        {"role": "user", "content": [{"type": "text", "text": "And for monthly ones?"}]},
    ]
    reply = sdk.chat.completions.create(model="ragcli-standard", messages=history)
    turn = reply.model_extra["ragcli"]["conversation"]
    assert turn["turn"] == 2 and turn["rewritten"] and turn["asked"] == "And for monthly ones?"
    assert "Monthly subscriptions are not refunded" in reply.choices[0].message.content


@pytest.mark.server
def test_errors_are_the_openai_error_object_with_their_status(server):
    sdk = client(server)
    with pytest.raises(openai.NotFoundError) as unknown:
        sdk.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "x"}])
    assert unknown.value.code == "model_not_found" and "ragcli-auto" in unknown.value.message
    with pytest.raises(openai.BadRequestError) as no_question:
        sdk.chat.completions.create(
            model="ragcli-standard", messages=[{"role": "assistant", "content": "hello"}]
        )
    assert "the last message must be the user's question" in no_question.value.message
    with pytest.raises(openai.BadRequestError) as bad_filter:  # checked before a stream opens
        sdk.chat.completions.create(
            model="ragcli-standard",
            messages=[{"role": "user", "content": QUESTION}],
            stream=True,
            extra_body={"ragcli": {"paths": ["nowhere/"]}},
        )
    assert "no ingested file" in bad_filter.value.message
    with pytest.raises(openai.NotFoundError) as empty:
        sdk.chat.completions.create(
            model="ragcli-standard:nothing", messages=[{"role": "user", "content": QUESTION}]
        )
    assert "collection 'nothing'" in empty.value.message
    with pytest.raises(openai.AuthenticationError) as refused:
        client(server, key="wrong").models.list()
    assert refused.value.status_code == 401 and refused.value.code == "invalid_api_key"
    # A filter in the extra field restricts the run, as --path does.
    only_pdf = sdk.chat.completions.create(
        model="ragcli-standard",
        messages=[{"role": "user", "content": "How often does garbage collection run?"}],
        extra_body={"ragcli": {"types": ["pdf"]}},
    )
    sources = only_pdf.model_extra["ragcli"]["sources"]
    assert sources and {s["metadata"]["file_type"] for s in sources} == {"pdf"}
    # And on the documents' metadata, as --meta does.
    by_author = sdk.chat.completions.create(
        model="ragcli-standard",
        messages=[{"role": "user", "content": "How often does garbage collection run?"}],
        extra_body={"ragcli": {"meta": ["author=Tidewater Labs"]}},
    )
    sources = by_author.model_extra["ragcli"]["sources"]
    assert sources and {Path(s["metadata"]["source_file"]).name for s in sources} == {
        "admin_guide.pdf"
    }
    for meta, said in [(["team=ops"], "has metadata 'team'"), (["ops"], "ragcli.meta 'ops'")]:
        with pytest.raises(openai.BadRequestError) as bad_meta:
            sdk.chat.completions.create(
                model="ragcli-standard",
                messages=[{"role": "user", "content": QUESTION}],
                extra_body={"ragcli": {"meta": meta}},
            )
        assert said in bad_meta.value.message
    # Whole documents, as `ask --file`: with a mode that retrieves chunks, refused.
    whole = sdk.chat.completions.create(
        model="ragcli-auto",
        messages=[{"role": "user", "content": "Summarise it"}],
        extra_body={"ragcli": {"files": ["refund_policy.md"]}},
    )
    assert whole.model_extra["ragcli"]["documents_details"]["coverage"] == 1.0
    assert "- **Annual plans**: " in whole.choices[0].message.content
    with pytest.raises(openai.BadRequestError) as retrieving:
        sdk.chat.completions.create(
            model="ragcli-crag",
            messages=[{"role": "user", "content": "Summarise it"}],
            extra_body={"ragcli": {"files": ["refund_policy.md"]}},
        )
    assert retrieving.value.param == "ragcli.files"


@pytest.mark.server
@pytest.mark.skipif(not LLM.exists(), reason="the llm tool: run scripts/install_llm_cli.sh")
def test_the_llm_tool_asks_every_mode_and_continues_a_conversation(server, tmp_path):
    home = tmp_path / "llm"
    home.mkdir()
    models = [
        {
            "model_id": f"ragcli-{mode}",
            "model_name": f"ragcli-{mode}",
            "api_base": server.url,
            "api_key_name": "ragcli",
        }
        for mode in CHOICES
    ]
    (home / "extra-openai-models.yaml").write_text(json.dumps(models))  # JSON is YAML
    env = cli_env(LLM_USER_PATH=str(home))
    subprocess.run([LLM, "keys", "set", "ragcli", "--value", TOKEN], env=env, check=True)

    def llm(*args: str) -> str:
        done = subprocess.run([LLM, *args], env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout

    for mode in CHOICES:
        streamed = llm("-m", f"ragcli-{mode}", QUESTION)
        assert "30 days" in streamed, (mode, streamed)
        assert "Sources:" in streamed or "FAQ" in streamed, (mode, streamed)
    whole = llm("-m", "ragcli-standard", "--no-stream", QUESTION)
    assert whole.strip() == streamed.strip() or "30 days" in whole
    follow_up = llm("-c", "And for monthly ones?")  # llm sends the conversation so far
    assert "Monthly subscriptions are not refunded" in follow_up


@pytest.mark.server
def test_ctrl_c_stops_the_server_and_a_busy_port_is_one_line(sample_store, tmp_path):
    running = OpenAIServer(sample_store, tmp_path).start()
    try:
        busy = subprocess.run(
            [sys.executable, "-m", "ragcli", "serve", "--openai", "--port", str(running.port)]
            + ["--store", str(sample_store)],
            env=cli_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert busy.returncode == 2 and f"--port {running.port}" in busy.stderr
        assert "Traceback" not in busy.stderr
        running.process.send_signal(signal.SIGINT)
        assert running.process.wait(timeout=20) in (0, 130)
        assert "Traceback" not in running.process.stderr.read()
    finally:
        running.stop()
