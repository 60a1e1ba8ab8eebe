"""`ragcli chat` driven through a pseudo-terminal, as a person types into it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest

from tests.support.stubs import OpenAIStub

# `ragcli chat` in a pseudo-terminal (pexpect), a real process per test.
pytestmark = pytest.mark.server


ROOT = Path(__file__).resolve().parent.parent
# A fresh prompt starts a line; redrawing the line being typed does not.
PROMPT = r"\n[^\n]*?(standard|crag)>"
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"


def spawn(store: Path, home: Path, *args: str, env: dict[str, str] | None = None):
    environ = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "XDG_DATA_HOME": str(home / "data"),
        "TERM": "xterm",
        "COLUMNS": "120",
        "PROMPT_TOOLKIT_NO_CPR": "1",  # pexpect answers no cursor-position request
        **(env or {}),
    }
    child = pexpect.spawn(
        sys.executable,
        ["-m", "ragcli", "chat", "--store", str(store), *args],
        env=environ,
        cwd=str(home),
        encoding="utf-8",
        codec_errors="replace",  # a redraw cut by Ctrl-C may end inside a character
        dimensions=(50, 120),
        timeout=90,
    )
    child.expect("/help for commands")
    child.banner = child.before  # names the mode and the conversation
    child.expect(PROMPT)
    return child


def say(child, line: str, *expected: str) -> str:
    """Types `line`, waits for each expected pattern and the next prompt; returns the output."""
    child.sendline(line)
    seen = ""
    for pattern in expected:
        child.expect(pattern)
        seen += child.before + child.after
    child.expect(PROMPT)
    return seen + child.before


def test_chat_slash_commands_follow_up_and_refusals(sample_store, tmp_path):
    child = spawn(sample_store, tmp_path)
    try:
        # An empty line does nothing: no answer, no error, the prompt again.
        quiet = say(child, "")
        assert "error" not in quiet and "trace" not in quiet
        assert "/sources" in say(child, "/help", "Ctrl-D leaves")
        assert "no answer yet" in say(child, "/sources")
        say(child, "What is the refund window for annual plans?", r"trace [0-9a-f]{12}")
        follow = say(child, "and for monthly ones?", "searched as:", r"turn 2 of")
        assert "refund" in follow  # the topic carried from the first question
        assert "refund_policy.md" in say(child, "/sources", "Sources")
        trace = say(child, "/trace", "standalone", "every threshold")
        assert "searched as" in trace and "and for monthly ones?" in trace
        assert "mode crag" in say(child, "/mode crag", "mode crag")
        assert "choose one of" in say(child, "/mode nope", "choose one of")
        assert "new conversation" in say(child, "/new", "new conversation")
        assert "unknown command /nope" in say(child, "/nope", "unknown command")
        # A stray 20,000-character paste is refused with its length and the limit.
        paste = ("word " * 4000)[:-1] + "."
        assert len(paste) == 20_000
        child.send(PASTE_START + paste + PASTE_END)
        child.send("\r")
        child.expect("the limit is 4,000", timeout=120)
        assert "20,000 characters" in child.before.replace("\r\n", "")
        child.expect(PROMPT)
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    history = (tmp_path / "data" / "ragcli" / "chat_history").read_text()
    assert "and for monthly ones?" in history  # questions are remembered between sessions


def test_ctrl_c_cancels_the_answer_and_keeps_the_session(sample_store, tmp_path):
    long_answer = " ".join(f"word{n}" for n in range(200)) + " [1]"
    with OpenAIStub(default=long_answer) as stub:
        stub.stream_delay = 0.1  # 20 s to stream: time enough to cancel it
        env = {"OPENAI_BASE_URL": stub.base_url, "OPENAI_API_KEY": "sk-test"}
        child = spawn(sample_store, tmp_path, env=env)
        try:
            child.sendline("What is the refund window for annual plans?")
            deadline = time.monotonic() + 60
            while not any(r.get("stream") for r in stub.requests):
                assert time.monotonic() < deadline, "the answer never started"
                time.sleep(0.1)
            time.sleep(0.5)
            child.sendintr()
            child.expect("cancelled", timeout=20)
            child.expect(PROMPT)
            # The session goes on: the next question is answered in full.
            stub.stream_delay = 0.0
            stub.default = "Annual plans can be refunded within 30 days. [1]"
            child.sendline("How do I restore a backup?")
            child.expect("within 30 days")
            child.expect(PROMPT)
            child.sendeof()  # Ctrl-D leaves
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
    assert child.exitstatus == 0


def test_chat_without_a_terminal_suggests_ask(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "ragcli", "chat", "--store", str(tmp_path / "store")],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "ragcli ask" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.fixture(autouse=True)
def _no_user_history(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def test_chat_continue_picks_up_the_conversation_ask_started(sample_store, tmp_path):
    from typer.testing import CliRunner

    from ragcli.cli import app

    first = CliRunner().invoke(
        app, ["ask", "How do I schedule automatic backups?", "--store", str(sample_store), "--json"]
    )
    conversation = json.loads(first.output)["conversation"]["id"]
    child = spawn(sample_store, tmp_path, "-c")
    try:
        assert conversation in child.banner
        out = say(child, "Who can do that?", "searched as:", f"turn 2 of {conversation}")
        assert "backups" in out
        child.sendeof()
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
