"""Files parsed by worker processes (ingest.workers) give the same chunks and outcomes as
parsing in one thread, a file a worker cannot read fails alone, a worker that dies costs
only the file that killed it, and the workers are gone when the ingest returns."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import time
import types
import warnings
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import process as futures_process
from pathlib import Path

import pytest

from ragcli import service
from ragcli.ingest import parse_pool
from ragcli.ingest.chunker import Chunker
from ragcli.ingest.loaders import LoadError, current_options
from tests.support.common import settings_for


def notes(folder: Path, count: int) -> Path:
    folder.mkdir()
    for n in range(count):
        (folder / f"note{n:02d}.md").write_text(f"# Note {n}\n\nHarbour {n} opens at {n + 6} am.\n")
    return folder


def chunks_by_file(settings) -> dict[str, list[str]]:
    got = service.vector_store(settings).collection("docs").get(include=["documents", "metadatas"])
    found: dict[str, list[str]] = {}
    for text, meta in zip(got["documents"], got["metadatas"], strict=True):
        found.setdefault(meta["source_file"].rsplit("/", 1)[-1], []).append(text)
    return {name: sorted(texts) for name, texts in found.items()}


@pytest.mark.slow
def test_worker_processes_parse_as_one_thread_does(tmp_path, monkeypatch):
    docs = notes(tmp_path / "docs", 12)
    (docs / "broken.docx").write_bytes(b"not a zip at all")
    started = []
    real = parse_pool.ParsePool._started

    def counting(self):
        started.append(self.workers)
        return real(self)

    monkeypatch.setattr(parse_pool.ParsePool, "_started", counting)
    monkeypatch.setattr(parse_pool, "POOL_AFTER", 2)
    pooled = settings_for(tmp_path / "pooled", **{"ingest.workers": 2})
    one = settings_for(tmp_path / "one", **{"ingest.workers": 1})
    reports = [service.ingestor(s).run([docs], "docs") for s in (pooled, one)]
    assert started and set(started) == {2}  # the pooled run used the pool, the other not
    for report in reports:
        assert report.count("new") == 12 and report.count("failed") == 1
    failures = [[f.reason for f in r.files if f.status == "failed"] for r in reports]
    assert failures[0] == failures[1]
    assert chunks_by_file(pooled) == chunks_by_file(one)
    assert not live_workers()  # the workers were closed


def live_workers(within: float = 10.0) -> list:
    """The parsing processes still running after `within` seconds. A worker that died just
    now can be listed for a moment: the executor's thread and this one both wait for it,
    and the one that loses that race reads it as running until the other records its end.
    A worker left waiting for work (the defect these tests guard against) is listed
    however long this waits."""
    deadline = time.monotonic() + within
    while (running := multiprocessing.active_children()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return running


def chunk_with(ingestor, kind: type[Chunker]) -> None:
    """The ingest's chunker, as a `kind` (pickled into the spawned workers with it)."""
    chunker = kind.__new__(kind)
    chunker.__dict__.update(vars(ingestor.chunker))
    ingestor.chunker = chunker


# A module standing for Pillow's PIL/Image.py, imported in every worker with this file: as
# warnings.warn() does, a warning from its line is recorded in its registry, and Python
# shows it once per process.
PILLOW = types.ModuleType("pillow_like_image")
PILLOW.__file__ = "/venv/lib/python3.11/site-packages/PIL/Image.py"
PILLOW.__warningregistry__ = {}
sys.modules[PILLOW.__name__] = PILLOW


class WarningChunker(Chunker):
    """Warns, as Pillow does from its own file, while a text holding "WARN ME" is read."""

    def chunk(self, sections):
        if any("WARN ME" in s.text for s in sections):
            warnings.warn_explicit(
                "Palette images should be converted",
                UserWarning,
                PILLOW.__file__,
                1,
                registry=PILLOW.__warningregistry__,
            )
        return super().chunk(sections)


@pytest.mark.slow
def test_a_library_warning_becomes_the_files_note_in_a_worker_and_in_one_thread(
    tmp_path, monkeypatch, capfd
):
    docs = notes(tmp_path / "docs", 6)
    # Alike, the second warns from the same line; after the notes, so that with two workers
    # the pool reads them, not the thread that reads the first files.
    for name in ("warn-logo", "warn-icon"):
        (docs / f"{name}.md").write_text(f"# {name}\n\nWARN ME, the {name} is a palette image.\n")
    monkeypatch.setattr(parse_pool, "POOL_AFTER", 2)
    for workers in (2, 1):
        settings = settings_for(tmp_path / f"w{workers}", **{"ingest.workers": workers})
        ingestor = service.ingestor(settings)
        chunk_with(ingestor, WarningChunker)
        report = ingestor.run([docs], "docs")
        noted = {f.path.rsplit("/", 1)[-1]: f.reason for f in report.files if f.reason}
        note = "PIL warned: Palette images should be converted"
        assert noted == {"warn-logo.md": note, "warn-icon.md": note}
        assert report.count("new") == 8  # read and stored all the same
    # Nothing reached the terminal, from this process or a worker, to break the progress line.
    assert "Palette" not in capfd.readouterr().err


