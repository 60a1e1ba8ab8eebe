"""Sentence embeddings through onnxruntime, so the query path never imports torch.

The ONNX graph is exported once from the sentence-transformers model itself (transformer,
mean pooling and normalisation in one graph), cached under a key derived from the weights'
sha256, and rebuilt when the weights change. Only the export imports torch.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import onnxruntime as ort
import platformdirs
from tokenizers import Encoding

from ragcli.atomic import atomic_path
from ragcli.embedding.wordpieces import load_tokenizer
from ragcli.errors import BackendError, ConfigError

DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"
# Bump when the export recipe changes, so old cached graphs are not reused.
EXPORT_VERSION = 1
INT8_VERSION = 2  # bump when the quantisation recipe changes
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
# Small files that shape the exported graph besides the weights.
_CONFIG_FILES = ("config.json", "modules.json", "1_Pooling/config.json")
_STAMPS_FILE = "weights-stamps.json"
_INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")
# A batch's texts are at least this share of its longest one's length (in tokens).
PADDED_SHARE = 0.75


def default_cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir("ragcli")) / "onnx"


class OnnxEmbedder:
    backend = "onnx"

    def __init__(
        self,
        model_dir: Path,
        cache_dir: Path | None = None,
        batch_size: int = 32,
        on_export: Callable[[str], None] | None = None,
        *,
        name: str = DEFAULT_MODEL_NAME,
        precision: str = "fp32",
    ) -> None:
        self.model_dir = Path(model_dir)
        self.name = name
        self.batch_size = max(1, batch_size)
        config = json.loads((self.model_dir / "sentence_bert_config.json").read_text())
        self.max_seq_length: int = config["max_seq_length"]

        self.tokenizer = load_tokenizer(self.model_dir)
        # Truncate like sentence-transformers; padding is done per batch in _run_batch.
        self.tokenizer.enable_truncation(max_length=self.max_seq_length)

        cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self.precision = precision
        self.onnx_path = ensure_onnx(self.model_dir, cache, name=name, on_export=on_export)
        if precision == "int8":
            self.onnx_path = ensure_int8(self.onnx_path, on_export)
        self.session = _make_session(self.onnx_path)
        self._feeds_token_types = "token_type_ids" in {i.name for i in self.session.get_inputs()}
        self.dimension: int = int(self.session.get_outputs()[0].shape[-1])
        # Texts embedded so far: a progress display reads it between batches.
        self.embedded = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised float32 embeddings, shape (len(texts), dimension), in input order."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        encodings = self.tokenizer.encode_batch(list(texts))
        # Longest first, so each batch pads to a similar length; results go back by index.
        order = sorted(range(len(texts)), key=lambda i: -len(encodings[i].ids))
        for idx in self._batches(order, [len(e.ids) for e in encodings]):
            out[idx] = self._run_batch([encodings[i] for i in idx])
            self.embedded += len(idx)
        # The graph already normalises; this keeps the contract for models without Normalize.
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)

    def _batches(self, order: list[int], lengths: list[int]) -> list[list[int]]:
        """Runs of `order` (longest first) of at most batch_size texts, each ending before a
        text shorter than PADDED_SHARE of the run's longest: a batch costs its size times
        its longest text, so one batch of an answer's 30 sentences (10 to 70 tokens) would
        spend most of its time on padding."""
        batches: list[list[int]] = []
        for i in order:
            current = batches[-1] if batches else None
            if (
                current is None
                or len(current) >= self.batch_size
                or lengths[i] < PADDED_SHARE * lengths[current[0]]
            ):
                batches.append([i])
            else:
                current.append(i)
        return batches

    def _run_batch(self, encodings: list[Encoding]) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        types = np.zeros_like(ids)
        mask = np.zeros_like(ids)
        for row, enc in enumerate(encodings):
            n = len(enc.ids)
            ids[row, :n] = enc.ids
            types[row, :n] = enc.type_ids
            mask[row, :n] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if self._feeds_token_types:
            feeds["token_type_ids"] = types
        return self.session.run(None, feeds)[0]


def _make_session(path: Path) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = _cpu_count()
    # Idle threads sleep rather than spin: during an ingest the parsing (and any other
    # process) shares these cores, and spinning threads burned their time (docs/performance.md).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # Measured: every optimisation level is within noise (the exporter already folds
    # constants) and all build the session in ~0.2 s, so keep the default, ENABLE_ALL.
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def _cpu_count() -> int:
    if hasattr(os, "sched_getaffinity"):  # the CPUs this process may use, not the machine's
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


# --- cache -------------------------------------------------------------------------------


def ensure_onnx(
    model_dir: Path,
    cache_dir: Path,
    *,
    name: str = DEFAULT_MODEL_NAME,
    on_export: Callable[[str], None] | None = None,
) -> Path:
    """Path of the cached ONNX graph for `model_dir`, exporting it first if needed."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    path = cache_dir / f"{name}-{cache_key(model_dir, cache_dir)}.onnx"
    if not path.exists():
        if on_export is not None:
            on_export(f"Exporting {name} to ONNX (one time, ~20 s)…")
        with atomic_path(path) as tmp:
            _export(model_dir, tmp)
    return path


