import json
import math
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import bm25s
import numpy as np
import pytest

from ragcli.bm25.index import LexicalIndex
from ragcli.bm25.string_table import StringColumn

K1, B = 1.2, 0.75  # LexicalIndex defaults

# After lowercasing, stopword removal and English stemming:
#   a -> cat chase mice (3 tokens), b -> dog chase cat cat (4), c -> bird sing (2)
DOCS = {
    "a": "Cats chase mice.",
    "b": "The dogs chase cats, cats!",
    "c": "Birds sing",
}


def bm25(tf: int, df: int, n_docs: int, doc_len: int, avg_len: float) -> float:
    """Lucene BM25 for one query term, written out independently of bm25s."""
    idf = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
    return idf * tf / (tf + K1 * (1 - B + B * doc_len / avg_len))


def make(path: Path, docs: dict[str, str] = DOCS) -> LexicalIndex:
    index = LexicalIndex(path)
    index.upsert(list(docs), list(docs.values()))
    index.save()
    return index


def generations(path: Path) -> list[str]:
    return sorted(p.name for p in path.iterdir() if p.is_dir())


def test_empty_index(tmp_path: Path) -> None:
    index = LexicalIndex(tmp_path / "never-saved")
    assert index.search("cats", 5) == []
    assert len(index) == 0
    assert index.ids() == []
    index.save()  # nothing changed: no-op
    assert not (tmp_path / "never-saved").exists()


def test_scores_are_raw_bm25_best_first_positive_only(tmp_path: Path) -> None:
    make(tmp_path)
    hits = LexicalIndex(tmp_path).search("cat", 10)
    # avg len 3; "cat" is in 2 of 3 docs; "c" has no "cat" and must be left out, not scored 0.
    assert [doc_id for doc_id, _ in hits] == ["b", "a"]
    assert hits[0][1] == pytest.approx(bm25(tf=2, df=2, n_docs=3, doc_len=4, avg_len=3), rel=1e-6)
    assert hits[1][1] == pytest.approx(bm25(tf=1, df=2, n_docs=3, doc_len=3, avg_len=3), rel=1e-6)


def test_query_terms_are_stemmed_and_summed(tmp_path: Path) -> None:
    make(tmp_path)
    (doc_id, score), *rest = LexicalIndex(tmp_path).search("Chasing MICE", 10)
    assert doc_id == "a"
    expected = bm25(tf=1, df=2, n_docs=3, doc_len=3, avg_len=3) + bm25(
        tf=1, df=1, n_docs=3, doc_len=3, avg_len=3
    )
    assert score == pytest.approx(expected, rel=1e-6)
    assert [d for d, _ in rest] == ["b"]


def test_a_word_said_twice_counts_once(tmp_path: Path) -> None:
    make(tmp_path)
    index = LexicalIndex(tmp_path)
    assert index.search("mice chasing mice", 10) == index.search("chasing mice", 10)


def test_a_questions_function_words_are_not_its_terms(tmp_path: Path) -> None:
    """In prose, "what" and "does" are as rare as a name: a passage that only shares them
    with the question must not match it, nor rank with the one holding the name."""
    docs = {
        "name": "The Obersee is the upper lake of Lake Constance.",
        "words": "What the river does in spring: it floods. What follows is silt.",
        "other": "The Rhine flows north through the plain.",
    }
    index = make(tmp_path, docs)
    assert [doc_id for doc_id, _ in index.search("What does Obersee mean?", 5)] == ["name"]
    assert set(index.term_idf("What does Obersee mean?")) == {"oberse", "mean"}
    assert index.score_text("What does Obersee mean?", docs["words"]) == 0.0
    # A query of function words only keeps them: there is nothing else to search for.
    assert [doc_id for doc_id, _ in index.search("what does", 5)] == ["words"]


def test_k_limits_results(tmp_path: Path) -> None:
    make(tmp_path)
    index = LexicalIndex(tmp_path)
    assert [d for d, _ in index.search("cat", 1)] == ["b"]
    assert index.search("cat", 0) == []


@pytest.mark.parametrize("query", ["", "the of and", "zebra", "!!!"])
def test_query_without_known_tokens_returns_nothing(tmp_path: Path, query: str) -> None:
    make(tmp_path)
    assert LexicalIndex(tmp_path).search(query, 10) == []


