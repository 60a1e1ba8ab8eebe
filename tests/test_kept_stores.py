"""A benchmark's kept store is made again when the code that reads and chunks documents
changed (ragcli/evaluation/kept_stores.py), and a folder it did not make is never removed."""

from __future__ import annotations

from pathlib import Path

from ragcli.evaluation import kept_stores
from ragcli.evaluation.kept_stores import FINGERPRINT_FILE, prepare, reading_fingerprint


def fake_package(root: Path) -> Path:
    for name in (
        "blocks/markdown.py",
        "ingest/chunker.py",
        "ingest/loaders/text.py",
        "embedding/wordpieces.py",
        "text/sentences.py",
        "llm/extractive.py",
    ):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"# {name}\n", encoding="utf-8")
    return root


def test_the_fingerprint_follows_the_reading_code_only(tmp_path: Path) -> None:
    package = fake_package(tmp_path / "ragcli")
    before = reading_fingerprint(package)
    (package / "llm/extractive.py").write_text("# answers changed\n", encoding="utf-8")
    assert reading_fingerprint(package) == before
    (package / "ingest/chunker.py").write_text("# chunks changed\n", encoding="utf-8")
    changed = reading_fingerprint(package)
    assert changed != before
    (package / "blocks/new_reader.py").write_text("", encoding="utf-8")
    assert reading_fingerprint(package) != changed
    added = reading_fingerprint(package)
    # The chunker and the readers split and write sentences with the text layer.
    (package / "text/sentences.py").write_text("# sentences changed\n", encoding="utf-8")
    assert reading_fingerprint(package) != added


def test_every_part_of_the_reading_code_exists_in_the_package() -> None:
    # A part renamed away would fail here rather than drop out of the fingerprint.
    for part in kept_stores.READING_CODE:
        assert (kept_stores.PACKAGE / part).exists(), part
    assert reading_fingerprint() == reading_fingerprint()


def test_a_store_made_by_other_reading_code_is_made_again(tmp_path: Path) -> None:
    store = tmp_path / "httpx"
    assert prepare(store, "old") is None  # new: made and marked
    (store / "manifest.sqlite").write_text("chunks of the old reading", encoding="utf-8")
    assert prepare(store, "old") is None
    assert (store / "manifest.sqlite").exists()

    note = prepare(store, "new")
    assert note is not None and "made again" in note and str(store) in note
    assert not (store / "manifest.sqlite").exists()
    assert (store / FINGERPRINT_FILE).read_text(encoding="utf-8").strip() == "new"


def test_a_folder_it_did_not_make_is_kept_and_said_so(tmp_path: Path) -> None:
    store = tmp_path / "mine"
    store.mkdir()
    (store / "manifest.sqlite").write_text("somebody's chunks", encoding="utf-8")
    note = prepare(store, "new")
    assert note is not None and "nothing says" in note
    assert (store / "manifest.sqlite").read_text(encoding="utf-8") == "somebody's chunks"
    assert prepare(store, "new") is None
