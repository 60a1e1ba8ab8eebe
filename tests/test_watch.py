"""`ragcli ingest --watch`: the store follows the files. The bursts a watcher sees are
applied in process first (deterministic), then a real watcher runs under load and is
killed mid-burst; each time the store must equal a fresh ingest of the final tree."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ragcli.bm25.index import LexicalIndex
from ragcli.bm25.sync import lexical_dir
from ragcli.ingest.watch import Watcher
from tests.support.corpus import comparable, ingest
from tests.support.embedders import counting_ingestor
from tests.support.storecheck import assert_consistent, cli_env, store_state

WORDS = "backup restore archive sync node cluster token quota invoice refund policy".split()


def short_doc(path: Path, seed: int) -> None:
    """A one-chunk document: load tests stay about files, not embedding."""
    rng = random.Random(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# Note {seed}\n\n" + " ".join(rng.choice(WORDS) for _ in range(25)) + "\n")


def full_state(store: Path) -> dict:
    return {
        **comparable(store_state(store)),
        "bm25": sorted(LexicalIndex(lexical_dir(store, "docs")).ids()),
    }


def fresh_state(docs: Path, tmp: Path) -> dict:
    store = tmp / "fresh"
    shutil.rmtree(store, ignore_errors=True)
    result = ingest(docs, store)
    assert result.returncode == 0, result.stderr
    return full_state(store)


class Log:
    def __init__(self):
        self.lines = []

    def __call__(self, change):
        self.lines.append(change)

    def take(self):
        lines, self.lines = self.lines, []
        return [(c.action, Path(c.path).name, c.chunks, c.reused) for c in lines]


def burst(watcher: Watcher, *paths: Path):
    watcher.pending |= set(paths)
    return watcher.apply()


@pytest.mark.slow
def test_bursts_apply_creations_changes_renames_and_deletions(tmp_path):
    docs = tmp_path / "docs"
    short_doc(docs / "a.md", 1)
    short_doc(docs / "b.md", 2)
    (docs / ".ragignore").write_text("drafts/\n")
    store = tmp_path / "store"
    ingestor = counting_ingestor(store)
    ingestor.run([docs], "docs", prune=True)
    log = Log()
    watcher = Watcher(ingestor, [docs], "docs", log)

    short_doc(docs / "c.md", 3)
    burst(watcher, docs / "c.md")
    assert log.take() == [("new", "c.md", 1, False)]

    # An editor's save: the new text goes to a hidden temp file renamed over the original.
    temp = docs / ".a.md.swp"
    short_doc(temp, 11)
    temp.replace(docs / "a.md")
    burst(watcher, temp, docs / "a.md")
    assert log.take() == [("changed", "a.md", 1, False)]

    # Another: delete, then write anew, seen in one burst.
    (docs / "b.md").unlink()
    short_doc(docs / "b.md", 12)
    burst(watcher, docs / "b.md")
    assert log.take() == [("changed", "b.md", 1, False)]

    embedded = ingestor.embedder.texts
    (docs / "c.md").rename(docs / "sub-c.md")
    burst(watcher, docs / "c.md", docs / "sub-c.md")
    assert log.take() == [("moved", "sub-c.md", 1, True)]
    assert ingestor.embedder.texts == embedded  # a rename embeds nothing

    (docs / "sub").mkdir()
    (docs / "sub-c.md").rename(docs / "sub" / "c.md")
    short_doc(docs / "drafts" / "wip.md", 5)  # .ragignore'd
    short_doc(docs / ".hidden.md", 6)
    burst(watcher, docs / "sub-c.md", docs / "sub", docs / "drafts", docs / ".hidden.md")
    assert log.take() == [("moved", "c.md", 1, True)]

    shutil.rmtree(docs / "sub")
    burst(watcher, docs / "sub")  # a deleted folder: every file under it goes
    assert log.take() == [("removed", "c.md", 1, False)]

    short_doc(docs / "a.md", 11)  # the same bytes again: nothing to say
    burst(watcher, docs / "a.md")
    assert log.take() == []
    ingestor.manifest.close()
    state = full_state(store)
    assert_consistent(store_state(store))
    assert state == fresh_state(docs, tmp_path)


def test_a_locked_store_keeps_the_burst_for_later(tmp_path):
    docs = tmp_path / "docs"
    short_doc(docs / "a.md", 1)
    store = tmp_path / "store"
    ingestor = counting_ingestor(store)
    ingestor.run([docs], "docs")
    ingestor.writer.lock.timeout = 0.2
    log = Log()
    watcher = Watcher(ingestor, [docs], "docs", log)
    short_doc(docs / "b.md", 2)
    fd = os.open(store / "ingest.lock", os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)  # another ingest is writing
    try:
        assert burst(watcher, docs / "b.md") is None
    finally:
        os.close(fd)
    assert [c.action for c in log.lines] == ["error"] and "another ingest" in log.lines[0].reason
    assert watcher.pending == {docs / "b.md"}
    log.take()
    watcher.apply()
    assert log.take() == [("new", "b.md", 1, False)]


# -- a real watcher, in a subprocess --------------------------------------------------------


class WatchProcess:
    def __init__(self, docs: Path, store: Path, **env: str):
        args = ["ragcli", "ingest", str(docs), "--store", str(store), "--watch", "--json"]
        code = f"import sys\nfrom ragcli.cli import main\nsys.argv = {args!r}\nmain()"
        self.store = store
        self.process = subprocess.Popen(
            [sys.executable, "-c", code],
            cwd=docs.parent,
            env=cli_env(**env),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.changes: list[dict] = []
        self.stderr: list[str] = []
        self.watching = threading.Event()
        self.readers = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for reader in self.readers:
            reader.start()

    def _read_stdout(self):
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith('{"action"'):
                self.changes.append(json.loads(line))

    def _read_stderr(self):
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr.append(line)
            if line.startswith("watching"):
                self.watching.set()

    def wait_watching(self):
        assert self.watching.wait(300), "".join(self.stderr)

    def _lock_free(self) -> bool:
        fd = os.open(self.store / "ingest.lock", os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False
        finally:
            os.close(fd)  # closing drops a lock taken here

    def _stored_hashes(self) -> list[str] | None:
        """The contents the manifest holds, or None while a write is open (journaled)."""
        try:
            with sqlite3.connect(f"file:{self.store / 'manifest.sqlite'}?mode=ro", uri=True) as db:
                if db.execute("SELECT count(*) FROM journal").fetchone()[0]:
                    return None
                return sorted(row[0] for row in db.execute("SELECT sha256 FROM files"))
        except sqlite3.Error:  # not created yet, or busy
            return None

    def settle(self, docs: Path, limit: float = 600):
        """Until the store holds exactly the tree's files as they are now (every file's
        contents differ, so the hashes say so), no write is open and none holds the lock:
        the event itself rather than a quiet spell. `limit` is slack for a loaded machine."""
        tree = sorted(hashlib.sha256(p.read_bytes()).hexdigest() for p in docs.rglob("*.md"))
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if self._stored_hashes() == tree and self._lock_free():
                return
            time.sleep(0.25)
        raise AssertionError("the watcher did not catch up: " + "".join(self.stderr))


def bursts_of_edits(docs: Path, files: int, rng: random.Random, pause: float) -> None:
    """Creates `files` files, then edits, renames and deletes among them, in bursts."""
    names = [docs / f"group{i % 7}" / f"note{i}.md" for i in range(files)]
    for start in range(0, files, 50):
        for i, path in enumerate(names[start : start + 50], start=start):
            short_doc(path, i)
        time.sleep(pause)
    seeds = iter(range(1000, 2000))  # every edit new text: no two files alike
    for round_ in range(3):
        for path in rng.sample(names, 40):  # edits
            if path.exists():
                short_doc(path, next(seeds))
        for i, path in enumerate(rng.sample(names, 20)):  # renames and moves
            if path.exists():
                target = docs / f"moved{round_}" / f"{path.stem}-{i}.md"
                target.parent.mkdir(exist_ok=True)
                path.rename(target)
                names[names.index(path)] = target
        for path in rng.sample(names, 15):  # deletions
            if path.exists():
                path.unlink()
        time.sleep(pause)
    shutil.rmtree(docs / "group3")  # and a whole folder


@pytest.mark.slow
@pytest.mark.timeout(1200)  # 500 files in bursts, then waits for the watcher to catch up
def test_watch_under_load_ends_as_a_fresh_ingest(tmp_path):
    docs = tmp_path / "docs"
    short_doc(docs / "seed.md", 0)
    store = tmp_path / "store"
    watcher = WatchProcess(docs, store)
    try:
        watcher.wait_watching()
        bursts_of_edits(docs, 500, random.Random(5), pause=0.4)
        watcher.settle(docs)
        watcher.process.send_signal(signal.SIGINT)
        assert watcher.process.wait(60) == 0, "".join(watcher.stderr)
        for reader in watcher.readers:  # till its last lines are read
            reader.join(timeout=30)
    finally:
        if watcher.process.poll() is None:
            watcher.process.kill()
    assert any(c["action"] == "moved" and c["reused"] for c in watcher.changes)
    assert "stopped watching" in "".join(watcher.stderr)
    state = full_state(store)
    assert_consistent(store_state(store))
    assert state == fresh_state(docs, tmp_path)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_watcher_killed_mid_burst_is_repaired_by_the_next_ingest(tmp_path):
    docs = tmp_path / "docs"
    short_doc(docs / "seed.md", 0)
    store = tmp_path / "store"
    watcher = WatchProcess(docs, store)
    try:
        watcher.wait_watching()
        bursts_of_edits(docs, 200, random.Random(9), pause=0.4)
        deadline = time.monotonic() + 120
        while watcher._lock_free() and time.monotonic() < deadline:
            time.sleep(0.01)  # into a write
        time.sleep(random.Random(2).uniform(0.0, 0.3))
    finally:
        watcher.process.kill()
    watcher.process.wait(30)
    rerun = ingest(docs, store, "--prune")
    assert rerun.returncode == 0, rerun.stderr
    state = full_state(store)
    assert_consistent(store_state(store))
    assert state == fresh_state(docs, tmp_path)
