"""scripts/benchmark.py runs end to end on a tiny BEIR-format corpus and prints every row."""

from __future__ import annotations

import json
import sys
import tempfile

import pytest

from ragcli.pipeline.modes.registry import MODES
from tests.support.common import ROOT
from tests.support.stubs import OpenAIStub

sys.path.insert(0, str(ROOT / "scripts"))
import benchmark  # noqa: E402

TOPICS = ["backups", "sync conflicts", "sharing links", "billing plans", "restore points"]


def tiny_beir(folder):
    folder.mkdir()
    with open(folder / "corpus.jsonl", "w") as f:
        for n in range(24):
            topic = TOPICS[n % len(TOPICS)]
            text = f"Document {n} explains {topic}. It says how {topic} work in version {n}."
            f.write(json.dumps({"_id": str(n), "title": f"About {topic}", "text": text}) + "\n")
    with open(folder / "queries.jsonl", "w") as f:
        for n, topic in enumerate(TOPICS):
            f.write(json.dumps({"_id": f"q{n}", "text": f"How do {topic} work?"}) + "\n")
    return folder


@pytest.mark.slow
@pytest.mark.timeout(1200)  # every benchmark row, ~4 minutes on a loaded machine
def test_benchmark_prints_every_row(tmp_path, capsys, monkeypatch):
    data = tiny_beir(tmp_path / "tiny")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    args = benchmark.parse_args(
        [
            *["--data", str(data), "--limit", "20", "--repeats", "1", "--queries", "5"],
            *["--skip-torch", "--chat-turns", "2", "--markdown-copies", "1"],
        ]
    )
    info = benchmark.machine()
    rows = benchmark.run(args, info)
    assert list(scratch.iterdir()) == []  # the corpus and store it wrote are gone
    names = [(r.section, r.name) for r in rows]
    assert names[:3] == [
        ("embed", "sentence-transformers (torch)"),
        ("embed", "ONNX Runtime"),
        ("embed", "ONNX Runtime, embedding.precision int8"),
    ]
    assert [n for s, n in names if s == "ingest"] == [
        "ragcli ingest, long Markdown (1 × README + docs/)",
        "ragcli ingest (process wall)",
        "ragcli eval corpus write (process wall)",
        "re-ingest, unchanged corpus",
        "rename a folder of 20 chunks, re-ingest",
    ]
    assert len([n for s, n in names if s == "process"]) == 4
    # Every registered mode, and crag again on its two ways to the web (the Tavily stub).
    web_routes = ["crag, web route", "crag, rewrite, then documents + web"]
    assert [n for s, n in names if s == "modes"] == [*MODES, *web_routes]

    by_name = {r.name: r for r in rows}
    int8 = by_name["ONNX Runtime, embedding.precision int8"].data
    assert int8["ratio_to_fp32"] > 0 and int8["mean_cosine_to_fp32"] > 0.97
    markdown = by_name["ragcli ingest, long Markdown (1 × README + docs/)"].data
    assert markdown["chunks"] > 50 and markdown["ratio_to_raw_onnx"] > 0
    assert info["documents"] == 20
    ingest = by_name["ragcli ingest (process wall)"].data
    assert ingest["chunks"] == 20 and ingest["ratio_to_raw_onnx"] > 0
    # eval writes the same abstracts (as BEIR documents, one chunk each) through ingest's path.
    eval_write = by_name["ragcli eval corpus write (process wall)"].data
    assert eval_write["chunks"] == 20 and eval_write["ratio_to_ingest"] > 0
    again = by_name["re-ingest, unchanged corpus"].data
    # Nothing embedded again; the ratio itself is noise on 20 abstracts (process start).
    assert again["chunks"] == 0 and again["ratio_to_first"] > 0
    renamed = by_name["rename a folder of 20 chunks, re-ingest"].data
    # Every file found as moved, its chunks reused, in each of the renames: none embedded.
    assert renamed["chunks_embedded"] == 0 and renamed["files_moved"] == [20] * benchmark.RENAMES
    assert len(renamed["seconds_each"]) == benchmark.RENAMES
    assert 0 < renamed["ratio_to_first"] < 1
    stale = by_name["stale-source check, 10 cited files"]
    assert stale.data["files"] == 10 and "with 3 edited" in stale.value
    latency = next(r for r in rows if r.section == "retrieval").data
    assert latency["queries"] == 5 and 0 < latency["p50_ms"] <= latency["p95_ms"]
    standard = by_name["standard"]
    # One call to a model that waits 300 ms: one round trip, at least 0.3 s.
    assert standard.data["model_calls"] == 1 and standard.data["round_trips"] == 1
    assert standard.data["seconds"] >= benchmark.STUB_DELAY and standard.passed is True
    help_row = by_name["ragcli --help"]
    assert help_row.target == "≤ 0.3 s and ≤ 1.6 ×"
    floor = help_row.data["import_floor_seconds"]
    assert help_row.data["ratio"] == pytest.approx(help_row.data["seconds"] / floor, rel=0.05)
    # The web route: grade, then the web results' grading beside the answer's draft.
    web = by_name["crag, web route"]
    assert (web.data["model_calls"], web.data["round_trips"], web.data["web_searches"]) == (3, 2, 1)
    assert web.passed is True and web.data["answer_type"] == "answer"
    rewrite = by_name["crag, rewrite, then documents + web"]
    assert (rewrite.data["model_calls"], rewrite.data["round_trips"]) == (4, 3)
    # The warm MCP server, measured through the client, beside a cold `ragcli ask`.
    search, ask = (by_name["search tool"].data, by_name["ask tool (standard, extractive)"].data)
    assert search["calls"] == ask["calls"] == benchmark.SERVE_CALLS
    assert 0 < search["p50_ms"] <= search["p95_ms"] and 0 < ask["p50_ms"] <= ask["p95_ms"]
    cold = by_name["ragcli ask --mode standard (extractive)"].data["seconds"]
    # (the cold time shown is rounded to the millisecond, the ratio is not)
    assert ask["ratio_p95_to_cold_ask"] == pytest.approx(ask["p95_ms"] / 1000 / cold, rel=0.01)

    # `ragcli chat` through a pty: the turns after the first, timed.
    chat = by_name[benchmark.CHAT_ROW]
    assert chat.data["turns"] == 2 and 0 < chat.data["p50_ms"] <= chat.data["p95_ms"]
    assert chat.target == "p95 ≤ 300 ms"

    info["seconds"] = 1
    benchmark.print_table(rows, info)
    table = capsys.readouterr().out
    for row in rows:
        assert row.name in table and row.value.split()[0] in table
    assert "PASS" in table and "skipped (--skip-torch)" in table and "machine: " in table
    json.dumps([r.to_dict() for r in rows])  # --json can print every row


def test_round_trips_count_overlapping_calls_once():
    stub = OpenAIStub()
    # decompose; three sub-answers in parallel; synthesize
    stub.intervals = [(0.0, 0.3), (0.31, 0.61), (0.32, 0.62), (0.33, 0.63), (0.64, 0.94)]
    assert stub.round_trips() == 3
    stub.intervals = [(0, 1), (1, 2)]
    assert stub.round_trips() == 2
    stub.intervals = []
    assert stub.round_trips() == 0