class KillingChunker(Chunker):
    """Kills the worker process that chunks a text holding "KILL ME", as the kernel's
    out-of-memory killer would (pickled into the spawned workers as the ingest's chunker)."""

    def chunk(self, sections):
        if any("KILL ME" in s.text for s in sections):
            os.kill(os.getpid(), signal.SIGKILL)
        return super().chunk(sections)


@pytest.mark.slow
@pytest.mark.timeout(120)  # a pool that waits for a dead worker's result never returns
def test_a_worker_that_dies_fails_only_the_file_it_was_reading(tmp_path, monkeypatch):
    docs = notes(tmp_path / "docs", 10)
    (docs / "note04b.md").write_text("# Poison\n\nKILL ME when you read this.\n")
    monkeypatch.setattr(parse_pool, "POOL_AFTER", 0)
    settings = settings_for(tmp_path / "store", **{"ingest.workers": 2})
    ingestor = service.ingestor(settings)
    chunk_with(ingestor, KillingChunker)
    report = ingestor.run([docs], "docs")
    failed = [(f.path.rsplit("/", 1)[-1], f.reason) for f in report.files if f.status == "failed"]
    assert failed == [
        ("note04b.md", "the process reading it stopped (killed, out of memory or crashed)")
    ]
    assert report.count("new") == 10  # the files parsed beside it in the broken pool too
    assert len(chunks_by_file(settings)) == 10
    assert not live_workers()


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_worker_started_just_as_another_dies_is_ended_too(tmp_path, monkeypatch):
    """The executor's race, made certain: the second worker of the first pool is started for
    a parse submitted as the first worker dies, and the executor adds it to its workers only
    after it has terminated them. Left alive, that worker waits for work forever, and the
    executor's thread waits for it, so the process that ingested would never leave."""
    docs = notes(tmp_path / "docs", 4)
    (docs / "a-poison.md").write_text("# Poison\n\nKILL ME when you read this.\n")
    monkeypatch.setattr(parse_pool, "POOL_AFTER", 0)
    real_spawn = ProcessPoolExecutor._spawn_process
    raced = []

    def spawn_late(executor):
        if raced or len(executor._processes) != 1:
            return real_spawn(executor)
        raced.append(True)
        first = next(iter(executor._processes.values()))
        worker = executor._mp_context.Process(
            target=futures_process._process_worker,
            args=(
                executor._call_queue,
                executor._result_queue,
                executor._initializer,
                executor._initargs,
                executor._max_tasks_per_child,
            ),
        )
        worker.start()
        first.join(timeout=30)  # it reads a-poison.md
        deadline = time.monotonic() + 30
        while executor._pending_work_items and time.monotonic() < deadline:
            time.sleep(0.01)  # the executor fails the parses, then terminates its workers
        time.sleep(0.5)
        executor._processes[worker.pid] = worker

    monkeypatch.setattr(ProcessPoolExecutor, "_spawn_process", spawn_late)
    settings = settings_for(tmp_path / "store", **{"ingest.workers": 2})
    ingestor = service.ingestor(settings)
    chunk_with(ingestor, KillingChunker)
    try:
        report = ingestor.run([docs], "docs")
        assert raced
        failed = [f.path.rsplit("/", 1)[-1] for f in report.files if f.status == "failed"]
        assert failed == ["a-poison.md"]
        assert report.count("new") == 4
        assert not live_workers()
    finally:
        parse_pool.end_workers()  # so that a failure here does not leave pytest waiting


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_parse_submitted_to_a_pool_found_broken_goes_to_a_fresh_pool(tmp_path, monkeypatch):
    """A file handed over after a worker died, before any parse has told the pool so."""
    docs = notes(tmp_path / "docs", 1)
    (docs / "poison.md").write_text("# Poison\n\nKILL ME when you read this.\n")
    monkeypatch.setattr(parse_pool, "POOL_AFTER", 0)
    ingestor = service.ingestor(settings_for(tmp_path / "store"))
    chunk_with(ingestor, KillingChunker)
    pool = parse_pool.ParsePool(ingestor.chunker, current_options(), workers=2)
    try:
        poisoned = pool.submit(docs / "poison.md")
        executor = pool._pool
        deadline = time.monotonic() + 60
        while not executor._broken and time.monotonic() < deadline:
            time.sleep(0.01)
        assert executor._broken
        note = pool.submit(docs / "note00.md")
        assert "Harbour 0 opens at 6 am." in note().chunks[0].text
        with pytest.raises(LoadError, match="the process reading it stopped"):
            poisoned()
    finally:
        pool.close()
    assert not live_workers()
