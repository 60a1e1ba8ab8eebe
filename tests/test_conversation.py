"""Conversations: follow-ups made standalone (both backends), a bounded history, turns
stored as runs of a conversation, `ask -c` / `--conversation`, `trace --conversation`, and
a trace store from before conversations."""

from __future__ import annotations

import json
import sqlite3

import pytest
from typer.testing import CliRunner

from ragcli import service
from ragcli.cli import app
from ragcli.config import ConversationSettings
from ragcli.llm.followup import make_standalone
from ragcli.models import PriorTurn
from ragcli.pipeline.conversation import Conversation, bounded
from ragcli.trace.recorder import Trace
from ragcli.trace.store import SCHEMA_VERSION, TraceStore
from tests.support.common import settings_for
from tests.support.stubs import OpenAIStub

runner = CliRunner()
FIRST = "How long do I have to get a refund on an annual plan?"


def turn(question: str, answer: str = "") -> PriorTurn:
    return PriorTurn(question=question, standalone=question, answer=answer)


def test_extractive_rewrite_carries_the_topic_only_into_questions_that_need_it():
    first = make_standalone(FIRST, [])
    assert not first.rewritten and "first question" in first.reason
    history = [turn(FIRST)]
    follow = make_standalone("And for monthly ones?", history)
    assert follow.rewritten
    assert "refund" in follow.question and follow.question.startswith("And for monthly ones?")
    assert "carried" in follow.reason
    own = make_standalone("Which port does the live sync connection use?", history)
    assert not own.rewritten and own.question == "Which port does the live sync connection use?"
    assert "topic of its own" in own.reason


def test_extractive_rewrite_carries_the_latest_topic_not_every_earlier_one():
    history = [turn(FIRST), turn("Which port does the live sync connection use?")]
    follow = make_standalone("Can I change it?", history)
    assert "port" in follow.question and "refund" not in follow.question


def test_history_is_bounded_by_turns_and_tokens():
    turns = [turn(f"question {n}", "word " * 200) for n in range(10)]
    by_turns = bounded(turns, ConversationSettings(max_turns=3, max_tokens=100_000))
    assert [t.question for t in by_turns] == ["question 7", "question 8", "question 9"]
    by_tokens = bounded(turns, ConversationSettings(max_turns=10, max_tokens=600))
    assert 1 <= len(by_tokens) < 10 and by_tokens[-1].question == "question 9"
    huge = bounded([turn("q", "x" * 100_000)], ConversationSettings(max_tokens=200))
    assert len(huge[0].answer) <= 200 * 4  # one huge answer is cut, not sent whole


def test_openai_rewrite_is_one_call_whose_question_retrieval_uses(sample_store):
    rewritten = "Can a monthly Driftwood plan be refunded?"
    with OpenAIStub(default="Monthly plans are not refunded. [1]") as stub:
        settings = settings_for(
            sample_store, **{"llm.base_url": stub.base_url, "llm.api_key": "sk-test"}
        )
        session = service.AskSession(settings)
        session.ask(FIRST)
        assert not any("Follow-up question" in p for p in stub.prompts())  # skipped first
        calls = len(stub.requests)
        stub.enqueue(json.dumps({"standalone": False, "question": rewritten}))
        result = session.ask("And for monthly ones?")
        prompt = stub.prompts()[calls]
        assert "Follow-up question: And for monthly ones?" in prompt and FIRST in prompt
    assert result.conversation is not None
    assert result.conversation.asked == "And for monthly ones?"
    assert result.conversation.standalone == rewritten and result.conversation.rewritten
    assert result.conversation.turn == 2
    trace = service.find_trace(settings, result.trace_id)
    steps = {s.name: s for s in trace.steps}
    assert steps["standalone"].llm_calls == 1
    assert steps["retrieve"].inputs["query"] == rewritten
    assert trace.question == "And for monthly ones?" and trace.standalone == rewritten
    data = result.to_json_dict()["conversation"]
    assert data["asked"] == "And for monthly ones?" and data["standalone"] == rewritten


