"""Runs exported as OpenTelemetry spans, received by a real Arize Phoenix started here and
read back through its REST API: every mode's tree has its spans, parents and attributes."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import defaultdict
from typing import Any

import pytest

from ragcli import service
from ragcli.trace import spans as otel_spans
from tests.support.common import ROOT, settings_for
from tests.support.phoenix_server import PHOENIX, spans, start_phoenix

pytestmark = [
    pytest.mark.server,  # a real `phoenix serve`
    pytest.mark.skipif(
        not PHOENIX.exists(), reason="run scripts/install_phoenix.sh (scripts/test.sh does)"
    ),
]

# Phoenix shares a loaded 2-core CI machine with the runs it receives: its first writes can
# take longer than the 2 s a user's export is allowed.
TIMEOUT = {"trace.export_timeout": 15}
QUESTION = "How do I get a refund for an annual plan and how do I cancel my subscription?"


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory):
    process, url = start_phoenix(tmp_path_factory.mktemp("phoenix"))
    yield url
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()


def trees(found: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """ragcli run id -> {"root": span, "children": {parent span id: [spans]}}."""
    by_trace: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for span in found:
        by_trace[span["context"]["trace_id"]].append(span)
    runs = {}
    for members in by_trace.values():
        root = next(s for s in members if s["parent_id"] is None)
        children: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for span in sorted(members, key=lambda s: (s["start_time"], s["name"])):
            if span["parent_id"]:
                children[span["parent_id"]].append(span)
        runs[root["attributes"]["ragcli.trace_id"]] = {"root": root, "children": children}
    return runs


def names(tree: dict[str, Any], span: dict[str, Any]) -> list[str]:
    return [s["name"] for s in tree["children"][span["context"]["span_id"]]]


def child(tree: dict[str, Any], span: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in tree["children"][span["context"]["span_id"]] if s["name"] == name)


def documents(span: dict[str, Any]) -> list[tuple[str, float]]:
    attrs = span["attributes"]
    found = []
    n = 0
    while f"retrieval.documents.{n}.document.id" in attrs:
        found.append(
            (
                attrs[f"retrieval.documents.{n}.document.id"],
                attrs[f"retrieval.documents.{n}.document.score"],
            )
        )
        n += 1
    return found


def span_count(trace) -> int:
    """How many spans a run makes: its root, a span per step, auto's `mode NAME`, and a
    sub-question span with its retrieve per part (waiting for all avoids reading a tree
    Phoenix has half written)."""
    count = 1 + len(trace.steps) + (trace.mode == "auto")
    for step in trace.steps:
        count += 2 * len(step.details.get("sub_questions", []))
    return count


def test_every_mode_of_a_compare_arrives_as_its_own_span_tree(phoenix, sample_store):
    settings = settings_for(
        sample_store, **{"trace.otlp_endpoint": phoenix, "trace.project": "compare"}, **TIMEOUT
    )
    rows = service.compare(settings, QUESTION)
    auto = service.ask(settings, QUESTION, mode="auto")
    otel_spans.flush_all()
    run_ids = {row["mode"]: row["trace_id"] for row in rows} | {"auto": auto.trace_id}
    saved = {mode: service.saved_trace(settings, rid) for mode, rid in run_ids.items()}
    expected = sum(span_count(t) for t in saved.values())
    found = spans(phoenix, "compare", expect=expected)
    assert len(found) == expected  # every step a span, none twice
    runs = trees(found)
    assert set(runs) == set(run_ids.values())

    for mode, run_id in run_ids.items():
        tree, trace = runs[run_id], saved[mode]
        root = tree["root"]
        assert root["name"] == f"ragcli {mode}"
        assert root["span_kind"] == "CHAIN"
        assert root["attributes"]["input.value"] == QUESTION
        assert root["attributes"]["output.value"] == trace.answer
        assert root["attributes"]["session.id"] == trace.conversation_id
        if mode == "auto":
            continue
        # One child of the root per recorded step, in the order the steps ran.
        steps = [s.name for s in trace.steps]
        shown = names(tree, root)
        assert len(shown) == len(steps), (mode, shown, steps)
        first = child(tree, root, shown[0])
        if first["name"] == "retrieve":
            assert first["span_kind"] == "RETRIEVER"
            chunks = trace.steps[0].details["chunks"]
            assert documents(first) == [(c["chunk_id"], c["score"]) for c in chunks]
            assert first["attributes"]["retrieval.documents.0.document.metadata.source_file"]

    crag = runs[run_ids["crag"]]
    grade = child(crag, crag["root"], "grade")
    assert grade["span_kind"] == "EVALUATOR"
    grade_step = next(s for s in saved["crag"].steps if s.name == "grade")
    assert grade["attributes"]["ragcli.score.relevance"] == grade_step.scores["relevance"]
    assert grade["attributes"]["ragcli.threshold.relevant"] == grade_step.threshold["relevant"]
    assert grade["attributes"]["ragcli.decision"] == grade_step.decision

    reflect = runs[run_ids["reflect"]]
    rounds = [n for n in names(reflect, reflect["root"]) if n.startswith("reflect round")]
    assert rounds == [
        f"reflect round {n}"
        for n in range(1, saved["reflect"].result["reflection_details"]["iterations"] + 1)
    ]
    first_round = child(reflect, reflect["root"], "reflect round 1")
    assert first_round["attributes"]["ragcli.threshold.min_score"] == 0.8

    tos = runs[run_ids["tos"]]
    stages = [n for n in names(tos, tos["root"]) if n.startswith("tos stage")]
    path = saved["tos"].result["tos_details"]["path"]
    assert stages == [f"tos stage {p['stage']}" for p in path]
    qna = child(tos, tos["root"], "tos stage qna")
    assert qna["span_kind"] == "DECISION"
    assert qna["attributes"]["ragcli.decision"] == path[0]["outcome"]

    agentic = runs[run_ids["agentic"]]
    fan = child(agentic, agentic["root"], "answer_sub_questions")
    parts = saved["agentic"].result["agentic_details"]["sub_questions"]
    assert names(agentic, fan) == [f"sub-question {n}" for n in range(1, len(parts) + 1)]
    for n, part in enumerate(parts, start=1):
        sub = child(agentic, fan, f"sub-question {n}")
        assert sub["attributes"]["input.value"] == part
        assert documents(child(agentic, sub, "retrieve"))  # each part retrieved its own chunks
    assert child(agentic, agentic["root"], "synthesize")["span_kind"] == "LLM"

    chosen = saved["auto"].result["auto_details"]["mode"]
    auto_tree = runs[run_ids["auto"]]
    assert names(auto_tree, auto_tree["root"])[:2] == ["route", f"mode {chosen}"]
    route = child(auto_tree, auto_tree["root"], "route")
    assert route["span_kind"] == "DECISION"
    assert route["attributes"]["ragcli.threshold.auto.faq_threshold"] == 0.8
    inner = child(auto_tree, auto_tree["root"], f"mode {chosen}")
    after_route = [s.name for s in saved["auto"].steps[1:] if s.name != "support"]
    assert len(names(auto_tree, inner)) == len(after_route)


def test_chat_turns_share_a_session(phoenix, sample_store):
    settings = settings_for(
        sample_store, **{"trace.otlp_endpoint": phoenix, "trace.project": "chat"}, **TIMEOUT
    )
    session = service.AskSession(settings, mode="standard")
    first = session.ask("How do I get a refund for an annual plan?")
    second = session.ask("And for a monthly one?")
    otel_spans.flush_all()
    runs = trees(
        spans(
            phoenix,
            "chat",
            expect=sum(
                span_count(service.saved_trace(settings, r.trace_id)) for r in (first, second)
            ),
        )
    )
    roots = [runs[first.trace_id]["root"], runs[second.trace_id]["root"]]
    assert {r["attributes"]["session.id"] for r in roots} == {session.conversation.id}
    assert "standalone" in names(runs[second.trace_id], roots[1])  # the follow-up rewritten


def test_a_command_line_ask_is_sent_before_the_process_ends(phoenix, sample_store):
    """The spans go on a worker thread; a CLI run must still deliver them at exit. The
    standard OTEL_EXPORTER_OTLP_ENDPOINT is enough to switch export on."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAGCLI_", "OTEL_"))}
    env.update(
        RAGCLI_STORE=str(sample_store),
        OTEL_EXPORTER_OTLP_ENDPOINT=phoenix,
        RAGCLI_TRACE__PROJECT="cli",
        RAGCLI_TRACE__EXPORT_TIMEOUT="15",
        PYTHONPATH=str(ROOT),
    )
    done = subprocess.run(
        [sys.executable, "-m", "ragcli", "ask", "How do I get a refund?", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr
    found = spans(phoenix, "cli", expect=3)
    assert {s["name"] for s in found} >= {"ragcli standard", "retrieve", "generate"}
