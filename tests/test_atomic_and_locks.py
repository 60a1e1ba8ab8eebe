"""One atomic-write helper and one lock class, and what each promises."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ragcli.atomic import atomic_path, write_text_atomically
from ragcli.bm25 import build as lexical_build
from ragcli.bm25.sync import SyncState
from ragcli.errors import ExitCode
from ragcli.store.lock import FileLock, StoreBusyError, StoreLock

PACKAGE = Path(__file__).resolve().parent.parent / "ragcli"


def calls(tree: ast.AST) -> set[str]:
    """`os.replace`, `fcntl.flock` ...: the dotted calls and imported modules of a file."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            found.add(f"{node.value.id}.{node.attr}")
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def users(name: str) -> list[str]:
    return sorted(
        str(path.relative_to(PACKAGE.parent))
        for path in PACKAGE.rglob("*.py")
        if name in calls(ast.parse(path.read_text(encoding="utf-8")))
    )


def test_one_module_renames_files_into_place_and_one_locks():
    assert users("os.replace") == ["ragcli/atomic.py"]
    assert users("fcntl") == [] and users("filelock") == ["ragcli/store/lock.py"]


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(tmp_path):
    target = tmp_path / "state.json"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("killed mid-write")
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == [target.name]
    write_text_atomically(target, "new")
    assert target.read_text() == "new" and [p.name for p in tmp_path.iterdir()] == [target.name]


def test_the_sync_state_reaches_the_disk_before_it_replaces_the_old_one(tmp_path, monkeypatch):
    """Its helper used to rename without fsync: a power cut could leave an empty file."""
    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd))[1])
    path = tmp_path / "sync.json"
    SyncState("http://chroma:8000", "head-1", {"r1"}).save(path)
    assert len(synced) == 2  # the file, then the folder holding the rename
    assert SyncState.load(path) == SyncState("http://chroma:8000", "head-1", {"r1"})


def test_a_waiter_gets_the_lock_only_when_the_holder_releases_it(tmp_path):
    holder = StoreLock(tmp_path, timeout=0)
    holder.acquire()
    got = threading.Event()

    def waiter() -> None:
        with StoreLock(tmp_path, timeout=30, poll=0.01):
            got.set()

    thread = threading.Thread(target=waiter)
    thread.start()
    assert not got.wait(0.5)  # held: the waiter waits
    holder.release()
    assert got.wait(30)
    thread.join()


def test_a_lock_held_by_another_process_names_its_pid(tmp_path):
    code = (
        "import sys, time\nfrom pathlib import Path\nfrom ragcli.store.lock import StoreLock\n"
        "lock = StoreLock(Path(sys.argv[1]), timeout=0)\nlock.acquire()\n"
        "print('held', flush=True)\nsys.stdin.read()\n"
    )
    other = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=PACKAGE.parent,
    )
    try:
        assert other.stdout is not None and other.stdout.readline() == "held\n"
        with pytest.raises(StoreBusyError) as busy:
            StoreLock(tmp_path, timeout=0.2).acquire()
        assert f"another ingest is running (pid {other.pid}); waited 0.2s" in str(busy.value)
        assert busy.value.exit_code == ExitCode.BUSY
    finally:
        other.communicate("")
    with StoreLock(tmp_path, timeout=0):  # its exit released it
        pass


def test_the_build_lock_is_the_same_lock(tmp_path):
    building = lexical_build.BuildLock(tmp_path / "lexical" / "docs")
    assert isinstance(building, FileLock) and building.try_acquire()
    assert lexical_build.running(tmp_path / "lexical" / "docs")
    building.close()
    assert not lexical_build.running(tmp_path / "lexical" / "docs")
