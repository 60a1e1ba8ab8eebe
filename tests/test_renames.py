"""Renames, moves and copies cost no embedding: the stored chunks of the same content are
reused, and the store ends as a fresh ingest of the final tree would make it."""

from __future__ import annotations

import json
import shutil
import signal
from pathlib import Path

import pytest

from ragcli.bm25.index import LexicalIndex
from ragcli.bm25.sync import lexical_dir
from tests.support.corpus import comparable, ingest, make_corpus, write_doc
from tests.support.embedders import counting_ingestor
from tests.support.storecheck import assert_consistent, store_state

# Real ingests, several killed in fresh interpreters, compared with fresh ones.
pytestmark = pytest.mark.slow


def bm25_ids(store: Path) -> list[str]:
    return sorted(LexicalIndex(lexical_dir(store, "docs")).ids())


def fresh_state(docs: Path, tmp: Path) -> dict:
    """What an ingest of `docs` into an empty store makes (in a subprocess)."""
    store = tmp / "fresh"
    shutil.rmtree(store, ignore_errors=True)
    result = ingest(docs, store)
    assert result.returncode == 0, result.stderr
    return {**store_state(store), "bm25": bm25_ids(store)}


def test_renamed_folder_reuses_every_chunk_and_matches_a_fresh_ingest(tmp_path):
    docs = tmp_path / "docs"
    make_corpus(docs / "old", [1, 2, 3])
    write_doc(docs / "keep.md", 4)
    store = tmp_path / "store"
    first = counting_ingestor(store).run([docs], "docs")
    moved_chunks = sum(f.chunks for f in first.files if "/old/" in f.path)
    (docs / "old").rename(docs / "new")

    ingestor = counting_ingestor(store)
    report = ingestor.run([docs], "docs")
    assert ingestor.embedder.texts == 0  # nothing embedded
    assert report.chunks_reused == moved_chunks == report.chunks_added
    assert report.chunks_removed == moved_chunks and report.gone == []
    assert sorted(Path(m["to"]).name for m in report.moved) == ["doc1.md", "doc2.md", "doc3.md"]
    assert all("/old/" in m["from"] and "/new/" in m["to"] for m in report.moved)
    ingestor.manifest.close()

    state = {**store_state(store), "bm25": bm25_ids(store)}
    assert_consistent(state)
    assert comparable(state) == comparable(fresh_state(docs, tmp_path))


def test_copy_keeps_both_paths_and_embeds_nothing(tmp_path):
    docs = tmp_path / "docs"
    make_corpus(docs, [1])
    store = tmp_path / "store"
    counting_ingestor(store).run([docs], "docs")
    shutil.copy2(docs / "doc1.md", docs / "copy.md")
    ingestor = counting_ingestor(store)
    report = ingestor.run([docs], "docs")
    assert ingestor.embedder.texts == 0 and report.moved == []
    copy = next(f for f in report.files if f.path.endswith("copy.md"))
    assert copy.status == "new" and copy.copied_from.endswith("doc1.md")
    paths = {r.path for r in ingestor.manifest.files("docs")}
    assert {Path(p).name for p in paths} == {"doc1.md", "copy.md"}
    ingestor.manifest.close()
    state = {**store_state(store), "bm25": bm25_ids(store)}
    assert comparable(state) == comparable(fresh_state(docs, tmp_path))


def test_rename_to_another_file_type_is_read_anew(tmp_path):
    docs = tmp_path / "docs"
    make_corpus(docs, [1])
    store = tmp_path / "store"
    counting_ingestor(store).run([docs], "docs")
    (docs / "doc1.md").rename(docs / "doc1.txt")  # chunked as plain text, not Markdown
    ingestor = counting_ingestor(store)
    report = ingestor.run([docs], "docs")
    assert ingestor.embedder.texts > 0 and report.chunks_reused == 0
    # Still a move: the old path leaves without --prune, its content lives on.
    assert [Path(m["to"]).name for m in report.moved] == ["doc1.txt"] and report.gone == []


