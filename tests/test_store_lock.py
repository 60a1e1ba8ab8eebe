"""One ingest at a time per store; `ask` keeps answering while an ingest runs."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from ragcli.errors import ExitCode
from ragcli.store.lock import StoreLock
from tests.support.corpus import make_corpus
from tests.support.embedders import counting_ingestor
from tests.support.storecheck import assert_consistent, cli_env, ragcli, store_state

# Real ingests in several processes at once, one of them killed.
pytestmark = pytest.mark.slow


def test_second_ingest_exits_with_a_clear_message_when_the_wait_runs_out(tmp_path):
    docs = tmp_path / "docs"
    make_corpus(docs, [1])
    store = tmp_path / "store"
    with StoreLock(store, timeout=0):  # another ingest holds the store
        started = time.monotonic()
        result = ragcli(
            "ingest",
            str(docs),
            "--store",
            str(store),
            cwd=tmp_path,
            env=cli_env(RAGCLI_STORE__LOCK_TIMEOUT="1"),
        )
        waited = time.monotonic() - started
    assert result.returncode == ExitCode.BUSY == 6
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert "another ingest is running" in lines[0] and "waited 1s" in lines[0]
    assert "pid" in lines[0]
    assert waited >= 1.0
    db = sqlite3.connect(store / "manifest.sqlite")
    assert db.execute("SELECT count(*) FROM files").fetchone() == (0,)  # nothing was done


def test_second_ingest_waits_for_the_lock_then_runs(tmp_path, monkeypatch):
    """While another writer holds the lock, an ingest waits in `acquire` and touches
    nothing; once the lock is free it runs. An ingest whose lock did not exclude would
    leave `acquire` while the other still held it: the test fails then."""
    docs = tmp_path / "docs"
    make_corpus(docs, [1])
    store = tmp_path / "store"
    held = StoreLock(store, timeout=0)
    held.acquire()  # another ingest holds the store (before the spy below is in place)
    entered, returned = threading.Event(), threading.Event()
    real_acquire = StoreLock.acquire

    def spy(self, *args, **kwargs):
        entered.set()
        real_acquire(self, *args, **kwargs)
        returned.set()

    monkeypatch.setattr(StoreLock, "acquire", spy)
    ingestor = counting_ingestor(store)
    reports = []
    writer = threading.Thread(target=lambda: reports.append(ingestor.run([docs], "docs")))
    try:
        writer.start()
        while not entered.wait(0.1):  # till the ingest asks for the lock
            assert writer.is_alive(), "the ingest ran without asking for the lock"
        # A lock that excludes keeps it there however long we hold on; one that does not
        # lets it through at once. A second is ample for the latter to show.
        assert not returned.wait(1.0), "the ingest took the lock while another held it"
        assert writer.is_alive() and not reports and ingestor.embedder.texts == 0
    finally:
        held.release()
    writer.join(timeout=300)
    assert returned.is_set() and not writer.is_alive()
    (report,) = reports
    assert report.count("new") == 1 and ingestor.embedder.texts > 0


def test_a_dead_holder_leaves_no_stale_lock(tmp_path):
    docs = tmp_path / "docs"
    make_corpus(docs, [1])
    store = tmp_path / "store"
    killed = ragcli(
        "ingest",
        str(docs),
        "--store",
        str(store),
        cwd=tmp_path,
        env=cli_env(RAGCLI_CRASH_AT="after_upsert"),
    )
    assert killed.returncode == -9
    assert (store / "ingest.lock").exists()
    with StoreLock(store, timeout=0):  # acquired at once: the kernel released it
        pass
    rerun = ragcli("ingest", str(docs), "--store", str(store), cwd=tmp_path)
    assert rerun.returncode == 0, rerun.stderr
    assert "recovered" in rerun.stdout and "interrupted ingest" in rerun.stdout


def test_two_real_ingests_and_asks_during_an_ingest(tmp_path):
    docs = tmp_path / "docs"
    make_corpus(docs, list(range(1, 31)))
    (docs / "refunds.md").write_text(
        "# Refunds\nAnnual plans can be refunded within 30 days of purchase.\n"
    )
    store = tmp_path / "store"
    first = ragcli("ingest", str(docs / "refunds.md"), "--store", str(store), cwd=tmp_path)
    assert first.returncode == 0, first.stderr

    def start_ingest() -> subprocess.Popen:
        code = (
            "import sys\nfrom ragcli.cli import main\n"
            f"sys.argv = ['ragcli', 'ingest', {str(docs)!r}, '--store', {str(store)!r}, "
            "'--json']\nmain()"
        )
        return subprocess.Popen(
            [sys.executable, "-c", code],
            cwd=tmp_path,
            # The second waits for the first's whole ingest: on a loaded machine that can
            # take longer than the default 30 s wait (exit 6), which is not what is tested.
            env=cli_env(RAGCLI_STORE__LOCK_TIMEOUT="900"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    one, two = start_ingest(), start_ingest()
    answers = []
    while one.poll() is None or two.poll() is None:
        asked = ragcli(
            "ask",
            "How long can I get a refund for an annual plan?",
            "--store",
            str(store),
            "--json",
            cwd=tmp_path,
        )
        assert asked.returncode == 0, asked.stderr
        answers.append(json.loads(asked.stdout)["answer"])
    outputs = [p.communicate() for p in (one, two)]
    assert [p.returncode for p in (one, two)] == [0, 0], outputs
    reports = [json.loads(out) for out, _ in outputs]
    # One of them did the work; the other waited and found everything unchanged.
    assert sorted(r["files_new"] for r in reports) == [0, 30]
    assert answers and all("30 days" in a for a in answers)
    assert_consistent(store_state(store))
