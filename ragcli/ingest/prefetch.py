"""Work ahead in background threads, so reading and chunking the next documents overlaps
with embedding the current ones, and embedding a batch with writing the one before it
(onnxruntime and the tokenizer release the GIL while they run)."""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")
B = TypeVar("B")  # a batch
V = TypeVar("V")  # its vectors

_DONE = object()
_worker = threading.local()  # the stop event of the prefetch worker running in this thread


def stopping() -> bool:
    """Whether the consumer of the prefetch running this code has stopped (an error, a
    Ctrl-C): a long piece of work (OCR of many pages) checks it between steps."""
    stop = getattr(_worker, "stop", None)
    return stop is not None and stop.is_set()


class _Failure:
    def __init__(self, error: BaseException):
        self.error = error


def prefetch(
    items: Iterable[T],
    work: Callable[[T], R],
    ahead: int = 32,
    finish: Callable[[R], R] | None = None,
) -> Generator[R, None, None]:
    """`work(item)` for each item, in order, computed up to `ahead` items before the consumer
    asks for them, then `finish` (on the consumer's thread: waiting there for what `work`
    started elsewhere lets up to `ahead` items be worked on at once). An exception in `work`
    is raised in the consumer, at that item; when the consumer stops early (an error, a
    break), the worker stops too."""
    results: queue.Queue = queue.Queue(maxsize=max(1, ahead))
    stop = threading.Event()

    def offer(value: object) -> bool:
        while not stop.is_set():
            try:
                results.put(value, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def worker() -> None:
        _worker.stop = stop
        try:
            for item in items:
                if stop.is_set() or not offer(work(item)):
                    return
        except BaseException as exc:  # handed to the consumer, raised there
            offer(_Failure(exc))
            return
        offer(_DONE)

    thread = threading.Thread(target=worker, name="ragcli-prefetch", daemon=True)
    thread.start()
    try:
        while True:
            value = results.get()
            if value is _DONE:
                return
            if isinstance(value, _Failure):
                raise value.error
            yield finish(value) if finish else value
    finally:
        stop.set()
        # A worker inside one long call (an OCR page) is left to finish it alone: it writes
        # nothing, and a daemon thread does not hold up the exit of a stopped ingest.
        thread.join(timeout=1)


class Batches(Generic[B]):
    """Embeds one batch in a background thread while the caller gathers the next, so
    reading and chunking never leave the embedder idle. Batches are still written one at
    a time, in order, on the caller's thread: the journal, crash points and manifest see
    the same sequence as without the overlap, and at most two batches are in memory."""

    def __init__(
        self,
        embed: Callable[[B], V],
        write: Callable[[B, V], int],
        wait: Callable[[Future[V]], V] = Future.result,
    ):
        self.embed = embed
        self.write = write
        self.wait = wait  # how the caller waits for a batch's vectors (a stop may cut it)
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragcli-embed")
        self.queued: deque[tuple[B, Future[V]]] = deque()  # sent, not written; oldest first

    def send(self, batch: B | None) -> int:
        """Start embedding `batch` (if any), then write the batch sent before it; returns
        what `write` returns for it (0 when there was none)."""
        if batch:
            self.queued.append((batch, self.pool.submit(self.embed, batch)))
        if len(self.queued) < (2 if batch else 1):
            return 0
        oldest, vectors = self.queued[0]
        embedded = self.wait(vectors)  # a stop here leaves it queued: see `unwritten`
        self.queued.popleft()
        return self.write(oldest, embedded)

    def flush(self) -> int:
        """Write the batch still in flight."""
        return self.send(None)

    def unwritten(self) -> list[B]:
        """The batches sent and not written, oldest first: at a stop, the caller may write
        what of them is embedded already."""
        return [batch for batch, _ in self.queued]

    def __enter__(self) -> Batches[B]:
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        # On an error or a stop what is still embedding is dropped unwritten: its items are
        # not in the manifest, so the next run redoes them. A stop does not wait for it:
        # the process leaves without it.
        self.pool.shutdown(wait=kind is None, cancel_futures=True)