def test_rename_onto_an_existing_file_replaces_its_chunks(tmp_path):
    docs = tmp_path / "docs"
    make_corpus(docs, [1, 2])
    store = tmp_path / "store"
    counting_ingestor(store).run([docs], "docs")
    (docs / "doc1.md").replace(docs / "doc2.md")  # doc2's old content is gone
    ingestor = counting_ingestor(store)
    report = ingestor.run([docs], "docs")
    assert ingestor.embedder.texts == 0
    assert [(Path(m["from"]).name, Path(m["to"]).name) for m in report.moved] == [
        ("doc1.md", "doc2.md")
    ]
    ingestor.manifest.close()
    state = {**store_state(store), "bm25": bm25_ids(store)}
    assert comparable(state) == comparable(fresh_state(docs, tmp_path))


@pytest.mark.parametrize(
    "crash_at",
    ["after_journal:1", "after_upsert:2", "after_manifest:1", "after_remove_chunks:1"],
)
def test_rename_killed_then_rerun_matches_a_fresh_ingest(tmp_path, crash_at):
    docs = tmp_path / "docs"
    make_corpus(docs / "old", [1, 2, 3])
    store = tmp_path / "store"
    assert ingest(docs, store).returncode == 0
    (docs / "old").rename(docs / "new")
    killed = ingest(docs, store, crash_at=crash_at)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    rerun = ingest(docs, store)
    assert rerun.returncode == 0, rerun.stderr
    assert json.loads(rerun.stdout)["gone"] == []
    state = {**store_state(store), "bm25": bm25_ids(store)}
    assert_consistent(state)
    assert comparable(state) == comparable(fresh_state(docs, tmp_path))


def test_two_files_swapping_contents_embed_nothing(tmp_path):
    """Each file's new content is the other's old one: both copies are read before either
    file's old chunks are replaced."""
    docs = tmp_path / "docs"
    make_corpus(docs, [1, 2])
    store = tmp_path / "store"
    counting_ingestor(store).run([docs], "docs")
    one, two = (docs / "doc1.md").read_text(), (docs / "doc2.md").read_text()
    (docs / "doc1.md").write_text(two)
    (docs / "doc2.md").write_text(one)
    ingestor = counting_ingestor(store)
    report = ingestor.run([docs], "docs")
    assert ingestor.embedder.texts == 0
    assert {Path(f.path).name: Path(f.copied_from).name for f in report.files} == {
        "doc1.md": "doc2.md",
        "doc2.md": "doc1.md",
    }
    ingestor.manifest.close()
    state = {**store_state(store), "bm25": bm25_ids(store)}
    assert_consistent(state)
    assert comparable(state) == comparable(fresh_state(docs, tmp_path))


def test_a_copy_the_store_no_longer_holds_whole_is_embedded_anew(tmp_path):
    """The manifest names a path whose chunks a damaged store lost one of: the renamed file
    is read, chunked and embedded after all, and the store ends as a fresh ingest."""
    docs = tmp_path / "docs"
    make_corpus(docs, [1, 2])
    store = tmp_path / "store"
    first = counting_ingestor(store)
    first.run([docs], "docs")
    doc1 = str((docs / "doc1.md").resolve())
    lost = first.store.ids_where("docs", {"source_file": doc1})[:1]
    first.store.collection("docs").delete(ids=lost)  # behind ragcli's back
    first.manifest.close()
    (docs / "doc1.md").rename(docs / "moved.md")

    ingestor = counting_ingestor(store)
    report = ingestor.run([docs], "docs")
    moved = next(f for f in report.files if f.path.endswith("moved.md"))
    assert moved.status == "new" and moved.copied_from == "" and moved.chunks > 1
    assert ingestor.embedder.texts == moved.chunks and report.chunks_reused == 0
    assert [Path(m["to"]).name for m in report.moved] == ["moved.md"] and report.gone == []
    ingestor.manifest.close()
    state = {**store_state(store), "bm25": bm25_ids(store)}
    assert_consistent(state)
    assert comparable(state) == comparable(fresh_state(docs, tmp_path))