def test_openai_keeps_a_question_the_model_calls_standalone(sample_store):
    with OpenAIStub(default="An answer. [1]") as stub:
        settings = settings_for(
            sample_store, **{"llm.base_url": stub.base_url, "llm.api_key": "sk-test"}
        )
        history = Conversation(id="c1", turns=[turn(FIRST, "Within 30 days.")])
        stub.enqueue(json.dumps({"standalone": True, "question": "ignored"}))
        result = service.ask(settings, "What port does sync use?", conversation=history)
        assert result.conversation is not None
        assert result.conversation.standalone == "What port does sync use?"
        assert "judged it standalone" in result.conversation.reason
        # A reply that is not the JSON asked for: the offline rewrite takes over.
        stub.enqueue("I cannot help with that")
        result = service.ask(settings, "And for monthly ones?", conversation=history)
        assert result.conversation is not None and result.conversation.rewritten
        assert "refund" in result.conversation.standalone
        assert "offline" in result.conversation.reason


@pytest.mark.slow
def test_ask_continue_and_trace_conversation(sample_store):
    store = str(sample_store)
    missing = runner.invoke(app, ["ask", "-c", "and then?", "--store", store])
    assert missing.exit_code == 2 and "no conversation yet" in missing.output
    first = runner.invoke(app, ["ask", FIRST, "--store", store, "--json"])
    assert first.exit_code == 0, first.output
    conversation = json.loads(first.output)["conversation"]
    assert conversation["turn"] == 1 and not conversation["rewritten"]
    follow = runner.invoke(app, ["ask", "-c", "And for monthly ones?", "--store", store, "--json"])
    data = json.loads(follow.output)["conversation"]
    assert data["id"] == conversation["id"] and data["turn"] == 2
    assert data["asked"] == "And for monthly ones?" and "refund" in data["standalone"]
    # A new plain `ask` starts another conversation; --conversation goes back to the first.
    runner.invoke(app, ["ask", "Which port does the live sync connection use?", "--store", store])
    third = runner.invoke(
        app,
        ["ask", "--conversation", conversation["id"][:6], "Who can do that?", "--store", store],
    )
    assert third.exit_code == 0, third.output
    assert "searched as: Who can do that?" in third.output
    assert f"turn 3 of {conversation['id']}" in " ".join(third.output.split())
    listed = runner.invoke(
        app, ["trace", "--conversation", conversation["id"], "--store", store, "--json"]
    )
    turns = json.loads(listed.output)
    assert [t["turn"] for t in turns] == [1, 2, 3]
    assert turns[1]["question"] == "And for monthly ones?" and "refund" in turns[1]["standalone"]
    shown = runner.invoke(app, ["trace", "--conversation", conversation["id"], "--store", store])
    assert f"Conversation {conversation['id']}" in shown.output and "as asked" in shown.output
    unknown = runner.invoke(app, ["trace", "--conversation", "ffffff", "--store", store])
    assert unknown.exit_code == 2 and "no such conversation" in unknown.output


def test_a_stray_paste_is_refused_with_its_length_and_the_limit(sample_store):
    result = runner.invoke(app, ["ask", "x" * 20_000, "--store", str(sample_store)])
    assert result.exit_code == 2
    assert "20,000 characters; the limit is 4,000" in " ".join(result.output.split())


def test_a_trace_store_from_before_conversations_opens_and_keeps_its_runs(tmp_path):
    path = tmp_path / "traces.sqlite"
    old = Trace(question="old question?", mode="standard", answer="old answer", total_ms=5.0)
    record = old.to_dict()
    for key in ("conversation_id", "turn", "standalone"):  # fields the old version lacked
        record.pop(key)
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE runs (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, question TEXT NOT "
        "NULL, mode TEXT NOT NULL, answer TEXT NOT NULL, total_ms REAL NOT NULL, record TEXT "
        "NOT NULL, answer_type TEXT NOT NULL DEFAULT '')"
    )
    db.execute("CREATE INDEX runs_created ON runs(created_at)")
    db.execute(
        "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (old.id, old.created_at, old.question, "standard", old.answer, 5.0, json.dumps(record), ""),
    )
    db.execute("PRAGMA user_version = 2")
    db.commit()
    db.close()

    traces = TraceStore(path)
    assert [r["question"] for r in traces.recent()] == ["old question?"]
    reread = traces.get(old.id)
    assert reread is not None and reread.conversation_id == "" and reread.answer == "old answer"
    assert traces.latest_conversation() is None  # an old run belongs to no conversation
    new = Trace(question="new?", mode="standard", conversation_id="abc123abc123", turn=1)
    traces.save(new)
    assert traces.latest_conversation() == "abc123abc123"
    assert [t.id for t in traces.conversation("abc123abc123")] == [new.id]
    version = sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0]
    assert version == SCHEMA_VERSION == 3
