"""The BM25 index beside each collection: mirrored by ingest (new, changed, pruned files),
repaired when it lags behind Chroma, and used by the bm25 and hybrid retrieval modes."""

import logging
import shutil
from pathlib import Path

import pytest

from ragcli import service
from ragcli.bm25.index import LexicalIndex
from ragcli.bm25.sync import lexical_dir
from ragcli.retrieval.fusion import weighted_score_fusion
from ragcli.retrieval.retriever import Retriever
from tests.support.common import SAMPLE, settings_for


def lexical_sources(ingestor, collection="docs") -> dict[str, set[str]]:
    """File name -> the BM25 index's ids of its chunks, read back from disk."""
    index = LexicalIndex(lexical_dir(ingestor.lexical.store_dir, collection))
    got = ingestor.store.collection(collection).get(include=["metadatas"])
    source = {
        i: Path(m["source_file"]).name for i, m in zip(got["ids"], got["metadatas"], strict=True)
    }
    by_file: dict[str, set[str]] = {}
    for chunk_id in index.ids():
        by_file.setdefault(source.get(chunk_id, "<not in chroma>"), set()).add(chunk_id)
    return by_file


def chroma_ids(ingestor, collection="docs") -> set[str]:
    return set(ingestor.store.collection(collection).get(include=[])["ids"])


