"""`ragcli chat` driven through a pseudo-terminal, as a person types into it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
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
# The child's terminal is a fresh pty whose interrupt character is ^C; pexpect's sendintr()
# sends the one of the terminal running the tests instead, which may differ or be disabled.
CTRL_C = "\x03"


def spawn(
    store: Path, home: Path, *args: str, env: dict[str, str] | None = None, prelude: str = ""
):
    """`ragcli chat` in a pseudo-terminal; `prelude` is Python run before it starts."""
    environ = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "XDG_DATA_HOME": str(home / "data"),
        "TERM": "xterm",
        "COLUMNS": "120",
        "PROMPT_TOOLKIT_NO_CPR": "1",  # pexpect answers no cursor-position request
        **(env or {}),
    }
    argv = ["ragcli", "chat", "--store", str(store), *args]
    code = f"{prelude}\nimport sys\nfrom ragcli.cli import main\nsys.argv = {argv!r}\nmain()"
    child = pexpect.spawn(
        sys.executable,
        ["-c", code],
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


# The first retrieval of the session stops until this file exists: a slow retrieval, held
# for as long as the test needs, that says so on the terminal.
HOLD_RETRIEVAL = """
import time
from pathlib import Path
from ragcli.retrieval.retriever import Retriever
search, calls = Retriever.search, []
def held(self, *args, **kwargs):
    calls.append(1)
    if len(calls) == 1:
        print("retrieval held", flush=True)
        release = Path("release-retrieval")
        for _ in range(1200):
            if release.exists():
                break
            time.sleep(0.05)
    return search(self, *args, **kwargs)
Retriever.search = held
"""
ASKED = "What is the refund window for annual plans?"
LONG_ANSWER = " ".join(f"word{n}" for n in range(200)) + " [1]"


@pytest.mark.parametrize(
    "moment", ["typed_ahead", "retrieving", "before_first_token", "mid_stream"]
)
def test_ctrl_c_cancels_the_answer_and_keeps_the_session(sample_store, tmp_path, moment):
    """One Ctrl-C cancels at each moment of an answer, each reached by what the terminal
    shows or by the stub holding its reply until the key was sent (no timed sleep)."""
    with OpenAIStub(default=LONG_ANSWER) as stub:
        stub.hold_after = {"before_first_token": 0, "mid_stream": 5}.get(moment)
        env = {"OPENAI_BASE_URL": stub.base_url, "OPENAI_API_KEY": "sk-test"}
        prelude = HOLD_RETRIEVAL if moment == "retrieving" else ""
        child = spawn(sample_store, tmp_path, env=env, prelude=prelude)
        try:
            if moment == "typed_ahead":
                # Ctrl-C right behind Enter, in one write: it reaches the terminal while
                # the line editor still holds it in raw mode, so it is a key, not a signal.
                child.send(ASKED + "\r" + CTRL_C)
            else:
                child.sendline(ASKED)
                if moment == "retrieving":
                    child.expect("retrieval held")
                elif moment == "before_first_token":
                    child.expect("working")  # the spinner: the answer has begun
                    assert stub.held.wait(60), "the answer was never asked for"
                else:
                    child.expect("word4")  # five words on screen; the stub holds the rest
                child.send(CTRL_C)
            seen = child.expect(["cancelled: ", "word199"], timeout=60)
            stub.release.set()
            (tmp_path / "release-retrieval").touch()
            assert seen == 0, f"Ctrl-C ({moment}) did not cancel the answer"
            child.expect(PROMPT)
            if moment == "retrieving":  # cancelled before the model was asked anything
                assert not stub.requests
            # The session goes on: the next question is answered in full, as the first
            # turn of the conversation (the cancelled one is not part of it)...
            stub.hold_after = None
            stub.default = "Backups are restored from the settings page. [1]"
            first = say(child, "How do I restore a backup?", "settings page", "trace")
            assert "turn 2 of" not in first
            # ...and a follow-up carries that turn, never the cancelled question.
            stub.default = "Only administrators can restore a backup. [1]"
            asked_before = len(stub.requests)
            say(child, "Who can do that?", "administrators", "turn 2 of")
            assert all(ASKED not in json.dumps(r) for r in stub.requests[asked_before:])
            assert "restore a backup" in json.dumps(stub.requests[asked_before:])
            # A SIGINT while no answer runs is spent: it does not cancel the next question.
            child.kill(signal.SIGINT)
            say(child, "Who can do that?", "administrators")
            # Ctrl-C at the prompt still drops the line being typed, and Ctrl-D leaves.
            child.send("half a question")
            child.send(CTRL_C)
            child.expect(PROMPT)
            child.sendeof()
            child.expect(pexpect.EOF)
        finally:
            stub.release.set()
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