def ensure_int8(fp32_path: Path, on_export: Callable[[str], None] | None = None) -> Path:
    """The fp32 graph with its weights dynamically quantised to int8 (onnxruntime's
    quantiser: weights stored as int8, activations quantised per batch at run time),
    cached beside it under the same key. Per-channel scales and 7-bit weights: on CPUs
    without VNNI the 8-bit product can saturate, and per-tensor scales lose too much
    (docs/performance.md has the figures)."""
    path = fp32_path.with_name(fp32_path.stem + f"-int8v{INT8_VERSION}.onnx")
    if not path.exists():
        if on_export is not None:
            on_export("Quantising the embedding model to int8 (one time, a few seconds)…")
        from onnxruntime.quantization import QuantType, quantize_dynamic

        with atomic_path(path) as tmp, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the quantiser's advice to pre-process first
            quantize_dynamic(
                fp32_path, tmp, weight_type=QuantType.QInt8, per_channel=True, reduce_range=True
            )
    return path


def cache_key(model_dir: Path, cache_dir: Path) -> str:
    digest = hashlib.sha256(f"v{EXPORT_VERSION}".encode())
    digest.update(_weights_sha256(_weights_file(model_dir), cache_dir).encode())
    for rel in _CONFIG_FILES:
        file = model_dir / rel
        if file.exists():
            digest.update(rel.encode() + file.read_bytes())
    return digest.hexdigest()[:16]


def _weights_file(model_dir: Path) -> Path:
    for fname in _WEIGHT_FILES:
        if (model_dir / fname).exists():
            return model_dir / fname
    raise ConfigError(f"No model weights ({' or '.join(_WEIGHT_FILES)}) in {model_dir}")


def _weights_sha256(weights: Path, cache_dir: Path) -> str:
    """sha256 of the weights, rehashed only when their (path, size, mtime) changes.

    Hashing 90 MB costs ~0.2 s, too much for every query; the stamp file makes it a stat.
    """
    stamps_path = cache_dir / _STAMPS_FILE
    try:
        stamps = json.loads(stamps_path.read_text())
    except (OSError, ValueError):
        stamps = {}
    stat = weights.stat()
    key = str(weights.resolve())
    stamp = stamps.get(key)
    if stamp and stamp["size"] == stat.st_size and stamp["mtime_ns"] == stat.st_mtime_ns:
        return stamp["sha256"]

    digest = hashlib.sha256()
    with weights.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    stamps[key] = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": digest.hexdigest()}
    with atomic_path(stamps_path) as tmp:
        tmp.write_text(json.dumps(stamps, indent=1))
    return digest.hexdigest()


def _export(model_dir: Path, dest: Path) -> None:
    """Export the sentence-transformers model (with pooling and Normalize) to `dest`."""
    try:
        import torch
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging
    except ImportError as e:
        raise BackendError(f"Exporting the ONNX model needs torch: {e}") from e

    hf_logging.disable_progress_bar()
    model = SentenceTransformer(str(model_dir), device="cpu", local_files_only=True).eval()

    class Wrapper(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(
            self,
            input_ids: torch.Tensor,
            attention_mask: torch.Tensor,
            token_type_ids: torch.Tensor,
        ) -> torch.Tensor:
            features = {
                "input_ids": input_ids,
                "attention_mask": attention_mask,
                "token_type_ids": token_type_ids,
            }
            return self.model(features)["sentence_embedding"]

    # Trace with a padded row: the attention-mask path must be in the graph (transformers
    # may skip the mask when a batch has no padding).
    ids = torch.tensor([[101, 7592, 2088, 102], [101, 7592, 102, 0]])
    dims = {0: "batch", 1: "sequence"}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tracer and deprecation noise, not actionable here
        torch.onnx.export(
            Wrapper(),
            (ids, (ids != 0).long(), torch.zeros_like(ids)),
            str(dest),
            input_names=list(_INPUT_NAMES),
            output_names=["sentence_embedding"],
            dynamic_axes={n: dims for n in _INPUT_NAMES} | {"sentence_embedding": {0: "batch"}},
            opset_version=17,
            dynamo=False,  # the dynamo exporter needs onnxscript; TorchScript export suffices
        )