def test_incremental_upsert_across_instances(tmp_path: Path) -> None:
    make(tmp_path)
    second = LexicalIndex(tmp_path)
    second.upsert(["d"], ["a cat naps"])
    second.save()

    third = LexicalIndex(tmp_path)
    assert len(third) == 4
    assert third.ids() == ["a", "b", "c", "d"]
    # Statistics are recomputed over all 4 docs: avg len (3+4+2+2)/4, "cat" now in 3 docs.
    hits = dict(third.search("cat", 10))
    assert set(hits) == {"a", "b", "d"}
    assert hits["d"] == pytest.approx(bm25(1, 3, 4, 2, 11 / 4), rel=1e-6)
    assert hits["a"] == pytest.approx(bm25(1, 3, 4, 3, 11 / 4), rel=1e-6)


def test_upsert_replaces_existing_id(tmp_path: Path) -> None:
    make(tmp_path)
    index = LexicalIndex(tmp_path)
    index.upsert(["a"], ["Quantum physics"])
    index.save()

    reopened = LexicalIndex(tmp_path)
    assert len(reopened) == 3
    assert reopened.ids() == ["a", "b", "c"]  # replacing keeps the id's position
    assert [d for d, _ in reopened.search("mice", 10)] == []
    assert [d for d, _ in reopened.search("cat", 10)] == ["b"]
    assert [d for d, _ in reopened.search("quantum", 10)] == ["a"]


def test_duplicate_ids_in_one_upsert_last_wins(tmp_path: Path) -> None:
    index = LexicalIndex(tmp_path)
    index.upsert(["x", "x"], ["first text", "second text"])
    assert len(index) == 1
    assert index.search("first", 5) == []
    assert [d for d, _ in index.search("second", 5)] == ["x"]


def test_delete(tmp_path: Path) -> None:
    make(tmp_path)
    index = LexicalIndex(tmp_path)
    index.delete(["b", "no-such-id"])
    index.save()

    reopened = LexicalIndex(tmp_path)
    assert reopened.ids() == ["a", "c"]
    # b is gone from the statistics too: N=2, "cat" df=1, avg len 2.5.
    assert reopened.search("cat", 10) == [("a", pytest.approx(bm25(1, 1, 2, 3, 2.5), rel=1e-6))]

    reopened.delete(["a", "c"])
    reopened.save()
    emptied = LexicalIndex(tmp_path)
    assert len(emptied) == 0
    assert emptied.search("cat", 10) == []


def test_copied_documents_take_the_tokens_of_their_sources(tmp_path: Path, monkeypatch) -> None:
    """A renamed file's chunks: tokens are taken from the indexed ids, not computed again,
    and a source that is not indexed has its text tokenized."""
    make(tmp_path)
    index = LexicalIndex(tmp_path)
    tokenized: list[list[str]] = []
    tokenize = index._tokenize

    def counted(texts: list[str]) -> list[list[str]]:
        tokenized.append(texts)
        return tokenize(texts)

    monkeypatch.setattr(index, "_tokenize", counted)
    index.copy(["a2", "b2", "x"], ["a", "b", "not-indexed"], [DOCS["a"], DOCS["b"], "Fish swim"])
    index.delete(["a", "b"])
    index.save()
    assert tokenized == [["Fish swim"]]

    reopened = LexicalIndex(tmp_path)
    assert sorted(reopened.ids()) == ["a2", "b2", "c", "x"]
    # As if a2 and b2 had been indexed from their texts: "cat" in a2 (tf 1) and b2 (tf 2).
    hits = dict(reopened.search("cat", 10))
    assert hits == {
        "b2": pytest.approx(bm25(2, 2, 4, 4, 2.75), rel=1e-6),
        "a2": pytest.approx(bm25(1, 2, 4, 3, 2.75), rel=1e-6),
    }
    assert reopened.search("fish", 10)[0][0] == "x"


def test_writer_sees_its_unsaved_edits_readers_do_not(tmp_path: Path) -> None:
    make(tmp_path)
    writer = LexicalIndex(tmp_path)
    writer.upsert(["d"], ["zebra"])
    writer.delete(["a"])
    assert [d for d, _ in writer.search("zebra", 5)] == ["d"]
    assert [d for d, _ in writer.search("mice", 5)] == []
    reader = LexicalIndex(tmp_path)
    assert reader.search("zebra", 5) == []
    assert [d for d, _ in reader.search("mice", 5)] == ["a"]


def test_query_loads_memory_mapped_and_never_rebuilds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(tmp_path)

    def no_indexing(*args: object, **kwargs: object) -> None:
        raise AssertionError("a query must not rebuild the BM25 index")

    monkeypatch.setattr(bm25s.BM25, "index", no_indexing)
    index = LexicalIndex(tmp_path)
    assert [d for d, _ in index.search("cat", 5)] == ["b", "a"]
    assert isinstance(index._retriever.scores["data"], np.memmap)


