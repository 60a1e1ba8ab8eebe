"""The warm front ends' embedder cache: the same vectors, each text embedded once, bounded."""

from __future__ import annotations

import numpy as np

from ragcli.embedding.cache import CachingEmbedder
from tests.support.embedders import CountingEmbedder


def test_cached_vectors_equal_fresh_ones_and_each_text_is_embedded_once():
    inner = CountingEmbedder(max_seq_length=16)
    cache = CachingEmbedder(inner)
    first = cache.embed(["alpha", "beta", "alpha"])
    again = cache.embed(["beta", "gamma", "alpha"])
    assert np.array_equal(first, inner.embed(["alpha", "beta", "alpha"]))
    assert np.array_equal(again, inner.embed(["beta", "gamma", "alpha"]))
    assert inner.seen[:3] == ["alpha", "beta", "gamma"]  # before the checks above
    assert cache.embed([]).shape[0] == 0
    assert cache.name == "counting" and cache.max_seq_length == 16


def test_the_cache_drops_the_least_recently_used_beyond_its_bound():
    inner = CountingEmbedder()
    cache = CachingEmbedder(inner, max_vectors=2)
    cache.embed(["a", "bb"])
    cache.embed(["a"])  # "a" is now the most recent
    cache.embed(["ccc"])  # "bb" drops
    inner.calls.clear()
    cache.embed(["a", "ccc", "bb"])
    assert inner.seen == ["bb"]
