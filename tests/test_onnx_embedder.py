"""The ONNX embedder matches sentence-transformers, caches its export, and never needs torch."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from ragcli.embedding import onnx as onnx_embedder
from ragcli.embedding.embedder import bundled_model_dir as default_model_dir
from ragcli.embedding.onnx import OnnxEmbedder
from ragcli.embedding.wordpieces import load_tokenizer
from tests.support.imports import fresh_imports

REPO = Path(__file__).resolve().parents[1]

# Two topics, so that embedding only the first 128 word pieces changes the vector a lot.
_LONG_A = "The river flooded the valley after three days of heavy spring rain. " * 9
_LONG_B = "Compilers translate source code into machine instructions for the processor. " * 9
SAMPLE = [
    "a",
    "x",
    "How do I reset my password?",
    "naïve café façade — Zürich, 東京, Москва, emoji 🚀✨",
    "def area(r: float) -> float:\n    return 3.14159 * r ** 2  # circle\n",
    "Invoice 2024-07-31: 1,234.56 EUR, VAT 19 %, id 0x7F3A, ratio 3/4, 1e-9",
    _LONG_A + _LONG_B,  # between 128 and 256 word pieces
    _LONG_A + _LONG_B + _LONG_A + "Finally something else entirely about cooking pasta.",  # > 256
]


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx-cache")


@pytest.fixture(scope="module")
def exports() -> list[str]:
    return []


@pytest.fixture(scope="module")
def embedder(cache_dir: Path, exports: list[str]) -> OnnxEmbedder:
    # The one export of the module; later tests reuse the cached file.
    return OnnxEmbedder(default_model_dir(), cache_dir, on_export=exports.append)


@pytest.fixture(scope="module")
def st_embeddings() -> np.ndarray:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(default_model_dir()), device="cpu")
    return model.encode(SAMPLE, batch_size=32, convert_to_numpy=True)


def test_attributes_and_first_export(embedder: OnnxEmbedder, exports: list[str]) -> None:
    assert (embedder.name, embedder.backend) == ("all-MiniLM-L6-v2", "onnx")
    assert (embedder.max_seq_length, embedder.dimension) == (256, 384)
    assert len(exports) == 1 and "ONNX" in exports[0]
    assert embedder.onnx_path.exists()


def test_sample_covers_truncation_lengths() -> None:
    lengths = [len(load_tokenizer(default_model_dir()).encode(t).ids) for t in SAMPLE]
    assert 128 < lengths[-2] <= 256 < lengths[-1]


def test_matches_sentence_transformers(embedder: OnnxEmbedder, st_embeddings: np.ndarray) -> None:
    got = embedder.embed(SAMPLE)
    assert got.dtype == np.float32 and got.shape == (len(SAMPLE), 384)
    ref = st_embeddings / np.linalg.norm(st_embeddings, axis=1, keepdims=True)
    cosines = (got * ref).sum(axis=1)
    assert cosines.min() >= 0.9999, cosines


def test_normalised_and_in_input_order(embedder: OnnxEmbedder) -> None:
    texts = [SAMPLE[i] for i in (2, 7, 0, 4, 6, 3, 1, 5)]
    small_batches = OnnxEmbedder(default_model_dir(), embedder.onnx_path.parent, batch_size=3)
    batched = small_batches.embed(texts)
    one_by_one = np.stack([embedder.embed([t])[0] for t in texts])
    np.testing.assert_allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(batched, one_by_one, atol=1e-5)
    np.testing.assert_allclose(embedder.embed(texts[::-1]), batched[::-1], atol=1e-5)


def test_empty_input(embedder: OnnxEmbedder) -> None:
    out = embedder.embed([])
    assert out.shape == (0, 384) and out.dtype == np.float32


def test_load_tokenizer_neither_pads_nor_truncates() -> None:
    tokenizer = load_tokenizer(default_model_dir())
    assert len(tokenizer.encode("a").ids) == 3  # [CLS] a [SEP]
    assert len(tokenizer.encode(SAMPLE[-1]).ids) > 256


def test_cache_reused(embedder: OnnxEmbedder, cache_dir: Path) -> None:
    calls: list[str] = []
    again = OnnxEmbedder(default_model_dir(), cache_dir, on_export=calls.append)
    assert calls == [] and again.onnx_path == embedder.onnx_path


@pytest.mark.slow
def test_rebuilt_when_weights_change(
    embedder: OnnxEmbedder, cache_dir: Path, tmp_path: Path
) -> None:
    model_dir = tmp_path / "model"
    shutil.copytree(default_model_dir(), model_dir)
    calls: list[str] = []
    # Same bytes elsewhere: same key, so no export.
    assert OnnxEmbedder(model_dir, cache_dir, on_export=calls.append).onnx_path == (
        embedder.onnx_path
    )
    assert calls == []

    weights = model_dir / "model.safetensors"
    before = weights.stat()
    key = onnx_embedder.cache_key(model_dir, cache_dir)
    with weights.open("r+b") as f:  # nudge the last float's lowest mantissa bit
        f.seek(-4, os.SEEK_END)
        byte = f.read(1)
        f.seek(-4, os.SEEK_END)
        f.write(bytes([byte[0] ^ 1]))
    # Unchanged size and mtime: the stamp is trusted, the 90 MB are not rehashed.
    os.utime(weights, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert onnx_embedder.cache_key(model_dir, cache_dir) == key

    os.utime(weights, ns=(before.st_atime_ns, before.st_mtime_ns + 10**9))
    rebuilt = OnnxEmbedder(model_dir, cache_dir, on_export=calls.append)
    assert len(calls) == 1
    assert rebuilt.onnx_path != embedder.onnx_path and rebuilt.onnx_path.exists()
    assert not list(cache_dir.glob("*.tmp"))


def test_failed_export_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def half_export(model_dir: Path, dest: Path) -> None:
        dest.write_bytes(b"half a graph")
        raise KeyboardInterrupt

    monkeypatch.setattr(onnx_embedder, "_export", half_export)
    with pytest.raises(KeyboardInterrupt):
        onnx_embedder.ensure_onnx(default_model_dir(), tmp_path)
    assert not list(tmp_path.glob("*.onnx")) and not list(tmp_path.glob("*.tmp"))


@pytest.mark.slow
def test_query_path_does_not_import_torch(embedder: OnnxEmbedder, cache_dir: Path) -> None:
    code = f"""
