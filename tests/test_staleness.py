"""Stale sources at answer time: cited files changed or deleted since their ingest are
listed (stat first, hash only when size or time differ), warned about, and refreshed on
request before answering."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from ragcli import service
from ragcli.pipeline.staleness import stale_sources
from ragcli.store.manifest import Manifest
from tests.support.common import settings_for
from tests.support.storecheck import cli_env, ragcli

BACKUPS = "# Backups\n\nNightly backups are kept for thirty days and restored with dw restore.\n"
BILLING = "# Billing\n\nInvoices are sent on the first day of each month by email.\n"


@pytest.fixture
def library(tmp_path) -> tuple[Path, Path]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "backups.md").write_text(BACKUPS)
    (docs / "billing.md").write_text(BILLING)
    store = tmp_path / "store"
    writer = service.ingestor(settings_for(store))
    writer.run([docs], "docs")
    writer.manifest.close()
    return docs, store


def check(store: Path, paths: list[Path]):
    manifest = Manifest(store / "manifest.sqlite")
    try:
        return stale_sources(manifest, "docs", [str(p) for p in paths])
    finally:
        manifest.close()


def test_changed_missing_touched_and_unknown_files(library):
    docs, store = library
    backups, billing = docs / "backups.md", docs / "billing.md"
    assert check(store, [backups, billing]) == []
    backups.write_text(BACKUPS + "Weekly backups are kept for a year.\n")
    os.utime(billing, ns=(time.time_ns(), time.time_ns() + 10**9))  # touched, same bytes
    found = check(store, [backups, billing, docs / "never-ingested.md", backups])
    assert [(Path(s.path).name, s.state) for s in found] == [("backups.md", "changed")]
    billing.unlink()
    found = check(store, [backups, billing])
    assert [(Path(s.path).name, s.state) for s in found] == [
        ("backups.md", "changed"),
        ("billing.md", "missing"),
    ]


def test_same_size_edit_is_found_by_its_hash(library):
    docs, store = library
    backups = docs / "backups.md"
    backups.write_text(BACKUPS.replace("thirty", "sixty!"))  # same length, new time
    assert [s.state for s in check(store, [backups])] == ["changed"]


@pytest.mark.slow
def test_ask_json_lists_stale_sources_and_refresh_reingests_them(library):
    docs, store = library
    (docs / "backups.md").write_text(BACKUPS.replace("thirty days", "ninety days"))
    args = ("ask", "How long are backups kept?", "--store", str(store), "--json")
    plain = ragcli(*args, cwd=docs.parent, env=cli_env())
    assert plain.returncode in (0, 3), plain.stderr
    result = json.loads(plain.stdout)
    assert [(Path(s["path"]).name, s["state"]) for s in result["stale_sources"]] == [
        ("backups.md", "changed")
    ]
    assert "thirty" in result["answer"] + json.dumps(result["sources"])

    refreshed = ragcli(*args, "--refresh", cwd=docs.parent, env=cli_env())
    assert refreshed.returncode in (0, 3), refreshed.stderr
    result = json.loads(refreshed.stdout)
    assert "stale_sources" not in result  # absent when none is stale
    assert [Path(s["path"]).name for s in result["refreshed_sources"]] == ["backups.md"]
    cited = json.dumps(result["sources"])
    assert "ninety days" in cited and "thirty days" not in cited


@pytest.mark.slow
def test_refresh_drops_a_deleted_source(library):
    docs, store = library
    (docs / "backups.md").unlink()
    settings = settings_for(store)
    result = service.ask(settings, "How long are backups kept?", refresh=True)
    assert [(Path(s.path).name, s.state) for s in result.refreshed_sources] == [
        ("backups.md", "missing")
    ]
    assert result.stale_sources == []
    assert all("backups.md" not in s.metadata.source_file for s in result.sources)


@pytest.mark.slow
def test_terminal_view_marks_stale_sources_and_says_how_to_refresh(library):
    docs, store = library
    (docs / "billing.md").unlink()
    shown = ragcli(
        "ask",
        "When are invoices sent?",
        "--store",
        str(store),
        "--no-stream",
        cwd=docs.parent,
        env=cli_env(COLUMNS="140"),
    )
    assert shown.returncode in (0, 3), shown.stderr
    assert "file deleted" in shown.stdout
    # The command it suggests acts on the same store as the question did.
    assert (
        f"billing.md no longer exists: ask again with --refresh, or run `ragcli rm --store "
        f"{store} " in " ".join(shown.stdout.split())
    )


@pytest.mark.slow
def test_search_lists_stale_files_and_refresh_reingests_them(library):
    docs, store = library
    (docs / "backups.md").write_text(BACKUPS.replace("thirty days", "ninety days"))
    args = ("search", "How long are backups kept?", "--store", str(store))
    found = ragcli(*args, "--json", cwd=docs.parent, env=cli_env())
    assert found.returncode == 0, found.stderr
    result = json.loads(found.stdout)
    assert [(Path(s["path"]).name, s["state"]) for s in result["stale_sources"]] == [
        ("backups.md", "changed")
    ]
    assert "backups.md changed since it was ingested: search again with --refresh" in (
        " ".join(found.stderr.split())
    )

    piped = ragcli(*args, cwd=docs.parent, env=cli_env())  # tab-separated lines on stdout
    assert all(line.count("\t") == 6 for line in piped.stdout.splitlines())
    assert f"`ragcli ingest --store {store} " in " ".join(piped.stderr.split())

    refreshed = ragcli(*args, "--json", "--refresh", cwd=docs.parent, env=cli_env())
    assert refreshed.returncode == 0, refreshed.stderr
    result = json.loads(refreshed.stdout)
    assert "stale_sources" not in result
    assert [Path(s["path"]).name for s in result["refreshed_sources"]] == ["backups.md"]
    texts = " ".join(hit["text"] for hit in result["results"])
    assert "ninety days" in texts and "thirty days" not in texts
