"""A locked, damaged or newer trace database never costs the user the answer."""

from __future__ import annotations

import json
import logging
import sqlite3

from typer.testing import CliRunner

from ragcli.cli import app
from ragcli.trace.store import SCHEMA_VERSION, TraceStore
from tests.support.storecheck import ragcli

QUESTION = "How long can I get a refund for an annual plan?"
runner = CliRunner()


def test_damaged_database_is_set_aside_and_ask_goes_on(sample_store, tmp_path):
    traces = sample_store / "traces.sqlite"
    traces.write_bytes(b"this is not a database at all" * 100)
    out = ragcli("ask", QUESTION, "--store", str(sample_store), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "30 days" in out.stdout and "Traceback" not in out.stderr
    warning = [line for line in out.stderr.splitlines() if "damaged" in line]
    assert len(warning) == 1 and "starting a new one" in warning[0]
    damaged = list(sample_store.glob("traces.sqlite.damaged-*"))
    assert len(damaged) == 1 and damaged[0].read_bytes().startswith(b"this is not")
    assert len(TraceStore(traces).recent()) == 1  # the new database holds this run


def test_locked_database_warns_and_answers(sample_store, monkeypatch, caplog):
    monkeypatch.setattr(TraceStore, "busy_timeout", 0.3)
    store = str(sample_store)
    assert runner.invoke(app, ["ask", QUESTION, "--store", store, "--json"]).exit_code == 0
    holder = sqlite3.connect(sample_store / "traces.sqlite")
    holder.execute("BEGIN EXCLUSIVE")  # another process is writing and does not let go
    try:
        with caplog.at_level(logging.WARNING, logger="ragcli"):
            result = runner.invoke(app, ["ask", QUESTION, "--store", store])
            as_json = runner.invoke(app, ["ask", QUESTION, "--store", store, "--json"])
    finally:
        holder.rollback()
        holder.close()
    assert result.exit_code == 0 and "30 days" in result.output, result.output
    assert as_json.exit_code == 0 and "30 days" in json.loads(as_json.output)["answer"]
    saved = [r.getMessage() for r in caplog.records if "trace not saved" in r.getMessage()]
    assert len(saved) == 2 and all("locked" in m for m in saved)
    assert not list(sample_store.glob("traces.sqlite.damaged-*"))  # locked is not damaged
    assert len(TraceStore(sample_store / "traces.sqlite").recent()) == 1


def test_newer_schema_is_left_alone(sample_store, caplog):
    path = sample_store / "traces.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE runs (id TEXT PRIMARY KEY, future_column BLOB)")
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    db.commit()
    db.close()
    with caplog.at_level(logging.WARNING, logger="ragcli"):
        result = runner.invoke(app, ["ask", QUESTION, "--store", str(sample_store), "--json"])
    assert result.exit_code == 0 and "30 days" in json.loads(result.output)["answer"]
    assert any("newer than this ragcli" in r.getMessage() for r in caplog.records)
    version = sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0]
    assert version == SCHEMA_VERSION + 5
    listed = runner.invoke(app, ["trace", "--list", "--store", str(sample_store)])
    assert listed.exit_code == 1 and "upgrade ragcli" in listed.output


def test_every_older_schema_version_is_migrated(tmp_path):
    from tests.support.traces import make_trace

    for start in range(SCHEMA_VERSION):
        path = tmp_path / f"v{start}.sqlite"
        db = sqlite3.connect(path)
        from ragcli.trace.store import MIGRATIONS

        for migration in MIGRATIONS[:start]:
            migration(db)
        db.execute(f"PRAGMA user_version = {start}")
        db.commit()
        db.close()
        store = TraceStore(path)
        store.save(make_trace(f"from v{start}"))
        assert [r["question"] for r in store.recent()] == [f"from v{start}"]
        version = sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0]
        assert version == SCHEMA_VERSION
