"""A real `ragcli ingest` killed with SIGKILL at named points (RAGCLI_CRASH_AT), then run
again, ends with exactly the store an uninterrupted run makes."""

from __future__ import annotations

import json
import random
import shutil
import signal
from pathlib import Path

import pytest

from tests.support.corpus import WORDS, comparable, ingest, make_corpus, write_doc
from tests.support.storecheck import assert_consistent, cli_env, ragcli, store_state

# Every test runs real ingests in fresh interpreters and kills them: seconds each.
pytestmark = pytest.mark.slow


def without_mtimes(state: dict) -> dict:
    """Files rewritten with the same bytes differ only in their mtimes."""
    return {**comparable(state), "manifest": [r[:3] + r[4:] for r in state["manifest"]]}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Twelve documents and the store an uninterrupted ingest makes of them."""
    root = tmp_path_factory.mktemp("corpus")
    docs = root / "docs"
    make_corpus(docs, list(range(1, 13)))
    result = ingest(docs, root / "reference")
    assert result.returncode == 0, result.stderr
    return docs, store_state(root / "reference")


@pytest.mark.parametrize("crash_at", ["after_upsert:3", "before_checkpoint:1"])
def test_first_ingest_killed_then_rerun_matches_uninterrupted(corpus, tmp_path, crash_at):
    docs, expected = corpus
    store = tmp_path / "store"
    killed = ingest(docs, store, crash_at=crash_at)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    rerun = ingest(docs, store)
    assert rerun.returncode == 0, rerun.stderr
    assert json.loads(rerun.stdout)["recovered"], "the journal should have named the file"
    state = store_state(store)
    assert_consistent(state)
    assert comparable(state) == comparable(expected)


def test_repeated_kills_at_random_points_then_one_full_run(corpus, tmp_path):
    docs, expected = corpus
    store = tmp_path / "store"
    rng = random.Random(8)
    # Each point with how often one run passes it (the journal and the manifest rows are
    # written once per batch).
    points = {
        "after_journal": 1,
        "after_upsert": 12,
        "after_stale_delete": 12,
        "after_manifest": 1,
    }
    for _ in range(3):
        point = rng.choice(sorted(points))
        crash_at = f"{point}:{rng.randint(1, points[point])}"
        assert ingest(docs, store, crash_at=crash_at).returncode == -signal.SIGKILL, crash_at
    final = ingest(docs, store)
    assert final.returncode == 0, final.stderr
    state = store_state(store)
    assert_consistent(state)
    assert comparable(state) == comparable(expected)


@pytest.fixture(scope="module")
def edited(tmp_path_factory):
    """A store of three documents, then the tree edited (one changed, one deleted, one
    new), and the store an uninterrupted `ingest --prune` makes of the edited tree."""
    root = tmp_path_factory.mktemp("edited")
    docs = root / "docs"
    make_corpus(docs, [1, 2, 3])
    assert ingest(docs, root / "before").returncode == 0
    write_doc(docs / "doc1.md", 101)
    (docs / "doc2.md").unlink()
    write_doc(docs / "doc4.md", 4)
    shutil.copytree(root / "before", root / "reference")
    assert ingest(docs, root / "reference", "--prune").returncode == 0
    return docs, root / "before", store_state(root / "reference")


@pytest.mark.parametrize(
    "crash_at",
    ["after_stale_delete:1", "after_stale_delete:2", "after_manifest:1", "after_remove_chunks:1"],
)
def test_update_with_change_add_and_prune_killed_then_rerun_matches(edited, tmp_path, crash_at):
    docs, before, expected = edited
    store = tmp_path / "store"
    shutil.copytree(before, store)
    killed = ingest(docs, store, "--prune", crash_at=crash_at)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    rerun = ingest(docs, store, "--prune")
    assert rerun.returncode == 0, rerun.stderr
    state = store_state(store)
    assert_consistent(state)
    assert comparable(state) == comparable(expected)


def test_files_deleted_while_half_stored_are_rolled_back(tmp_path):
    """Killed after the new versions' chunks went in (a changed file and a new one), and
    both files are then deleted: the next ingest leaves the store as if the killed run
    had never touched them: the changed file keeps its committed version, the new one
    leaves nothing behind."""
    docs = tmp_path / "docs"
    make_corpus(docs, [1, 2])
    store = tmp_path / "store"
    assert ingest(docs, store).returncode == 0
    committed = store_state(store)
    write_doc(docs / "doc1.md", 77)
    write_doc(docs / "doc0.md", 9)  # stored (and committed) first, then doc1 is cut short
    assert ingest(docs, store, crash_at="after_upsert:2").returncode == -signal.SIGKILL
    (docs / "doc1.md").unlink()
    (docs / "doc0.md").unlink()
    rerun = ingest(docs, store)
    assert rerun.returncode == 0, rerun.stderr
    state = store_state(store)
    assert_consistent(state)
    assert comparable(state) == comparable(committed)
    repaired = {Path(r["path"]).name: r["action"] for r in json.loads(rerun.stdout)["recovered"]}
    assert repaired == {"doc1.md": "rolled back", "doc0.md": "reset"}


def test_large_file_killed_mid_stream(tmp_path):
    """A streamed file (here: streaming from 2 KB on) killed after its second slice."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "big.txt").write_text(
        "\n\n".join(" ".join(random.Random(i).choice(WORDS) for _ in range(150)) for i in range(12))
    )
    store = tmp_path / "store"
    prelude = "import ragcli.ingest.runner as r; r.STREAM_BYTES = 2048; r.FLUSH_CHUNKS = 4"
    env = cli_env(RAGCLI_CRASH_AT="after_upsert:2")
    args = ("ingest", str(docs), "--json")
    killed = ragcli(*args, "--store", str(store), cwd=tmp_path, env=env, prelude=prelude)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    half = store_state(store)
    assert half["count"] == 8 and half["manifest"] == []  # two slices of four, uncommitted
    rerun = ragcli(*args, "--store", str(store), cwd=tmp_path, prelude=prelude)
    assert rerun.returncode == 0, rerun.stderr
    state = store_state(store)
    assert_consistent(state)
    assert state["count"] > 8 and all(c[4] == state["count"] for c in state["chunks"])
    ref = ragcli(*args, "--store", str(tmp_path / "ref"), cwd=tmp_path, prelude=prelude)
    assert ref.returncode == 0, ref.stderr
    assert comparable(state) == comparable(store_state(tmp_path / "ref"))


