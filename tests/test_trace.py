import json
import sqlite3

from ragcli.trace.store import SCHEMA_VERSION, TraceStore
from tests.support.traces import make_trace


def test_round_trip(tmp_path):
    store = TraceStore(tmp_path / "traces.sqlite")
    trace = make_trace()
    store.save(trace)
    loaded = store.get(trace.id[:6])
    assert loaded.to_dict() == trace.to_dict()
    assert loaded.usage() == {
        "llm_calls": 1,
        "prompt_tokens": 10,
        "completion_tokens": 3,
        "web_searches": 0,
    }
    assert store.get().id == trace.id
    assert store.get("nope") is None


def test_recent_lists_newest_first(tmp_path):
    store = TraceStore(tmp_path / "t.sqlite")
    first, second = make_trace("first"), make_trace("second")
    second.created_at = "9999"  # later than any real time
    store.save(first)
    store.save(second)
    assert [r["question"] for r in store.recent()] == ["second", "first"]


def test_older_schema_is_migrated(tmp_path):
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE runs (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, question TEXT "
        "NOT NULL, mode TEXT NOT NULL, answer TEXT NOT NULL, total_ms REAL NOT NULL, "
        "record TEXT NOT NULL)"
    )
    db.execute("CREATE INDEX runs_created ON runs(created_at)")
    old = make_trace("old run")
    db.execute(
        "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)",
        (old.id, old.created_at, old.question, "standard", "a", 1.0, json.dumps(old.to_dict())),
    )
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    store = TraceStore(path)
    store.save(make_trace("new run"))
    assert {r["question"] for r in store.recent()} == {"old run", "new run"}
    version = sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0]
    assert version == SCHEMA_VERSION


def test_a_new_database_opened_by_many_threads_at_once_keeps_every_run(tmp_path):
    """`ragcli serve` answers concurrent asks: the first saves race to create the schema,
    and none of their runs may be lost to "table runs already exists"."""
    from concurrent.futures import ThreadPoolExecutor
    from threading import Barrier

    path = tmp_path / "traces.sqlite"
    start = Barrier(16)

    def save(i: int) -> str:
        trace = make_trace(f"question {i}")
        start.wait()
        TraceStore(path).save(trace)
        return trace.id

    with ThreadPoolExecutor(16) as pool:
        ids = list(pool.map(save, range(16)))
    store = TraceStore(path)
    assert all(store.get(trace_id) is not None for trace_id in ids)
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
