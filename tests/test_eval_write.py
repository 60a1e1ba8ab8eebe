"""`ragcli eval` writes its BEIR corpus through the ingest's one write path: a real eval
killed at the ingest's crash points (RAGCLI_CRASH_AT) leaves a journal the next eval
repairs, ending with exactly the store (Chroma, manifest, BM25 mirror) an uninterrupted
eval makes. A second copy of the write path would have none of those crash points."""

from __future__ import annotations

import json
import shutil
import signal
from pathlib import Path

import pytest

from ragcli.bm25.index import LexicalIndex
from ragcli.bm25.sync import lexical_dir
from tests.support.storecheck import assert_consistent, cli_env, ragcli, store_state

# Real `ragcli eval` runs killed and rerun in fresh interpreters.
pytestmark = pytest.mark.slow


COLLECTION = "eval-tiny"
# Batches of three chunks, so a run journals, writes and checkpoints several times.
PRELUDE = "import ragcli.ingest.runner as r; r.FLUSH_CHUNKS = 3"
ANIMALS = "zebra lion giraffe hippo okapi meerkat rhino gazelle".split()


def corpus(edited: bool = False) -> list[dict[str, str]]:
    docs = [
        {"_id": f"d{n}", "title": f"On the {a}", "text": f"The {a} lives on the savanna {n}."}
        for n, a in enumerate(ANIMALS, start=1)
    ]
    if edited:  # d2 dropped, d3 changed
        docs = [d for d in docs if d["_id"] != "d2"]
        docs[1] = {**docs[1], "text": "The giraffe eats acacia leaves at dusk."}
    return docs


def write_dataset(directory: Path, docs: list[dict[str, str]]) -> Path:
    (directory / "qrels").mkdir(parents=True, exist_ok=True)
    (directory / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    (directory / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "zebra"}) + "\n")
    (directory / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    return directory


def evaluate(data: Path, store: Path, crash_at: str | None = None):
    env = cli_env(**({"RAGCLI_CRASH_AT": crash_at} if crash_at else {}))
    args = ("eval", str(data), "--store", str(store), "-r", "bm25", "--json")
    return ragcli(*args, cwd=data.parent, env=env, prelude=PRELUDE)


def state(store: Path) -> dict:
    """The store's chunks and manifest, and the BM25 index's ids as saved on disk."""
    found = store_state(store, COLLECTION)
    found["bm25"] = sorted(LexicalIndex(lexical_dir(store, COLLECTION)).ids())
    return found


def comparable(found: dict) -> dict:
    return {k: v for k, v in found.items() if k != "journal"}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The dataset and the store an uninterrupted eval makes of it."""
    root = tmp_path_factory.mktemp("eval-write")
    data = write_dataset(root / "tiny", corpus())
    result = evaluate(data, root / "reference")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["ingest"]["new"] == len(ANIMALS)
    expected = state(root / "reference")
    assert expected["bm25"] == sorted(c[0] for c in expected["chunks"])  # mirrored
    return data, root / "reference", expected


@pytest.mark.parametrize("crash_at", ["after_journal:2", "after_upsert:5", "before_checkpoint:1"])
def test_eval_write_killed_then_rerun_matches_uninterrupted(reference, tmp_path, crash_at):
    data, _, expected = reference
    store = tmp_path / "store"
    killed = evaluate(data, store, crash_at)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    half = store_state(store, COLLECTION)
    assert half["journal"], "the killed write should have left its documents journaled"
    assert all(path.startswith("beir:") for (path,) in half["journal"])
    rerun = evaluate(data, store)
    assert rerun.returncode == 0, rerun.stderr
    found = state(store)
    assert_consistent(found)
    assert comparable(found) == comparable(expected)


def test_eval_removal_killed_then_rerun_matches_uninterrupted(reference, tmp_path):
    """A changed and a dropped document; killed after the dropped one's chunks are gone
    (the ingest's removal), before its manifest row is."""
    data, before, _ = reference
    edited = write_dataset(tmp_path / "tiny", corpus(edited=True))
    shutil.copytree(before, tmp_path / "ref")
    ref = evaluate(edited, tmp_path / "ref")
    assert ref.returncode == 0, ref.stderr
    assert json.loads(ref.stdout)["ingest"] == {
        "new": 0,
        "changed": 1,
        "unchanged": len(ANIMALS) - 2,
        "removed": 1,
        "chunks_added": 1,
    }
    expected = state(tmp_path / "ref")
    assert "beir:d2" not in {row[0] for row in expected["manifest"]}

    store = tmp_path / "store"
    shutil.copytree(before, store)
    killed = evaluate(edited, store, "after_remove_chunks:1")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert store_state(store, COLLECTION)["journal"] == [("beir:d2",)]
    rerun = evaluate(edited, store)
    assert rerun.returncode == 0, rerun.stderr
    found = state(store)
    assert_consistent(found)
    assert comparable(found) == comparable(expected)
