import os
from pathlib import Path

import pytest

from ragcli.ingest.runner import STATUSES
from tests.support.common import SAMPLE
from tests.support.embedders import counting_ingestor

METADATA_FIELDS = {
    "chunk_id",
    "source_file",
    "file_type",
    "chunk_index",
    "total_chunks",
    "chunk_method",
    "token_count",
    "char_count",
    "content_preview",
    "file_sha256",
    "created_at",
    "processed_at",
}


def all_chunks(ingestor, collection="docs"):
    got = ingestor.store.collection(collection).get(include=["metadatas", "documents"])
    return got["ids"], got["metadatas"], got["documents"]


def test_sample_corpus_metadata_is_complete(sample_store):
    ids, metas, docs = all_chunks(counting_ingestor(sample_store))
    assert len(ids) == len(set(ids)) > 50
    for chunk_id, meta, text in zip(ids, metas, docs, strict=True):
        assert METADATA_FIELDS <= set(meta)
        assert meta["chunk_id"] == chunk_id
        assert meta["token_count"] <= 256 and meta["char_count"] == len(text)
        assert meta["content_preview"] == text[:100]
        assert 0 <= meta["chunk_index"] < meta["total_chunks"]
    pdf = [m for m in metas if m["file_type"] == "pdf"]
    assert sorted({m["page"] for m in pdf}) == [1, 2, 3, 4]
    md = [m for m in metas if m["file_type"] == "md"]
    assert all(m.get("heading") for m in md)
    assert not any("faq" in m["source_file"] for m in metas)  # excluded by .ragignore
    assert {m["file_type"] for m in metas} == {"md", "pdf", "txt", "html", "docx", "pptx", "xlsx"}
    # Each chunk of the Office and scanned samples says where in its file it sits.
    assert {m["locator"] for m in metas if m["file_type"] == "pptx"} == {
        "slide 1",
        "slide 2",
        "slide 3",
    }
    assert {m["locator"] for m in metas if "scanned_memo" in m["source_file"]} == {"page 1 (OCR)"}
    assert all(
        m["locator"].startswith(("Desks, row", "Escalation, row"))
        for m in metas
        if m["file_type"] == "xlsx"
    )


def test_reingest_of_unchanged_tree_embeds_and_adds_nothing(sample_store):
    ingestor = counting_ingestor(sample_store)
    before = sorted(all_chunks(ingestor)[0])
    report = ingestor.run([SAMPLE], "docs")
    assert ingestor.embedder.texts == 0
    assert report.count("unchanged") == 18 and report.chunks_added == 0
    assert sorted(all_chunks(ingestor)[0]) == before


