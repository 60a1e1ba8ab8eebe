"""Files read, parsed (OCR included) and chunked by a pool of worker processes, so that a
fast embedding engine is not starved by one Python process (`ingest.workers`, default: the
machine's cores).

Only the work that holds the GIL moves: `parse` (the loader and the chunker). Deciding
what a file needs (its size and time, its hash, the manifest, a renamed copy) stays in the
prefetch thread, and the writes stay on the caller's thread, in order, so the journal,
Ctrl-C and the progress display see what they saw before. The pool starts at the
POOL_AFTER-th file that needs parsing: a small or incremental ingest never pays for
starting processes. Workers ignore SIGINT (the parent decides what a Ctrl-C means) and are
terminated at a stop, however long the page they were reading.

A worker that dies (killed, out of memory, a crash in a native parser) breaks the pool and
every parse in it. Each of those files is parsed again in a fresh pool; the file whose
second parse breaks it too fails with a one-line reason, and the ingest goes on. (A
multiprocessing.Pool would have waited forever for the dead worker's result.)"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from pathlib import Path

from ragcli.ingest.chunker import Chunk, Chunker
from ragcli.ingest.loaders import LoadError, LoadOptions, configure, load
from ragcli.ingest.warning_notes import warnings_as_notes

POOL_AFTER = 8  # files parsed in the prefetch thread before the pool is started
PARENT_CHECK_SECONDS = 0.5  # how often a worker checks that the ingesting process lives


@dataclass
class Parsed:
    file_type: str
    chunks: list[Chunk]
    pages: int | None = None
    ocr_pages: int = 0
    notes: list[str] = field(default_factory=list)


def parse(path: Path, chunker: Chunker) -> Parsed:
    """A file's chunks, and what its loader says about it (raises LoadError, OSError)."""
    with warnings_as_notes() as warned:
        loaded = load(path)
        chunks = chunker.chunk(loaded.sections)
    return Parsed(loaded.file_type, chunks, loaded.pages, loaded.ocr_pages, loaded.notes + warned)


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def end_workers() -> None:
    """End every parsing process now. The executor cannot end its workers itself (before
    Python 3.14); they are the only processes ragcli starts through multiprocessing."""
    for worker in multiprocessing.active_children():
        worker.terminate()


def release_before_exit() -> None:
    """What leaving normally does for the parsing processes and os._exit skips: end them
    and release their queues' semaphores. Skipped, multiprocessing's resource tracker
    prints "There appear to be 5 leaked semaphore objects" after the run's last line."""
    from multiprocessing import util

    end_workers()  # ended at a stop already, as a rule
    util._exit_function()  # type: ignore[attr-defined]  # its own atexit handler, no other


# ---- in a worker process -------------------------------------------------------------------

_chunker: Chunker | None = None


def _start_worker(chunker: Chunker, options: LoadOptions) -> None:
    global _chunker
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    configure(options)
    _chunker = chunker
    watch = threading.Thread(target=_exit_with, args=(os.getppid(),), daemon=True)
    watch.start()


def _exit_with(parent: int) -> None:
    """Leave once the ingesting process is gone (killed, say): an executor's worker would
    otherwise wait for work forever, holding the terminal's pipes open."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(1)


def _parse_in_worker(path: str) -> Parsed:
    assert _chunker is not None  # set by _start_worker
    return parse(Path(path), _chunker)


# ---- in the ingesting process ----------------------------------------------------------------


class ParsePool:
    """`submit(path)` starts a file's parse and returns what waits for its result."""

    def __init__(self, chunker: Chunker, options: LoadOptions, workers: int):
        self.chunker = chunker
        self.options = options
        self.workers = workers
        self.submitted = 0
        self._pool: ProcessPoolExecutor | None = None
        # Parses in the pool by number, with the pool each runs in. Their results are
        # reached through this table, not held by the items waiting in the prefetch queue:
        # at a stop the pool is then referenced by nothing and its semaphores are freed
        # before the process leaves (which skips multiprocessing's own clean-up,
        # cli._exit_now).
        self._pending: dict[int, tuple[Future[Parsed], ProcessPoolExecutor]] = {}
        self._lock = threading.Lock()

    def submit(self, path: Path) -> Callable[[], Parsed]:
        self.submitted += 1
        pool = self._started() if self.workers > 1 and self.submitted > POOL_AFTER else None
        if pool is None:
            try:
                done = parse(path, self.chunker)
            except Exception as exc:  # raised where the result is taken, as from a worker
                failure = exc

                def fail() -> Parsed:
                    raise failure

                return fail
            return lambda: done
        number = self.submitted
        try:
            future = pool.submit(_parse_in_worker, str(path))
        except BrokenProcessPool:  # a worker died before the parse that would tell
            self._discard(pool)
            pool = self._started()
            future = pool.submit(_parse_in_worker, str(path))
        self._pending[number] = (future, pool)
        return lambda: self._result(number, path)

    def _result(self, number: int, path: Path) -> Parsed:
        future, pool = self._pending.pop(number)
        try:
            return future.result()
        except BrokenProcessPool:
            pass  # a worker died, perhaps on another file: parse this one again
        self._discard(pool)
        retry = self._started()
        try:
            return retry.submit(_parse_in_worker, str(path)).result()
        except BrokenProcessPool:
            self._discard(retry)  # the next file to parse starts a fresh one
            raise LoadError(
                "the process reading it stopped (killed, out of memory or crashed)"
            ) from None

    def _started(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                # spawn, not fork: this process already runs threads (onnxruntime, Chroma).
                self._pool = ProcessPoolExecutor(
                    self.workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_start_worker,
                    initargs=(self.chunker, self.options),
                )
            return self._pool

    def _discard(self, broken: ProcessPoolExecutor) -> None:
        """Stop using `broken`, and end its workers: the next parse starts a fresh pool
        (whichever parse finds it broken first)."""
        with self._lock:
            if self._pool is broken:
                self._pool = None
        workers = _workers_of(broken)
        broken.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.join(timeout=10)

    def close(self, stopping: bool = False) -> None:
        """Let the workers finish and leave; at a stop, end them at once."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is None:
            return
        if stopping:
            pool.shutdown(wait=False, cancel_futures=True)
            end_workers()  # however long the page a worker is reading
        pool.shutdown(wait=True)
        self._pending.clear()
        del pool
        gc.collect()  # the pool's reference cycles, and with them its semaphores


def _workers_of(broken: ProcessPoolExecutor) -> list[BaseProcess]:
    """The worker processes of a broken pool, to end them.

    The executor terminates its workers when it finds one dead, but not a worker it was
    starting at that moment for a parse submitted just before (seen on Python 3.11): that
    one is added after, waits for work forever, and the executor's thread waits for it to
    end, so the ingesting process would never leave. Taking the executor's lock waits for
    such a start to finish; after it, a broken pool starts no worker. (Python has no public
    way to do this before 3.14's terminate_workers.)"""
    with broken._shutdown_lock:
        processes = broken._processes or {}  # None once shut down
        return list(processes.values())
