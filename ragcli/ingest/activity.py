"""What an ingest is doing now, for a progress display that keeps moving: files done of
the total, chunks embedded (counted per embedding batch, so they move inside one large
file too), the file being read, and a rate and an ETA by bytes. The runner updates it;
a display reads it whenever it redraws."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Activity:
    embedder: Any = None  # its `embedded` counter: texts embedded by this process
    files_done: int = 0  # stored, or found unchanged, skipped or failed
    files_total: int = 0
    bytes_total: int = 0  # of every file to look at
    bytes_read: int = 0  # of files read and chunked (ahead of the embedding)
    chunks_read: int = 0
    current: str = ""  # the file being read or embedded
    started: float = field(default_factory=time.perf_counter)
    _embedded_at_start: int = 0
    _sizes: list[int] = field(default_factory=list)  # of each entry, in order

    def begin(self, entries: Sequence[Any]) -> None:
        self.files_total, self.files_done = len(entries), 0
        follow = getattr(entries, "follow", None)
        if follow is not None:  # a crawl: found as it goes, its total grows with it
            follow(self)
        self._sizes = [] if follow else [_size(entry) for entry in entries]
        self.bytes_total = sum(self._sizes)
        self.bytes_read = self.chunks_read = 0
        self.started = time.perf_counter()
        self._embedded_at_start = self._embedded()

    def settled(self, position: int) -> None:
        """Entry `position` needs no embedding (unchanged, skipped, failed): its bytes leave
        the total the ETA extrapolates to, or a re-ingest with one file changed among
        thousands would promise hours."""
        if 0 <= position < len(self._sizes):
            self.bytes_total -= self._sizes[position]
            self._sizes[position] = 0

    def read(self, size: int, chunks: int, path: str) -> None:
        """A file read and chunked: its chunks are still to embed."""
        self.bytes_read += size
        self.chunks_read += chunks
        self.current = path

    def finished(self, files: int = 1) -> None:
        self.files_done += files

    def _embedded(self) -> int:
        return int(getattr(self.embedder, "embedded", 0) or 0)

    @property
    def chunks(self) -> int:
        """Chunks embedded by this run so far."""
        return self._embedded() - self._embedded_at_start

    @property
    def elapsed(self) -> float:
        return max(time.perf_counter() - self.started, 1e-6)

    def rate(self) -> float:
        return self.chunks / self.elapsed

    def eta(self) -> float | None:
        """Seconds left: the chunks still to embed (those of the files read so far, and
        as many per byte for the rest) at the rate so far. None until there is a pace."""
        rate = self.rate()
        if not rate or not self.chunks_read or not self.bytes_read:
            return None
        expected = self.chunks_read * max(self.bytes_total, self.bytes_read) / self.bytes_read
        return max(expected - self.chunks, 0.0) / rate


def _size(entry: Any) -> int:
    """A file's size; other entries (a BEIR document) count for nothing."""
    if isinstance(entry, str | os.PathLike):
        try:
            return os.stat(entry).st_size
        except OSError:
            return 0
    return 0
