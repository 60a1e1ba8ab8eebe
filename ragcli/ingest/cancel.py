"""Stopping an ingest on Ctrl-C or SIGTERM: the signal only sets a flag, which the ingest
checks between writes and while it waits for an embedding, so it stops within a moment,
after the write in progress and one write of the files already embedded (windows.py), and
never inside a native call (interrupting onnxruntime mid-run aborts the process). What was
written stays written; the next run does the rest."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")
POLL_SECONDS = 0.1  # how often a wait for an embedding looks at the flag


class IngestInterrupted(Exception):
    """Raised at a check point once a stop was asked; carries the partial report."""

    def __init__(self, report: Any, left: int):
        super().__init__("interrupted")
        self.report = report
        self.left = left  # entries not stored: the next run stores them


class StopFlag:
    """Set by a signal (or a test); read by the ingest at its check points."""

    def __init__(self) -> None:
        self.event = threading.Event()

    def set(self) -> None:
        self.event.set()

    def is_set(self) -> bool:
        return self.event.is_set()

    def wait_for(self, future: Future[T]) -> T:
        """The future's result, waited for in short steps so that a stop is noticed (and
        a signal handled: the main thread is not stuck in one long native wait)."""
        while True:
            if self.event.is_set():
                raise StopRequested
            try:
                return future.result(timeout=POLL_SECONDS)
            except TimeoutError:
                continue


class StopRequested(Exception):
    """A check point found the flag set: unwound to the ingest, which reports."""


class SignalStop:
    """While active, SIGINT and SIGTERM set `flag`; `on_signal(first)` says what happens.
    A second signal never kills the process mid-write: it is said, and the stop goes on."""

    def __init__(self, flag: StopFlag, on_signal: Callable[[bool], None]):
        self.flag = flag
        self.on_signal = on_signal
        self.previous: dict[int, Any] = {}

    def _handle(self, signum: int, _frame: object) -> None:
        first = not self.flag.is_set()
        self.flag.set()
        self.on_signal(first)

    def __enter__(self) -> SignalStop:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self.previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)
