"""`ask --compare` honours the flags `ask` takes (--set, --max-*, --refresh) and refuses,
in one line, the one it cannot (continuing a conversation)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragcli import service
from ragcli.pipeline.staleness import stale_sources
from ragcli.store.manifest import Manifest
from tests.support.common import settings_for

runner = CliRunner()
QUESTION = "How long is the refund window for annual plans?"


def ragcli(*args: str):
    from ragcli.cli import app

    return runner.invoke(app, list(args))


def traces_of(rows: list[dict], store: Path) -> list[dict]:
    return [
        json.loads(ragcli("trace", row["trace_id"], "--json", "--store", str(store)).output)
        for row in rows
    ]


@pytest.mark.slow  # every mode runs
def test_set_and_max_flags_reach_every_modes_run(sample_store):
    result = ragcli(
        "ask",
        QUESTION,
        "--compare",
        "--json",
        "--set",
        "retrieval.top_k=2",
        "--max-llm-calls",
        "7",
        "--max-web-calls",
        "0",
        "--store",
        str(sample_store),
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert len(rows) == 6 and all(row.get("trace_id") for row in rows)
    for trace in traces_of(rows, sample_store):
        assert trace["thresholds"]["retrieval"]["top_k"] == 2
        assert trace["thresholds"]["limits"]["max_llm_calls"] == 7
        assert trace["thresholds"]["limits"]["max_web_calls"] == 0


def test_a_bad_set_value_is_refused_before_any_run(sample_store):
    result = ragcli(
        "ask", QUESTION, "--compare", "--set", "retrieval.top_k=many", "--store", str(sample_store)
    )
    assert result.exit_code == 2
    assert result.output.startswith("error: --set retrieval.top_k=many: ")
    assert "running" not in result.output


@pytest.mark.parametrize("flag", [["--continue"], ["--conversation", "abc123"]])
def test_continuing_a_conversation_is_refused_in_one_line(sample_store, flag):
    result = ragcli("ask", QUESTION, "--compare", *flag, "--store", str(sample_store))
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {flag[0]} with --compare: ")
    assert result.output.count("\n") == 1 and "Traceback" not in result.output


@pytest.mark.slow  # an ingest, then every mode
def test_refresh_reingests_the_changed_sources_once_before_the_modes(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    backups = docs / "backups.md"
    backups.write_text("# Backups\n\nNightly backups are kept for thirty days.\n")
    (docs / "billing.md").write_text("# Billing\n\nInvoices are sent on the first of the month.\n")
    store = tmp_path / "store"
    writer = service.ingestor(settings_for(store))
    writer.run([docs], "docs")
    writer.manifest.close()
    backups.write_text("# Backups\n\nNightly backups are kept for ninety days.\n")

    result = ragcli(
        "ask",
        "How long are backups kept?",
        "--compare",
        "--refresh",
        "--json",
        "--store",
        str(store),
    )
    assert result.exit_code == 0, result.output
    manifest = Manifest(store / "manifest.sqlite")
    try:
        assert stale_sources(manifest, "docs", [str(backups)]) == []
    finally:
        manifest.close()
    standard = next(row for row in json.loads(result.stdout) if row["mode"] == "standard")
    assert "ninety" in standard["answer"]