def test_scoring_a_sentence_reads_no_documents_tokens(tmp_path: Path) -> None:
    """A cold process scoring answer sentences must not read every document's tokens (at
    100k chunks that file took seconds to parse): the mean length is saved with the index."""
    make(tmp_path)
    live = tmp_path / (tmp_path / "CURRENT").read_text().strip()
    blob = live / "tokens.utf8"  # any row decoded from it now fails
    blob.write_bytes(b"\xff" * blob.stat().st_size)
    # "dog chase" in a 2-token text; df(dog)=1, df(chase)=2 of 3 documents; mean length 3.
    expected = bm25(1, 1, 3, 2, 3.0) + bm25(1, 2, 3, 2, 3.0)
    assert LexicalIndex(tmp_path).score_text("dogs chase", "Dogs chase.") == pytest.approx(expected)


def test_save_without_changes_keeps_generation(tmp_path: Path) -> None:
    make(tmp_path)
    before = (tmp_path / "CURRENT").read_text()
    index = LexicalIndex(tmp_path)
    index.upsert(["a"], [DOCS["a"]])  # same text again: nothing to re-index
    index.delete(["no-such-id"])
    index.save()
    assert (tmp_path / "CURRENT").read_text() == before
    assert generations(tmp_path) == [before.strip()]