def test_ingest_mirrors_new_changed_and_pruned_files_into_bm25(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("The quokka sleeps in the afternoon.")
    (docs / "b.md").write_text("Wombats dig burrows with their claws.")
    store = tmp_path / "store"
    ingestor = service.ingestor(settings_for(store))
    ingestor.run([docs], "docs")
    assert set(lexical_sources(ingestor)) == {"a.md", "b.md"}
    assert (store / "lexical" / "docs" / "CURRENT").is_file()  # persisted beside chroma/

    (docs / "a.md").write_text("The numbat eats termites at dawn.")
    ingestor = service.ingestor(settings_for(store))  # a fresh process reads what was saved
    ingestor.run([docs], "docs")
    index = LexicalIndex(store / "lexical" / "docs")
    assert set(index.ids()) == chroma_ids(ingestor)  # the old version of a.md is gone
    assert index.search("quokka", 5) == []
    assert set(lexical_sources(ingestor)) == {"a.md", "b.md"}
    numbat = index.search("numbat termites", 5)
    assert len(numbat) == 1 and numbat[0][0] in lexical_sources(ingestor)["a.md"]

    (docs / "b.md").unlink()
    service.ingestor(settings_for(store)).run([docs], "docs", prune=True)
    index = LexicalIndex(store / "lexical" / "docs")
    assert index.search("wombats burrows", 5) == []
    assert len(index) == 1


def test_unchanged_reingest_does_not_rewrite_the_bm25_index(sample_store):
    current = (sample_store / "lexical" / "docs" / "CURRENT").read_text()
    service.ingestor(settings_for(sample_store)).run([SAMPLE], "docs")
    assert (sample_store / "lexical" / "docs" / "CURRENT").read_text() == current


def test_a_bm25_index_that_lags_behind_chroma_is_repaired(tmp_path, caplog):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("The quokka sleeps in the afternoon.")
    store = tmp_path / "store"
    service.ingestor(settings_for(store)).run([docs], "docs")
    saved = tmp_path / "lexical-before"
    shutil.copytree(store / "lexical", saved)
    (docs / "b.md").write_text("Wombats dig burrows with their claws.")
    service.ingestor(settings_for(store)).run([docs], "docs")
    # As if the second run was killed after Chroma and the manifest took b.md, before the
    # BM25 index was saved.
    shutil.rmtree(store / "lexical")
    shutil.copytree(saved, store / "lexical")
    assert len(LexicalIndex(store / "lexical" / "docs")) == 1

    settings = settings_for(store, **{"retrieval.mode": "bm25"})
    retriever = Retriever(
        service.vector_store(settings),
        service.embedder(settings),
        "docs",
        mode="bm25",
        lexical=service.lexical_indexes(settings),
    )
    with caplog.at_level(logging.WARNING, logger="ragcli"):
        hits = retriever.search("wombats burrows", 3)
    assert [Path(h.metadata.source_file).name for h in hits] == ["b.md"]
    assert "out of step" in caplog.text and "1 chunks missing" in caplog.text

    report = service.ingestor(settings_for(store)).run([docs], "docs")  # nothing to embed ...
    assert report.count("unchanged") == 2
    assert len(LexicalIndex(store / "lexical" / "docs")) == 2  # ... yet the index caught up


@pytest.fixture(scope="module")
def sample_retriever(sample_store_master):
    settings = settings_for(sample_store_master)
    return service.retriever(
        settings, service.vector_store(settings), service.embedder(settings), "docs"
    )


def test_hybrid_reports_both_component_scores_and_score_stays_cosine(sample_retriever):
    question = "Which cipher is used when I password-protect a backup archive?"
    hybrid = sample_retriever.search(question, 5, mode="hybrid")
    dense = {c.chunk_id: c.score for c in sample_retriever.search(question, 50, mode="dense")}
    assert len(hybrid) == 5
    assert "AES-256-GCM" in hybrid[0].content
    for chunk in hybrid:
        # "heading": the cosine of the chunk's heading path (retrieval/headings.py)
        assert set(chunk.component_scores) - {"heading"} == {"dense", "bm25", "fused"}
        assert chunk.score == chunk.component_scores["dense"]
        if chunk.chunk_id in dense:
            assert chunk.score == pytest.approx(dense[chunk.chunk_id], abs=1e-3)
    fused = [c.component_scores["fused"] for c in hybrid]
    assert fused == sorted(fused, reverse=True)  # the order follows the fusion
    assert any(c.component_scores["bm25"] > 0 for c in hybrid)


def test_bm25_mode_ranks_by_bm25_and_scores_by_cosine(sample_retriever):
    hits = sample_retriever.search("AES-256-GCM", 3, mode="bm25")
    assert hits and "AES-256-GCM" in hits[0].content
    bm25 = [h.component_scores["bm25"] for h in hits]
    assert bm25 == sorted(bm25, reverse=True) and bm25[0] > 0
    assert all(0 < h.score <= 1 and h.score == h.component_scores["dense"] for h in hits)


def test_weighted_and_rrf_fusion_can_both_be_chosen(sample_store_master):
    question = "How many backup codes does a user receive when enabling two-factor login?"
    orders = {}
    for fusion in ("rrf", "weighted"):
        settings = settings_for(sample_store_master, **{"retrieval.fusion": fusion})
        retriever = service.retriever(
            settings, service.vector_store(settings), service.embedder(settings), "docs"
        )
        assert retriever.mode == "hybrid"
        hits = retriever.search(question, 5)
        orders[fusion] = hits
        assert "10 single-use recovery codes" in " ".join(h.content for h in hits[:2])
    # RRF scores are sums of 1/(k + rank); weighted ones are normalised scores in [0, 1].
    assert orders["rrf"][0].component_scores["fused"] < 0.05
    assert orders["weighted"][0].component_scores["fused"] > 0.5


def test_a_store_without_its_bm25_index_still_grades_on_bm25_statistics(sample_store, caplog):
    """A store ingested before the BM25 index existed (or whose index was lost) is repaired
    in memory for the run: grading must not fall to zero lexical evidence."""
    shutil.rmtree(sample_store / "lexical")
    settings = settings_for(sample_store)
    question = "How long do I have to get a refund on an annual plan?"
    with caplog.at_level("WARNING", logger="ragcli"):
        result = service.ask(settings, question, mode="crag")
    assert "out of step" in caplog.text
    assert result.crag_details.evaluation.relevance_score >= 0.7
    assert result.answer_type == "answer"


def test_weighted_fusion_uses_each_retrievers_real_score_for_the_others_candidates(
    sample_store_master,
):
    """A chunk only BM25 ranked among its candidates is fused with its real cosine, and a
    chunk only dense ranked with its real BM25 score, not with 0."""
    settings = settings_for(
        sample_store_master, **{"retrieval.candidates": 4, "retrieval.dense_weight": 0.6}
    )
    retriever = service.retriever(
        settings, service.vector_store(settings), service.embedder(settings), "docs"
    )
    question = "Can I restore a file I deleted last week from the web app?"
    dense_ids = [c.chunk_id for c in retriever.search(question, 4, mode="dense")]
    bm25_ids = [c.chunk_id for c in retriever.search(question, 4, mode="bm25")]
    union = list(dict.fromkeys(dense_ids + bm25_ids))
    assert set(dense_ids) != set(bm25_ids)  # the case this is about: one-sided candidates

    index = retriever.lexical.searchable("docs", retriever.store)
    vector = retriever.embedder.embed([question])[0]
    cosine = {c.chunk_id: c.score for c in retriever._fetch("docs", union, vector)}
    expected = weighted_score_fusion(
        {"dense": cosine, "bm25": index.scores_for(question, union)},
        {"dense": 0.6, "bm25": 0.4},
    )
    hits = retriever.search(question, 4, mode="hybrid")
    assert [h.chunk_id for h in hits] == [i for i, _ in expected[:4]]
    for hit, (_, fused) in zip(hits, expected, strict=False):
        assert hit.component_scores["fused"] == pytest.approx(fused, abs=1e-4)


def test_a_read_that_races_an_ingest_is_tried_again(sample_store, monkeypatch, caplog):
    """Chroma can fail a read that lands between two writes of an ingest in another
    process; retrieval is read-only, so it tries again, with the store reopened (a client
    keeps the index it loaded, so the same client would fail again), and the answer is
    unaffected."""
    from chromadb.errors import InternalError

    import ragcli.retrieval.retriever as retriever_module

    monkeypatch.setattr(retriever_module, "READ_RETRY_PAUSE", 0)
    settings = settings_for(sample_store)
    store = service.vector_store(settings)
    retriever = service.retriever(settings, store, service.embedder(settings), "docs")
    question = "Which cipher is used when I password-protect a backup archive?"
    expected = [c.chunk_id for c in retriever.search(question, 5)]
    real_query = store._query  # the one Chroma query of dense and hybrid retrieval
    failures = {"left": 2}
    clients = []  # the Chroma client each attempt read through

    def flaky_query(*args, **kwargs):
        clients.append(store.client)
        if failures["left"]:
            failures["left"] -= 1
            raise InternalError("Error executing plan: Internal error: Error finding id")
        return real_query(*args, **kwargs)

    monkeypatch.setattr(store, "_query", flaky_query)
    with caplog.at_level(logging.WARNING, logger="ragcli"):
        assert [c.chunk_id for c in retriever.search(question, 5)] == expected
    assert sum("mid-write" in r.getMessage() for r in caplog.records) == 2
    assert len(clients) == 3 and len({id(c) for c in clients}) == 3

    failures["left"] = retriever_module.READ_ATTEMPTS  # a store that stays broken
    with pytest.raises(InternalError):
        retriever.search(question, 5)


def test_sentences_primed_in_one_call_score_as_one_by_one(sample_store, monkeypatch):
    """The offline backend scores each candidate sentence with BM25; tokenizing them in one
    call (prime) gives the same scores as tokenizing each alone, and a primed sentence is
    not tokenized again."""
    question = "How long can I get a refund for an annual plan?"
    sentences = [
        "Annual plans can be refunded within 30 days of purchase.",
        "Refunds for monthly plans are not available.",
        "The backup archive is encrypted with AES-256.",
        "Annual plans can be refunded within 30 days of purchase.",  # a repeat
    ]
    one_by_one = LexicalIndex(sample_store / "lexical" / "docs")
    expected = [one_by_one.score_text(question, s) for s in sentences]
    assert expected[0] > expected[2] == 0.0

    primed = LexicalIndex(sample_store / "lexical" / "docs")
    primed.prime(sentences)
    calls: list[list[str]] = []
    real = primed._tokenize
    monkeypatch.setattr(
        primed, "_tokenize", lambda texts, *rest: calls.append(texts) or real(texts, *rest)
    )
    assert [primed.score_text(question, s) for s in sentences] == expected
    assert [primed.score_text(question, s) for s in sentences] == expected
    assert calls == []  # no sentence again (the question's terms are kept apart)


@pytest.mark.slow
def test_an_ingest_killed_before_its_bm25_save_is_caught_up_even_at_equal_counts(tmp_path):
    """A run that ended well leaves nothing to catch up, so the next one does not list the
    collection; a run killed after Chroma and the manifest moved on but before the BM25
    save (a file changed, the chunk count unchanged) is caught up from its UNSAVED mark."""
    import signal

    from tests.support.storecheck import cli_env, ragcli

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("The quokka sleeps in the afternoon.")
    store = tmp_path / "store"
    args = ("ingest", str(docs), "--store", str(store))
    assert ragcli(*args, cwd=tmp_path).returncode == 0
    assert not (lexical_dir(store, "docs") / "UNSAVED").exists()
    (docs / "a.md").write_text("The numbat eats termites at dawn.")
    killed = ragcli(*args, cwd=tmp_path, env=cli_env(RAGCLI_CRASH_AT="before_checkpoint:1"))
    assert killed.returncode == -signal.SIGKILL
    assert (lexical_dir(store, "docs") / "UNSAVED").exists()
    assert LexicalIndex(lexical_dir(store, "docs")).search("numbat", 3) == []  # not saved

    assert ragcli(*args, cwd=tmp_path).returncode == 0  # a.md unchanged since the kill
    index = LexicalIndex(lexical_dir(store, "docs"))
    assert len(index) == 1 and index.search("numbat", 3) and not index.search("quokka", 3)
    assert not (lexical_dir(store, "docs") / "UNSAVED").exists()
