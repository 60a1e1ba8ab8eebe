"""Embeddings from a serving engine over the OpenAI-compatible `POST /v1/embeddings`
(text-embeddings-inference, Infinity, vLLM, Ollama, OpenAI), chosen by
`embedding.provider: openai`.

Real servers have limits, handled here rather than passed to the user (engine_http.py,
which the reranker's engine client shares): a batch refused as too large (413, 422) is
halved, and the smaller size is kept for the rest of the run; a 429, a 5xx, a timeout or
a dropped connection is retried with exponential backoff and full jitter (honouring
Retry-After), a bounded number of times, then raised as one `EmbeddingServerError` line
naming the server and the status. Requests run on daemon threads, `concurrency` in
flight, so a Ctrl-C never waits for a slow server."""

from __future__ import annotations

import queue
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragcli.engine_http import TOO_LARGE, EngineClient, send_fitting
from ragcli.errors import BackendError

_open: weakref.WeakSet[ServerEmbedder] = weakref.WeakSet()


def close_all() -> None:
    """Close every server embedder of this process (a Ctrl-C while one is being made)."""
    for embedder in list(_open):
        embedder.close()


class EmbeddingServerError(BackendError):
    """The embedding server failed a request after its retries, or answered nonsense."""


@dataclass(frozen=True)
class ServerOptions:
    url: str  # the API's base, e.g. http://gpu-box:7997/v1 (".../embeddings" is added)
    model: str  # the name the server knows the model by
    api_key: str | None = None
    batch_size: int = 32
    concurrency: int = 4
    timeout: float = 60.0
    max_retries: int = 5


class ServerEmbedder:
    """An Embedder (embedding/embedder.py) whose vectors come from a server. One HTTP client
    is kept for the embedder's life, so a warm `serve` or `chat` reuses its connections."""

    backend = "openai"
    precision = "fp32"  # what the server computes in is its own affair; it sends floats

    def __init__(self, options: ServerOptions, max_seq_length: int = 512):
        self.options = options
        self.name = options.model
        self.max_seq_length = max_seq_length
        self.batch_size = options.batch_size  # lowered when the server refuses a size
        self.dimension: int | None = None
        self.embedded = 0  # texts sent and answered, as the local embedders count
        self.halvings = 0
        self.endpoint = options.url.rstrip("/") + "/embeddings"
        self._http = EngineClient(
            "embedding server",
            self.endpoint,
            api_key=options.api_key,
            timeout=options.timeout,
            max_retries=options.max_retries,
            concurrency=options.concurrency,
            error=EmbeddingServerError,
        )
        _open.add(self)

    @property
    def requests(self) -> int:
        return self._http.requests

    @property
    def retries(self) -> int:
        return self._http.retries

    def close(self) -> None:
        """Stop retrying and drop the connections (a Ctrl-C, or the end of a command)."""
        self._http.close()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension or 0), dtype=np.float32)
        texts = list(texts)
        slices = [
            (start, texts[start : start + self.batch_size])
            for start in range(0, len(texts), self.batch_size)
        ]
        results: dict[int, np.ndarray] = {}
        failures: list[BaseException] = []
        work: queue.SimpleQueue[tuple[int, list[str]]] = queue.SimpleQueue()
        for piece in slices:
            work.put(piece)
        done = threading.Semaphore(0)

        def worker() -> None:
            while not failures:
                try:
                    start, batch = work.get_nowait()
                except queue.Empty:
                    return
                try:
                    results[start] = self._embed_fitting(batch)
                except BaseException as exc:  # handed to the caller's thread below
                    failures.append(exc)
                finally:
                    done.release()

        threads = min(self.options.concurrency, len(slices))
        for _ in range(threads):
            threading.Thread(target=worker, name="ragcli-embed-http", daemon=True).start()
        for _ in slices:
            done.acquire()
            if failures:
                raise failures[0]
        vectors = np.concatenate([results[start] for start, _ in slices])
        self.embedded += len(texts)
        return vectors

    def _embed_fitting(self, texts: list[str]) -> np.ndarray:
        """One batch, halved for as long as the server says it is too large."""
        return send_fitting(
            texts,
            self._request,
            lambda first, second: np.concatenate([first, second]),
            self._one_too_large,
            self._smaller,
        )

    def _smaller(self, half: int) -> None:
        self.halvings += 1
        self.batch_size = max(1, min(self.batch_size, half))

    def _one_too_large(self, text: str) -> EmbeddingServerError:
        return EmbeddingServerError(
            f"embedding server {self.endpoint} refused one text of {len(text)} "
            "characters as too large: lower chunking.max_tokens or raise the server's "
            "input limit"
        )

    def _request(self, texts: list[str]) -> np.ndarray | None:
        """The batch's vectors; None when the server refused it as too large."""
        body = {"model": self.options.model, "input": texts, "encoding_format": "float"}
        response = self._http.post(body, accept={200, *TOO_LARGE})
        if response.status_code != 200:
            return None
        return self._vectors(response, len(texts))

    def _vectors(self, response: Any, expected: int) -> np.ndarray:
        try:
            rows = sorted(response.json()["data"], key=lambda row: row["index"])
            vectors = np.asarray([row["embedding"] for row in rows], dtype=np.float32)
        except (ValueError, KeyError, TypeError):
            raise EmbeddingServerError(
                f"embedding server {self.endpoint}: the answer is not an embeddings list"
            ) from None
        if vectors.ndim != 2 or len(vectors) != expected:
            raise EmbeddingServerError(
                f"embedding server {self.endpoint}: {len(vectors)} vectors for {expected} texts"
            )
        if self.dimension is None:
            self.dimension = vectors.shape[1]
        elif vectors.shape[1] != self.dimension:
            raise EmbeddingServerError(
                f"embedding server {self.endpoint}: vectors of {vectors.shape[1]} dimensions, "
                f"earlier ones had {self.dimension}"
            )
        # Some engines do not normalise; retrieval's scores assume unit vectors.
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)
