"""Sentence vectors kept in the store: embedded once per store, exact, bounded, and never
in the way of an answer."""

from __future__ import annotations

import numpy as np

from ragcli import service
from ragcli.embedding.sentence_vectors import FILE, SentenceVectors
from tests.support.common import settings_for
from tests.support.embedders import CountingEmbedder


def test_a_sentence_is_embedded_once_per_store(tmp_path):
    inner = CountingEmbedder()
    first = SentenceVectors(inner, tmp_path).embed(["alpha", "beta", "alpha"])
    again = SentenceVectors(inner, tmp_path).embed(["beta", "gamma", "alpha"])
    assert inner.calls == [["alpha", "beta"], ["gamma"]]
    assert np.array_equal(first[1], again[0]) and np.array_equal(first[0], again[2])
    assert (tmp_path / FILE).is_file()


def test_another_precision_has_its_own_vectors(tmp_path):
    inner = CountingEmbedder()
    SentenceVectors(inner, tmp_path).embed(["alpha"])
    inner.precision = "int8"
    SentenceVectors(inner, tmp_path).embed(["alpha"])
    assert inner.calls == [["alpha"], ["alpha"]]


def test_the_cache_is_bounded(tmp_path):
    inner = CountingEmbedder()
    cache = SentenceVectors(inner, tmp_path, max_rows=10)
    cache.embed([f"text {i}" for i in range(25)])
    (count,) = cache._connection().execute("SELECT count(*) FROM vectors").fetchone()
    assert count <= 10


def test_an_unusable_cache_file_still_answers(tmp_path):
    (tmp_path / FILE).write_text("not a database")
    inner = CountingEmbedder()
    vectors = SentenceVectors(inner, tmp_path).embed(["alpha", "beta"])
    assert vectors.shape == (2, 3) and inner.calls == [["alpha", "beta"]]


def test_a_repeated_ask_gives_the_same_answer_from_kept_vectors(sample_store):
    settings = settings_for(sample_store, **{"store.collection": "docs"})
    question = "How do I restore a backup?"
    first = service.ask(settings, question)
    assert (sample_store / FILE).is_file()
    second = service.ask(settings, question)
    assert second.answer == first.answer and "dw admin restore" in first.answer
