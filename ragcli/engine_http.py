"""Calling a serving engine's HTTP API (an embedding server, a reranker) the way real
servers need: one httpx client kept for the caller's life; a 429, a 5xx, a timeout or a
dropped connection retried with exponential backoff and full jitter (honouring
Retry-After), a bounded number of times, then one error line naming the server and what
went wrong; a request refused as too large split in halves by `send_fitting`, whose
caller keeps the smaller size. `close()` stops a retry at once (a Ctrl-C)."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Collection
from typing import Any, TypeVar

from ragcli.errors import BackendError

# Statuses that say "this request is too large", not "this server is broken".
TOO_LARGE = frozenset({413, 422})
RETRYABLE = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
BACKOFF_BASE = 0.5  # seconds before the first retry, doubled each time
BACKOFF_CAP = 8.0
RETRY_AFTER_CAP = 30.0

T = TypeVar("T")
R = TypeVar("R")


class EngineClient:
    """POSTs JSON to one endpoint of an engine. `what` names the server in errors
    ("embedding server", "reranker"); `error` is the BackendError subclass raised."""

    def __init__(
        self,
        what: str,
        endpoint: str,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 5,
        concurrency: int = 1,
        error: type[BackendError] = BackendError,
    ):
        import httpx

        self.what = what
        self.endpoint = endpoint
        self.timeout = timeout
        self.max_retries = max_retries
        self.error = error
        self.requests = 0
        self.retries = 0
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(timeout, connect=min(10.0, timeout)),
            limits=httpx.Limits(max_connections=concurrency),
        )
        self._closed = threading.Event()

    def close(self) -> None:
        """Stop retrying and drop the connections (a Ctrl-C, or the end of a command)."""
        self._closed.set()
        self._client.close()

    def fail(self, reason: str) -> BackendError:
        """The one-line error of this server: `what endpoint: reason`."""
        return self.error(f"{self.what} {self.endpoint}: {reason}")

    def post(self, body: dict[str, Any], accept: Collection[int] = (200,)) -> Any:
        """The httpx response to `body` once its status is one of `accept`; retries what
        a retry can mend, then raises one line. Any other status raises at once."""
        import httpx

        last = ""
        for attempt in range(self.max_retries + 1):
            if self._closed.is_set():
                raise self.fail("stopped")
            wait: float | None = None
            try:
                self.requests += 1
                response = self._client.post(self.endpoint, json=body)
            except httpx.TimeoutException:
                last = f"no answer within {self.timeout:g} s"
            except httpx.HTTPError as exc:
                if self._closed.is_set():
                    raise self.fail("stopped") from None
                last = connection_problem(exc)
            else:
                status = response.status_code
                if status in accept:
                    return response
                last = f"HTTP {status}{detail(response)}"
                if status not in RETRYABLE:
                    raise self.fail(last)
                wait = retry_after(response)
            if attempt == self.max_retries:
                break
            self.retries += 1
            pause = wait if wait is not None else backoff(attempt)
            if self._closed.wait(pause):
                raise self.fail("stopped")
        raise self.fail(f"{last} (after {self.max_retries + 1} tries)")


def send_fitting(
    items: list[T],
    send: Callable[[list[T]], R | None],
    join: Callable[[R, R], R],
    too_large: Callable[[T], BackendError],
    on_split: Callable[[int], None] | None = None,
) -> R:
    """`send(items)`, halved for as long as it answers None (the server said "too
    large"); the halves' answers are joined in order. `on_split(half)` lets the caller
    keep the smaller size; one item still too large raises `too_large(item)`."""
    answer = send(items)
    if answer is not None:
        return answer
    if len(items) == 1:
        raise too_large(items[0])
    half = len(items) // 2
    if on_split is not None:
        on_split(half)
    first = send_fitting(items[:half], send, join, too_large, on_split)
    second = send_fitting(items[half:], send, join, too_large, on_split)
    return join(first, second)


def backoff(attempt: int) -> float:
    """Full jitter: a random pause up to the doubled bound, so clients that failed
    together do not retry together."""
    return random.uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * 2**attempt))


def retry_after(response: Any) -> float | None:
    value = response.headers.get("retry-after")
    try:
        return min(RETRY_AFTER_CAP, max(0.0, float(value))) if value else None
    except ValueError:
        return None  # an HTTP date: the backoff's own pause will do


def detail(response: Any) -> str:
    """A short reason from the server's body, if it gave one."""
    text = " ".join(response.text.split())[:160]
    return f" ({text})" if text else ""


def connection_problem(exc: Exception) -> str:
    import httpx

    if isinstance(exc, httpx.ConnectError):
        return "cannot connect"
    if isinstance(exc, httpx.RemoteProtocolError):
        return "the connection was dropped"
    return f"{type(exc).__name__}: {exc}"
