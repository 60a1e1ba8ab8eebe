"""Embeddings from a serving engine over the OpenAI-compatible `POST /v1/embeddings`
(text-embeddings-inference, Infinity, vLLM, Ollama, OpenAI), chosen by
`embedding.provider: openai`.

Real servers have limits, handled here rather than passed to the user: a batch refused as
too large (413, 422) is halved, and the smaller size is kept for the rest of the run; a
429, a 5xx, a timeout or a dropped connection is retried with exponential backoff and full
jitter (honouring Retry-After), a bounded number of times, then raised as one
`EmbeddingServerError` line naming the server and the status. Requests run on daemon
threads, `concurrency` in flight, so a Ctrl-C never waits for a slow server."""

from __future__ import annotations

import queue
import random
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragcli.errors import BackendError

# Statuses that say "this batch is too large", not "this server is broken".
TOO_LARGE = {413, 422}
RETRYABLE = {408, 409, 425, 429, 500, 502, 503, 504}
BACKOFF_BASE = 0.5  # seconds before the first retry, doubled each time
BACKOFF_CAP = 8.0
RETRY_AFTER_CAP = 30.0


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
        import httpx

        self.options = options
        self.name = options.model
        self.max_seq_length = max_seq_length
        self.batch_size = options.batch_size  # lowered when the server refuses a size
        self.dimension: int | None = None
        self.embedded = 0  # texts sent and answered, as the local embedders count
        self.requests = 0
        self.halvings = 0
        self.retries = 0
        self.endpoint = options.url.rstrip("/") + "/embeddings"
        headers = {"Authorization": f"Bearer {options.api_key}"} if options.api_key else {}
        self._client = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(options.timeout, connect=min(10.0, options.timeout)),
            limits=httpx.Limits(max_connections=options.concurrency),
        )
        self._closed = threading.Event()
        _open.add(self)

    def close(self) -> None:
        """Stop retrying and drop the connections (a Ctrl-C, or the end of a command)."""
        self._closed.set()
        self._client.close()

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
        status, vectors = self._request(texts)
        if vectors is not None:
            return vectors
        if len(texts) == 1:
            raise EmbeddingServerError(
                f"embedding server {self.endpoint} refused one text of {len(texts[0])} "
                f"characters as too large (HTTP {status}): lower chunking.max_tokens or "
                "raise the server's input limit"
            )
        half = len(texts) // 2
        self.halvings += 1
        self.batch_size = max(1, min(self.batch_size, half))
        first, second = self._embed_fitting(texts[:half]), self._embed_fitting(texts[half:])
        return np.concatenate([first, second])

    def _request(self, texts: list[str]) -> tuple[int, np.ndarray | None]:
        """(status, vectors); vectors None when the batch was too large. Retries what a
        retry can mend, then raises."""
        import httpx

        body = {"model": self.options.model, "input": texts, "encoding_format": "float"}
        last = ""
        for attempt in range(self.options.max_retries + 1):
            if self._closed.is_set():
                raise self._stopped()
            wait: float | None = None
            try:
                self.requests += 1
                response = self._client.post(self.endpoint, json=body)
            except httpx.TimeoutException:
                last = f"no answer within {self.options.timeout:g} s"
            except httpx.HTTPError as exc:
                if self._closed.is_set():
                    raise self._stopped() from None
                last = _connection_problem(exc)
            else:
                status = response.status_code
                if status == 200:
                    return status, self._vectors(response, len(texts))
                if status in TOO_LARGE:
                    return status, None
                last = f"HTTP {status}{_detail(response)}"
                if status not in RETRYABLE:
                    raise EmbeddingServerError(f"embedding server {self.endpoint}: {last}")
                wait = _retry_after(response)
            if attempt == self.options.max_retries:
                break
            self.retries += 1
            pause = wait if wait is not None else _backoff(attempt)
            if self._closed.wait(pause):
                raise self._stopped()
        raise EmbeddingServerError(
            f"embedding server {self.endpoint}: {last} (after {self.options.max_retries + 1} tries)"
        )

    def _stopped(self) -> EmbeddingServerError:
        return EmbeddingServerError(f"embedding server {self.endpoint}: stopped")

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


def _backoff(attempt: int) -> float:
    """Full jitter: a random pause up to the doubled bound, so clients that failed
    together do not retry together."""
    return random.uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * 2**attempt))


def _retry_after(response: Any) -> float | None:
    value = response.headers.get("retry-after")
    try:
        return min(RETRY_AFTER_CAP, max(0.0, float(value))) if value else None
    except ValueError:
        return None  # an HTTP date: the backoff's own pause will do


def _detail(response: Any) -> str:
    """A short reason from the server's body, if it gave one."""
    text = " ".join(response.text.split())[:160]
    return f" ({text})" if text else ""


def _connection_problem(exc: Exception) -> str:
    import httpx

    if isinstance(exc, httpx.ConnectError):
        return "cannot connect"
    if isinstance(exc, httpx.RemoteProtocolError):
        return "the connection was dropped"
    return f"{type(exc).__name__}: {exc}"