from pathlib import Path
from ragcli.embedding.embedder import bundled_model_dir as default_model_dir
from ragcli.embedding.onnx import OnnxEmbedder

def no_export(message):
    raise AssertionError("unexpected export: " + message)

embedder = OnnxEmbedder(default_model_dir(), Path({str(cache_dir)!r}), on_export=no_export)
assert embedder.embed(["where is the invoice?"]).shape == (1, 384)
"""
    run = fresh_imports(code, cwd=REPO)
    assert run.heavy == [], run.stderr[-2000:]


def test_batches_keep_padding_small(embedder: OnnxEmbedder) -> None:
    """Sentences of 70 to 10 tokens are not padded to 70 in one batch; chunks of similar
    length still fill whole batches."""
    lengths = [70, 60, 53, 40, 30, 29, 20, 10]
    batches = embedder._batches(list(range(len(lengths))), lengths)
    assert batches == [[0, 1, 2], [3, 4], [5], [6], [7]]
    uniform = embedder._batches(list(range(70)), [256] * 70)
    assert [len(b) for b in uniform] == [32, 32, 6]
    texts = ["short one.", "a somewhat longer sentence about backups and restores " * 3]
    separately = np.stack([embedder.embed([t])[0] for t in texts])
    assert np.allclose(embedder.embed(texts), separately, atol=1e-5)