def test_failed_save_leaves_previous_index_live(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(tmp_path)
    before = generations(tmp_path)

    def broken_save(self: bm25s.BM25, *args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(bm25s.BM25, "save", broken_save)
    index = LexicalIndex(tmp_path)
    index.upsert(["d"], ["zebra"])
    with pytest.raises(OSError, match="disk full"):
        index.save()

    assert generations(tmp_path) == before  # the half-written temp dir was removed
    reopened = LexicalIndex(tmp_path)
    assert reopened.ids() == ["a", "b", "c"]
    assert reopened.search("zebra", 5) == []


def test_process_killed_before_switch_leaves_previous_index(tmp_path: Path) -> None:
    make(tmp_path)
    # A real process, killed (os._exit skips all cleanup) after the new generation is on disk
    # but before CURRENT points at it.
    script = textwrap.dedent(
        f"""
        import os
        from pathlib import Path
        from ragcli.bm25 import index as lexical
        lexical.write_text_atomically = lambda path, text: os._exit(9)
        index = lexical.LexicalIndex(Path({str(tmp_path)!r}))
        index.upsert(["d"], ["zebra"])
        index.delete(["a"])
        index.save()
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], check=False, capture_output=True, text=True
    )
    assert proc.returncode == 9, proc.stderr
    assert len(generations(tmp_path)) == 2  # the orphan generation is still there

    survivor = LexicalIndex(tmp_path)
    assert survivor.ids() == ["a", "b", "c"]
    assert survivor.search("zebra", 5) == []

    # The next successful save cleans up the orphan and stale temp dirs.
    (tmp_path / ".tmp-crashed").mkdir()
    survivor.upsert(["e"], ["owl"])
    survivor.save()
    assert generations(tmp_path) == [(tmp_path / "CURRENT").read_text().strip()]
    assert LexicalIndex(tmp_path).ids() == ["a", "b", "c", "e"]


def test_documents_with_only_stopwords(tmp_path: Path) -> None:
    index = LexicalIndex(tmp_path)
    index.upsert(["s"], ["the of and"])
    index.save()
    only_stop = LexicalIndex(tmp_path)
    assert only_stop.ids() == ["s"]
    assert only_stop.search("the", 5) == []

    only_stop.upsert(["a"], ["cats"])
    only_stop.save()
    assert [d for d, _ in LexicalIndex(tmp_path).search("cats", 5)] == ["a"]


def test_upsert_length_mismatch(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="2 ids but 1 texts"):
        LexicalIndex(tmp_path).upsert(["a", "b"], ["only one"])


def test_search_ranks_only_the_allowed_ids_and_a_reader_refreshes_to_a_newer_save(tmp_path):
    writer = LexicalIndex(tmp_path / "docs")
    writer.upsert(["a", "b", "c"], ["quokka quokka quokka", "quokka quokka", "quokka"])
    writer.save()
    reader = LexicalIndex(tmp_path / "docs")
    assert [i for i, _ in reader.search("quokka", 2)] == ["a", "b"]
    # The best of the allowed, not the allowed among the best two.
    assert [i for i, _ in reader.search("quokka", 2, allowed={"c", "b"})] == ["b", "c"]
    assert reader.search("quokka", 2, allowed=set()) == []

    writer.upsert(["d"], ["a numbat eats termites"])
    writer.save()  # another process's ingest
    assert reader.search("numbat", 5) == []  # still the generation it loaded
    assert reader.refresh() is True and reader.refresh() is False
    assert [i for i, _ in reader.search("numbat", 5)] == ["d"]
    assert writer.refresh() is False  # a writer is on the generation it saved


def test_a_cold_reader_parses_no_list_of_ids_and_no_vocabulary(tmp_path: Path) -> None:
    """At a million chunks, parsing the ids (JSON) and bm25s's vocabulary (JSON, two million
    terms) took two seconds of every cold ask; both are now memory-mapped string tables."""
    make(tmp_path, DOCS | {"ä/数据.md#0": "Cats purr"})
    live = tmp_path / (tmp_path / "CURRENT").read_text().strip()
    (live / "bm25" / "vocab.index.json").unlink()
    assert "ids" not in (live / "meta.json").read_text()
    reader = LexicalIndex(tmp_path)
    assert [d for d, _ in reader.search("cats", 5)] == ["b", "ä/数据.md#0", "a"]
    assert reader.search("cats", 5, allowed=["a", "c"])[0][0] == "a"
    assert reader.scores_for("purring cats", ["ä/数据.md#0", "c", "gone"])["c"] == 0.0
    assert reader.term_idf("purr") == {"purr": pytest.approx(math.log(1 + 3.5 / 1.5))}
    assert sorted(reader.ids()) == sorted(DOCS | {"ä/数据.md#0": ""}) and len(reader) == 4


def test_a_generation_saved_in_the_first_format_still_answers(tmp_path: Path) -> None:
    """Ids in meta.json and terms in bm25s's vocabulary, as ragcli saved them before."""
    make(tmp_path)
    live = tmp_path / (tmp_path / "CURRENT").read_text().strip()
    meta = json.loads((live / "meta.json").read_text())
    ids = list(StringColumn(live, "ids"))
    tokens = {i: t.split() for i, t in zip(ids, StringColumn(live, "tokens"), strict=True)}
    (live / "meta.json").write_text(json.dumps(meta | {"format": 1, "ids": ids}))
    (live / "tokens.json").write_text(json.dumps(tokens))
    for table in [*live.glob("*.npy"), live / "delta.json"]:
        table.unlink()
    reader = LexicalIndex(tmp_path)
    assert [d for d, _ in reader.search("cat", 5)] == ["b", "a"]
    assert reader.scores_for("mice", ["a", "b"])["b"] == 0.0
    # The next save writes the current format.
    reader.upsert(["d"], ["Mice squeak"])
    reader.save()
    assert [d for d, _ in LexicalIndex(tmp_path).search("mice", 5)] == ["d", "a"]
    assert (
        "ids"
        not in (tmp_path / (tmp_path / "CURRENT").read_text().strip() / "meta.json").read_text()
    )


ANIMALS = "cat dog bird fish horse sheep goat mouse rabbit fox owl bear wolf deer frog".split()


def zoo(n: int) -> dict[str, str]:
    """n documents of three to seven animal words, mixed at random (seeded)."""
    draw = random.Random(7)
    return {f"z{i}": " ".join(draw.choices(ANIMALS, k=3 + i % 5)) for i in range(n)}


def test_a_small_change_is_saved_beside_the_matrix_without_rebuilding_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At a million chunks a rebuild took five minutes for a one-file change: a change
    below lexical_delta.MERGE_SHARE of the collection is saved as a delta instead."""
    docs = zoo(200)
    make(tmp_path, docs)
    before = tmp_path / (tmp_path / "CURRENT").read_text().strip()

    def no_indexing(*args: object, **kwargs: object) -> None:
        raise AssertionError("a small change must not rebuild the BM25 matrix")

    monkeypatch.setattr(bm25s.BM25, "index", no_indexing)
    writer = LexicalIndex(tmp_path)
    writer.upsert(["new", "z1"], ["Zebras graze", "A zebra and an okapi"])  # z1 replaced
    writer.delete(["z2", "not-indexed"])
    # Equal scores: the replaced document keeps its row, before the new one.
    assert [d for d, _ in writer.search("zebra", 5)] == ["z1", "new"]  # before the save too
    writer.save()

    after = tmp_path / (tmp_path / "CURRENT").read_text().strip()
    assert after != before and not before.exists()
    matrix = after / "bm25" / "data.csc.index.npy"
    assert matrix.stat().st_nlink == 1  # the old generation is gone: its link went with it
    reader = LexicalIndex(tmp_path)
    assert [d for d, _ in reader.search("zebra", 5)] == ["z1", "new"]
    assert reader.search("okapi", 5)[0][0] == "z1"
    old_z1, old_z2 = docs["z1"].split()[0], docs["z2"].split()[0]
    assert "z1" not in dict(reader.search(old_z1, 300))
    assert "z2" not in dict(reader.search(old_z2, 300))
    assert len(reader) == 200 and sorted(reader.ids()) == sorted(set(docs) - {"z2"} | {"new"})
    # A delta document scores with the matrix's statistics: 200 documents, mean length 5.
    # "zebra" is in no matrix document; "graze" neither: "Zebras graze" has 2 tokens.
    expected = 2 * bm25(tf=1, df=0, n_docs=200, doc_len=2, avg_len=5.0)
    assert reader.scores_for("zebra graze", ["new"])["new"] == pytest.approx(expected)
    assert reader.scores_for("zebra", ["z2"]) == {"z2": 0.0}


def test_a_delta_ranks_as_a_rebuilt_index_does(tmp_path: Path) -> None:
    docs = zoo(300)
    make(tmp_path / "delta", docs)
    changed = {f"z{i}": f"{docs[f'z{i}']} {ANIMALS[i % 5]}" for i in range(0, 60, 6)}
    writer = LexicalIndex(tmp_path / "delta")
    writer.upsert(list(changed), list(changed.values()))
    writer.save()
    assert json.loads(next((tmp_path / "delta").glob("gen-*/delta.json")).read_text())["added"]
    rebuilt = make(tmp_path / "rebuilt", docs | changed)
    delta = LexicalIndex(tmp_path / "delta")
    for query in ["cat", "horse owl", "fish fox frog", "bear sheep deer"]:
        exact = dict(rebuilt.search(query, 10))
        assert delta.scores_for(query, exact) == pytest.approx(exact, rel=0.05), query
        assert delta.search(query, 1)[0][1] == pytest.approx(max(exact.values()), rel=0.05)


def test_a_change_past_the_merge_share_rebuilds_the_matrix(tmp_path: Path) -> None:
    make(tmp_path, zoo(100))
    writer = LexicalIndex(tmp_path)
    writer.upsert([f"n{i}" for i in range(6)], ["zebra"] * 6)  # 6 > 5 % of 100
    writer.save()
    live = tmp_path / (tmp_path / "CURRENT").read_text().strip()
    assert json.loads((live / "delta.json").read_text()) == {"added": {}, "hidden": []}
    hits = LexicalIndex(tmp_path).search("zebra", 10)
    # Exact statistics again: 106 documents, "zebra" in 6, the mean length of them all.
    average = (100 * 5 + 6 * 1) / 106
    assert hits[0][1] == pytest.approx(bm25(1, 6, 106, 1, average), rel=1e-6)


def test_a_save_after_another_process_saved_keeps_both_changes(tmp_path: Path) -> None:
    make(tmp_path, zoo(200))
    slow, fast = LexicalIndex(tmp_path), LexicalIndex(tmp_path)
    slow.upsert(["mine"], ["zebra"])
    fast.upsert(["theirs"], ["okapi"])
    fast.delete(["z3"])
    fast.save()
    slow.delete(["z4"])
    slow.save()  # loaded before fast saved: its delta is replayed on fast's generation
    reader = LexicalIndex(tmp_path)
    assert reader.search("zebra", 1)[0][0] == "mine" and reader.search("okapi", 1)[0][0] == "theirs"
    assert {"z3", "z4"}.isdisjoint(reader.ids()) and len(reader) == 200


def test_a_reader_keeps_its_generation_after_a_writer_removes_it(tmp_path: Path) -> None:
    """An `ask` that repairs the index in memory reads its generation's tokens after
    loading; two saves by an ingest in between remove that generation's files."""
    make(tmp_path, zoo(50))
    reader = LexicalIndex(tmp_path)
    assert reader.search("owl", 1)  # loaded, tokens not yet read
    loaded = (tmp_path / "CURRENT").read_text().strip()
    writer = LexicalIndex(tmp_path)
    for doc_id in ("new1", "new2"):
        writer.upsert([doc_id], ["okapi"])
        writer.save()
    assert loaded not in generations(tmp_path)
    reader.upsert(["z0"], ["numbat"])  # compares with z0's indexed tokens
    assert [d for d, _ in reader.search("numbat", 5)] == ["z0"]
    assert len(reader) == 50  # still the generation it loaded, plus its own change
