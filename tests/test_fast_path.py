"""The fast path: `ask` never imports torch, ingest overlaps reading with embedding and
writes each flush in one go (one Chroma upsert, one manifest transaction)."""

from __future__ import annotations

import json
import sys
import threading
import time

import pytest

from ragcli.ingest.prefetch import prefetch
from ragcli.store.manifest import FileRecord
from tests.support.common import ROOT
from tests.support.imports import cli_imports


@pytest.mark.slow
def test_ask_with_onnx_imports_no_torch(sample_store, tmp_path):
    """A real `ragcli ask` over an ingested store, in a fresh process."""
    question = "How do I restore a backup?"
    args = ("ask", question, "--llm", "extractive", "--store", str(sample_store), "--json")
    run = cli_imports(*args, cwd=tmp_path)
    assert (run.exit, run.heavy) == (0, []), run.stderr[-2000:]
    answer = json.loads(run.stdout)
    assert answer["sources"] and answer["answer"]


# --- prefetch ------------------------------------------------------------------------------


def test_prefetch_keeps_order_and_works_ahead():
    started = []

    def work(n: int) -> int:
        started.append(n)
        return n * n

    results = prefetch(range(20), work, ahead=4)
    assert next(results) == 0
    deadline = time.monotonic() + 5
    while len(started) < 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    # While the consumer holds item 0, the worker has prepared the next ones (up to `ahead`).
    assert 5 <= len(started) <= 7
    assert list(results) == [n * n for n in range(1, 20)]


def test_prefetch_raises_at_the_failing_item():
    def work(n: int) -> int:
        if n == 3:
            raise ValueError("item 3 is bad")
        return n

    seen = []
    with pytest.raises(ValueError, match="item 3 is bad"):
        for value in prefetch(range(10), work):
            seen.append(value)
    assert seen == [0, 1, 2]


def test_prefetch_stops_its_worker_when_the_consumer_stops():
    calls = []
    for value in prefetch(range(1000), lambda n: calls.append(n) or n, ahead=2):
        if value == 1:
            break
    # The event: the worker thread ends (it polls its stop flag every 0.1 s); 30 s is slack
    # for a loaded machine, not an expectation.
    for thread in [t for t in threading.enumerate() if t.name == "ragcli-prefetch"]:
        thread.join(timeout=30)
    assert not [t for t in threading.enumerate() if t.name == "ragcli-prefetch"]
    assert len(calls) < 10  # it stopped working ahead, though 1000 items were offered


# --- batched writes ------------------------------------------------------------------------


def _record(path: str) -> FileRecord:
    return FileRecord("docs", path, "abc", 1, 2, "txt", 3, None, "now")


def test_benchmark_default_data_is_beside_the_repository():
    sys.path.insert(0, str(ROOT / "scripts"))
    import benchmark

    assert benchmark.DEFAULT_DATA.parts[-3:] == ("shared", "eval", "scifact")
    assert ROOT.is_relative_to(benchmark.DEFAULT_DATA.parent.parent.parent)