def test_timed_kills_inside_library_calls(corpus, tmp_path):
    """Killed at arbitrary moments once the batch is under way (inside embedding, inside
    Chroma's writes), twice, then one full run."""
    import sqlite3
    import subprocess
    import sys
    import time

    docs, expected = corpus
    store = tmp_path / "store"
    rng = random.Random(3)
    args = ["ragcli", "ingest", str(docs), "--store", str(store)]
    code = f"import sys\nfrom ragcli.cli import main\nsys.argv = {args!r}\nmain()"
    interrupted = 0
    for _ in range(2):
        process = subprocess.Popen(
            [sys.executable, "-c", code],
            cwd=tmp_path,
            env=cli_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 120
        while process.poll() is None and time.monotonic() < deadline:
            try:
                db = sqlite3.connect(store / "manifest.sqlite", timeout=0.1)
                journaled = db.execute("SELECT count(*) FROM journal").fetchone()[0]
                db.close()
            except sqlite3.Error:
                journaled = 0
            if journaled:
                break
            time.sleep(0.02)
        # Once the batch is journaled only its writes remain (a fraction of a second).
        time.sleep(rng.uniform(0.0, 0.03))
        process.send_signal(signal.SIGKILL)
        interrupted += process.wait() == -signal.SIGKILL
    assert interrupted >= 1  # at least one kill landed before the run could finish
    final = ingest(docs, store)
    assert final.returncode == 0, final.stderr
    state = store_state(store)
    assert_consistent(state)
    assert comparable(state) == comparable(expected)
