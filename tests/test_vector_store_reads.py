"""What a warm VectorStore keeps between reads (collection counts, embeddings by chunk id)
never outlives a write: one through the same object, or one by another process."""

from __future__ import annotations

import numpy as np

from ragcli.store.vectors import VectorStore


def unit(*values: float) -> list[float]:
    vector = np.array(values, dtype=np.float32)
    return (vector / np.linalg.norm(vector)).tolist()


def write(store: VectorStore, ids: list[str], vectors: list[list[float]]) -> None:
    store.upsert(
        "docs", ids, [f"text of {i}" for i in ids], vectors, [{"chunk_id": i} for i in ids]
    )


def test_a_write_through_the_store_is_seen_by_its_next_read(tmp_path):
    store = VectorStore(tmp_path / "store")
    write(store, ["a", "b"], [unit(1, 0, 0), unit(0, 1, 0)])
    assert store.count("docs") == 2
    assert np.allclose(store.embeddings("docs", ["a"])["a"], unit(1, 0, 0))

    write(store, ["a", "c"], [unit(0, 0, 1), unit(1, 1, 0)])  # "a" gets a new vector
    assert store.count("docs") == 3
    assert np.allclose(store.embeddings("docs", ["a"])["a"], unit(0, 0, 1))

    store.delete("docs", ids=["b"])
    assert store.count("docs") == 2
    assert set(store.embeddings("docs", ["a", "b", "c"])) == {"a", "c"}


def test_a_write_by_another_client_is_seen_after_a_refresh(tmp_path):
    """`ragcli serve` refreshes its store before each call; an ingest writes elsewhere."""
    reader = VectorStore(tmp_path / "store")
    write(reader, ["a"], [unit(1, 0, 0)])
    assert reader.count("docs") == 1
    assert set(reader.embeddings("docs", ["a"])) == {"a"}

    writer = VectorStore(tmp_path / "store")
    write(writer, ["b"], [unit(0, 1, 0)])
    writer.delete("docs", ids=["a"])
    reader.refresh()
    assert reader.count("docs") == 1
    assert set(reader.embeddings("docs", ["a", "b"])) == {"b"}
