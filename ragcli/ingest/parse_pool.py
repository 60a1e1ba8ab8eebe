"""Files read, parsed (OCR included) and chunked by a pool of worker processes, so that a
fast embedding engine is not starved by one Python process (`ingest.workers`, default: the
machine's cores).

Only the work that holds the GIL moves: `parse` (the loader and the chunker). Deciding
what a file needs (its size and time, its hash, the manifest, a renamed copy) stays in the
prefetch thread, and the writes stay on the caller's thread, in order, so the journal,
Ctrl-C and the progress display see what they saw before. The pool starts at the
POOL_AFTER-th file that needs parsing: a small or incremental ingest never pays for
starting processes. Workers ignore SIGINT (the parent decides what a Ctrl-C means) and are
terminated at a stop, however long the page they were reading."""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragcli.ingest.chunker import Chunk, Chunker
from ragcli.ingest.loaders import LoadOptions, configure, load

POOL_AFTER = 8  # files parsed in the prefetch thread before the pool is started


@dataclass
class Parsed:
    file_type: str
    chunks: list[Chunk]
    pages: int | None = None
    ocr_pages: int = 0
    notes: list[str] = field(default_factory=list)


def parse(path: Path, chunker: Chunker) -> Parsed:
    """A file's chunks, and what its loader says about it (raises LoadError, OSError)."""
    loaded = load(path)
    chunks = chunker.chunk(loaded.sections)
    return Parsed(loaded.file_type, chunks, loaded.pages, loaded.ocr_pages, loaded.notes)


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


# ---- in a worker process -------------------------------------------------------------------

_chunker: Chunker | None = None


def _start_worker(chunker: Chunker, options: LoadOptions) -> None:
    global _chunker
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    configure(options)
    _chunker = chunker


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
        self._pool: Any = None
        # Parses in the pool by number. Their results are reached through this table, not
        # held by the items waiting in the prefetch queue: at a stop the pool is then
        # referenced by nothing and its semaphores are freed before the process leaves
        # (which skips multiprocessing's own clean-up, cli._exit_now).
        self._pending: dict[int, Any] = {}
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
        self._pending[number] = pool.apply_async(_parse_in_worker, (str(path),))
        return lambda: self._pending.pop(number).get()

    def _started(self) -> Any:
        with self._lock:
            if self._pool is None:
                # spawn, not fork: this process already runs threads (onnxruntime, Chroma).
                context = multiprocessing.get_context("spawn")
                self._pool = context.Pool(
                    self.workers,
                    initializer=_start_worker,
                    initargs=(self.chunker, self.options),
                )
            return self._pool

    def close(self, stopping: bool = False) -> None:
        """Let the workers finish and leave; at a stop, end them at once."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is None:
            return
        if stopping:
            pool.terminate()
        else:
            pool.close()
        pool.join()
        self._pending.clear()
        del pool
        gc.collect()  # the pool's reference cycles, and with them its semaphores