def test_changed_file_is_replaced_without_duplicates_or_orphans(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n" + "Alpha fact one. " * 5 + "\n\n# B\nBeta fact two.\n")
    (docs / "b.txt").write_text("Unrelated file that stays.")
    ingestor = counting_ingestor(tmp_path / "store")
    first = ingestor.run([docs], "docs")
    assert first.count("new") == 2
    ids_before, metas_before, _ = all_chunks(ingestor)
    (docs / "a.md").write_text("# A\nAlpha fact rewritten.\n")
    ingestor.embedder.calls.clear()
    report = ingestor.run([docs], "docs")
    assert report.count("changed") == 1 and report.count("unchanged") == 1
    assert ingestor.embedder.texts == 1  # only the changed file's one chunk
    ids, metas, docs_text = all_chunks(ingestor)
    a_chunks = [
        d for d, m in zip(docs_text, metas, strict=True) if m["source_file"].endswith("a.md")
    ]
    assert a_chunks == ["# A\n\nAlpha fact rewritten."]
    assert report.chunks_removed == 2
    b_before = {
        i
        for i, m in zip(ids_before, metas_before, strict=True)
        if m["source_file"].endswith("b.txt")
    }
    assert b_before <= set(ids)


def test_a_file_read_by_an_older_reading_is_read_again_once(tmp_path):
    """A store ingested before Markdown was read into blocks: its rows carry reading 1, and
    the next ingest reads those files again, replacing every old chunk (the same content
    may make fewer chunks), then finds them unchanged."""
    import sqlite3

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("## `GZipMiddleware` { #gzip }\n\nHandles GZip responses.\n")
    (docs / "b.txt").write_text("Plain text, whose reading did not change.")
    ingestor = counting_ingestor(tmp_path / "store")
    ingestor.run([docs], "docs")
    manifest = tmp_path / "store" / "manifest.sqlite"
    with sqlite3.connect(manifest) as db:  # as a store written before readings had versions
        db.execute("UPDATE files SET reading = 1")
    ingestor.embedder.calls.clear()
    ids_before = set(all_chunks(ingestor)[0])
    report = ingestor.run([docs], "docs")
    assert report.count("changed") == 1 and report.count("unchanged") == 1
    (outcome,) = [f for f in report.files if f.status == "changed"]
    assert outcome.path.endswith("a.md") and "read again" in outcome.reason
    ids, metas, texts = all_chunks(ingestor)
    assert set(ids) == ids_before  # replaced in place, no orphan
    assert [t for t, m in zip(texts, metas, strict=True) if m["source_file"].endswith("a.md")] == [
        "## `GZipMiddleware`\n\nHandles GZip responses."
    ]
    again = ingestor.run([docs], "docs")
    assert again.count("unchanged") == 2


def test_touched_but_identical_file_is_unchanged(tmp_path):
    doc = tmp_path / "a.md"
    doc.write_text("Same text.")
    ingestor = counting_ingestor(tmp_path / "store")
    ingestor.run([doc], "docs")
    os.utime(doc, (1, 1))
    report = ingestor.run([doc], "docs")
    assert report.count("unchanged") == 1 and ingestor.embedder.texts == 1


def test_a_row_holding_another_edits_size_is_mended_when_the_file_is_next_seen(tmp_path):
    """The file was rewritten between the stat and the read that stored it: its row has the
    new text's hash with the old text's size and time. Seen again, it stays unchanged (same
    hash) and its row takes its size and time, as a fresh ingest would store them."""
    from dataclasses import replace

    doc = tmp_path / "a.md"
    doc.write_text("Same text.")
    ingestor = counting_ingestor(tmp_path / "store")
    ingestor.run([doc], "docs")
    [row] = ingestor.manifest.files("docs")
    ingestor.manifest.put(replace(row, size=row.size + 7, mtime_ns=1))
    report = ingestor.run([doc], "docs")
    assert report.count("unchanged") == 1 and ingestor.embedder.texts == 1
    [mended] = ingestor.manifest.files("docs")
    assert (mended.size, mended.mtime_ns) == (doc.stat().st_size, doc.stat().st_mtime_ns)


def test_prune_removes_chunks_of_deleted_files_only_under_given_paths(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    (one / "gone.md").write_text("This file will be deleted.")
    (one / "kept.md").write_text("This file stays.")
    (two / "gone_too.md").write_text("Deleted, but not under the pruned path.")
    ingestor = counting_ingestor(tmp_path / "store")
    ingestor.run([one, two], "docs")
    (one / "gone.md").unlink()
    (two / "gone_too.md").unlink()
    report = ingestor.run([one], "docs", prune=True)
    assert report.count("removed") == 1 and report.chunks_removed == 1
    sources = {Path(m["source_file"]).name for m in all_chunks(ingestor)[1]}
    assert sources == {"kept.md", "gone_too.md"}
    assert {Path(f.path).name for f in ingestor.manifest.files("docs")} == {
        "gone_too.md",
        "kept.md",
    }


def test_bad_files_are_reported_and_nothing_stored_is_touched(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.md").write_text("Good content about sync.")
    ingestor = counting_ingestor(tmp_path / "store")
    ingestor.run([docs], "docs")
    stored = sorted(all_chunks(ingestor)[0])
    (docs / "empty.txt").write_text("")
    (docs / "binary.txt").write_bytes(b"\x00\x01\x02binary")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.7 garbage")
    (docs / "data.bin").write_bytes(b"\x89PNG")
    (docs / "locked.md").write_text("secret")
    (docs / "locked.md").chmod(0)
    (docs / "naïve name with spaces.md").write_text("Unicode names are fine.")
    report = ingestor.run([docs], "docs")
    reasons = {Path(f.path).name: (f.status, f.reason) for f in report.files}
    assert reasons["empty.txt"] == ("skipped", "empty file")  # no text: not a failure
    assert reasons["binary.txt"][0] == "failed" and "binary" in reasons["binary.txt"][1]
    assert reasons["broken.pdf"][0] == "failed" and "corrupt PDF" in reasons["broken.pdf"][1]
    assert reasons["data.bin"] == ("skipped", "unsupported file type .bin")
    if os.geteuid() != 0:  # root reads anything
        assert reasons["locked.md"] == ("failed", "permission denied")
    assert reasons["naïve name with spaces.md"][0] == "new"
    assert set(stored) <= set(all_chunks(ingestor)[0])
    assert set(report.to_dict()) >= {f"files_{s}" for s in STATUSES}


def test_a_readers_bug_on_one_file_fails_that_file_only(tmp_path, monkeypatch):
    """A parser that breaks on one file (a bug, not a bad file) fails that file with the
    error named; the other files are stored and the ingest goes on. It stopped the whole
    ingest with "unexpected ValueError", naming no file."""
    from ragcli.ingest.loaders import text

    read = text.markdown_document

    def breaks_on_one(source: str, *args, **kwargs):
        if "trips the reader" in source:
            raise ValueError("zip() argument 2 is longer than argument 1")
        return read(source, *args, **kwargs)

    monkeypatch.setattr(text, "markdown_document", breaks_on_one)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "odd.md").write_text("# Odd\n\nThis page trips the reader.\n")
    (docs / "fine.md").write_text("# Fine\n\nThis page is read.\n")
    ingestor = counting_ingestor(tmp_path / "store")
    report = ingestor.run([docs], "docs")
    reasons = {Path(f.path).name: (f.status, f.reason) for f in report.files}
    assert reasons["fine.md"][0] == "new"
    status, reason = reasons["odd.md"]
    assert status == "failed"
    assert reason.startswith("ragcli could not read it (ValueError: zip() argument 2")
    assert [m["source_file"] for m in all_chunks(ingestor)[1]] == [str(docs / "fine.md")]


def test_missing_path_is_a_clear_error(tmp_path):
    from ragcli.errors import RagcliError

    with pytest.raises(RagcliError, match="no-such-dir: no such file or directory"):
        counting_ingestor(tmp_path / "store").run([tmp_path / "no-such-dir"], "docs")
