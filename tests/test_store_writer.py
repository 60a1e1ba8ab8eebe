"""The store's writer (ingest/writer.py), shared by ingest, `ragcli rm` and `--refresh`:
removing files loads no embedding model, every write holds the store's lock, and the
manifest is closed and the lock released on every path out, errors included."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from ragcli import service
from ragcli.store.lock import StoreBusyError, StoreLock
from ragcli.store.manifest import Manifest
from ragcli.store.vectors import VectorStore
from tests.support.common import SAMPLE, settings_for

MODEL_MODULES = ("onnxruntime", "torch", "sentence_transformers")


@pytest.mark.slow  # a fresh interpreter, then rm
def test_rm_in_a_fresh_process_loads_no_model(sample_store, tmp_path):
    target = SAMPLE / "policies" / "refund_policy.md"
    assert target.is_file()
    code = (
        "import json, sys\n"
        f"sys.argv = ['ragcli', 'rm', {str(target)!r}, '--store', {str(sample_store)!r},"
        " '--collection', 'docs', '--json']\n"
        "from ragcli.cli import app\n"
        "try:\n    app()\nexcept SystemExit as exit:\n    code = exit.code\nelse:\n    code = 0\n"
        f"loaded = sorted({{m.split('.')[0] for m in sys.modules}} & set({MODEL_MODULES!r}))\n"
        "print(json.dumps({'exit': code, 'loaded': loaded}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    lines = out.stdout.strip().splitlines()
    assert json.loads(lines[-1]) == {"exit": 0, "loaded": []}, out.stderr[-2000:]
    removal = json.loads("\n".join(lines[:-1]))
    assert [f["path"] for f in removal["files"]] == [str(target)]
    assert removal["chunks_removed"] > 0
    files = Manifest(sample_store / "manifest.sqlite")
    try:
        assert files.get("docs", str(target)) is None
    finally:
        files.close()


@pytest.fixture
def opened_manifests(monkeypatch) -> list[Manifest]:
    """Every Manifest opened from here on, to check each was closed."""
    opened: list[Manifest] = []
    original = Manifest.__init__

    def recording(self, path):
        original(self, path)
        opened.append(self)

    monkeypatch.setattr(Manifest, "__init__", recording)
    return opened


def closed(manifest: Manifest) -> bool:
    try:
        manifest.db.execute("SELECT 1")
    except sqlite3.ProgrammingError:
        return True
    return False


def lock_is_free(store: Path) -> bool:
    probe = StoreLock(store, 0)
    if probe.try_acquire():
        probe.release()
        return True
    return False


def ingested(store: Path, path: Path) -> bool:
    files = Manifest(store / "manifest.sqlite")
    try:
        return files.get("docs", str(path)) is not None
    finally:
        files.close()


REFUND = SAMPLE / "policies" / "refund_policy.md"


def test_rm_holds_the_store_lock_while_it_deletes(sample_store, monkeypatch):
    held: list[bool] = []
    delete = VectorStore.delete

    def watched(self, *args, **kwargs):
        held.append(not lock_is_free(sample_store))
        return delete(self, *args, **kwargs)

    monkeypatch.setattr(VectorStore, "delete", watched)
    service.remove(settings_for(sample_store), [REFUND])
    assert held == [True]
    assert lock_is_free(sample_store)
    assert not ingested(sample_store, REFUND)


def test_rm_waits_for_the_lock_and_removes_nothing_when_it_is_held(sample_store):
    settings = settings_for(sample_store, **{"store.lock_timeout": 0.2})
    holder = StoreLock(sample_store, 0)
    assert holder.try_acquire()
    try:
        with pytest.raises(StoreBusyError):
            service.remove(settings, [REFUND])
    finally:
        holder.release()
    assert ingested(sample_store, REFUND)


def test_rm_that_fails_closes_the_manifest_and_frees_the_lock(
    sample_store, monkeypatch, opened_manifests
):
    def broken(self, *args, **kwargs):
        raise RuntimeError("the disk went away")

    monkeypatch.setattr(VectorStore, "delete", broken)
    with pytest.raises(RuntimeError, match="the disk went away"):
        service.remove(settings_for(sample_store), [REFUND])
    assert opened_manifests and all(closed(m) for m in opened_manifests)
    assert lock_is_free(sample_store)


def retrieving(store, path: Path):
    """A search whose results cite `path`: what --refresh checks."""
    chunk = SimpleNamespace(metadata=SimpleNamespace(source_file=str(path)))
    return SimpleNamespace(search=lambda question, k: [chunk], store=store, embedder=None)


@pytest.fixture
def deleted_source(tmp_path) -> tuple[Path, Path]:
    docs = tmp_path / "docs"
    docs.mkdir()
    kept, gone = docs / "kept.md", docs / "gone.md"
    kept.write_text("# Kept\n\nBackups are kept for thirty days.\n")
    gone.write_text("# Gone\n\nInvoices are sent monthly.\n")
    store = tmp_path / "store"
    ingest = service.ingestor(settings_for(store))
    ingest.run([docs], "docs")
    ingest.close()
    gone.unlink()
    return store, gone


def test_refresh_of_a_deleted_source_holds_the_lock(deleted_source, monkeypatch):
    store, gone = deleted_source
    settings = settings_for(store, **{"store.lock_timeout": 0.2})
    search = retrieving(service.vector_store(settings), gone)
    holder = StoreLock(store, 0)
    assert holder.try_acquire()
    try:
        with pytest.raises(StoreBusyError):
            service.refresh_stale(settings, search, "invoices?", "docs")
    finally:
        holder.release()
    assert ingested(store, gone)
    refreshed = service.refresh_stale(settings, search, "invoices?", "docs")
    assert [(s.path, s.state) for s in refreshed] == [(str(gone), "missing")]
    assert not ingested(store, gone)


def test_refresh_that_fails_closes_the_manifest_and_frees_the_lock(
    deleted_source, monkeypatch, opened_manifests
):
    store, gone = deleted_source
    settings = settings_for(store)
    search = retrieving(service.vector_store(settings), gone)

    def broken(self, *args, **kwargs):
        raise RuntimeError("the disk went away")

    monkeypatch.setattr(VectorStore, "delete", broken)
    with pytest.raises(RuntimeError, match="the disk went away"):
        service.refresh_stale(settings, search, "invoices?", "docs")
    assert opened_manifests and all(closed(m) for m in opened_manifests)
    assert lock_is_free(store)
