"""Work ahead in a background thread, so reading and chunking the next files overlaps with
embedding the current ones (onnxruntime and the tokenizer release the GIL while they run)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

_DONE = object()


class _Failure:
    def __init__(self, error: BaseException):
        self.error = error


def prefetch(items: Iterable[T], work: Callable[[T], R], ahead: int = 32) -> Iterator[R]:
    """`work(item)` for each item, in order, computed up to `ahead` items before the consumer
    asks for them. An exception in `work` is raised in the consumer, at that item; when the
    consumer stops early (an error, a break), the worker stops too."""
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
            yield value
    finally:
        stop.set()
        thread.join(timeout=5)
