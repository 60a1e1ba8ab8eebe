"""A batch embedded a window of whole files at a time, so that a stop keeps what is
embedded already instead of dropping the batch.

A batch (runner.FLUSH_CHUNKS chunks) is written in one go, which keeps writes few, but
embedding it takes 30–60 s on a laptop CPU. The embedder sorts what it is given by
length, so each file's short last chunk comes near the end, and no file of a batch would
be embedded before all of it is. Embedded a window of whole files at a time, each window
sized to about WINDOW_SECONDS of embedding at the pace so far, the files of every
finished window are known: at a stop the runner writes them, and the stop loses at most
the window in progress. (A remote embedder, with a window per request, fits the same.)

The price: a smaller window pads its embedding sub-batches a little more (the figures:
docs/reliability.md). A fast machine gets windows up to the whole batch."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragcli.ingest.cancel import StopRequested
from ragcli.ingest.items import Item

WINDOW_SECONDS = 3.0  # embedding a stop may lose: under the ~5 s asked, if the pace dips
MIN_WINDOW = 32  # chunks: one embedding sub-batch; also the first window, before a pace


class Pace:
    """Texts embedded per second in the last window, which sizes the next."""

    def __init__(self) -> None:
        self.rate: float | None = None

    def window(self) -> int:
        """Chunks: more than a batch holds makes the batch one window."""
        if self.rate is None:
            return MIN_WINDOW
        return max(int(self.rate * WINDOW_SECONDS), MIN_WINDOW)

    def record(self, texts: int, seconds: float) -> None:
        self.rate = texts / max(seconds, 1e-3)


@dataclass
class Window:
    items: list[Item]
    vectors: list[Any]  # one per chunk of the items, in order


def embed_texts(item: Item) -> list[str]:
    # A QnA pair is embedded by its question only (`embed_text`).
    return [getattr(chunk, "embed_text", "") or chunk.text for chunk in item.chunks]


class WindowedBatch:
    """One batch's items; `embed` runs in the embedding thread, `finished` is read by the
    writing thread at a stop."""

    def __init__(self, items: list[Item]) -> None:
        self.items = items
        # Appended to by the embedding thread, one window at a time; a list append is
        # atomic, so a reader sees whole windows only.
        self.done: list[Window] = []

    def embed(
        self, embed: Callable[[list[str]], Any], pace: Pace, stopped: Callable[[], bool]
    ) -> Any:
        """The vectors of every chunk of the batch, in order. A stop ends it between
        windows (StopRequested): the windows done are kept by whoever reads `finished`."""
        known: dict[str, Any] = {}  # identical texts (licence headers) embedded once a batch
        for items in self._windows(pace):
            if stopped():
                raise StopRequested
            texts = [text for item in items for text in embed_texts(item)]
            new = [text for text in dict.fromkeys(texts) if text not in known]
            if new:
                started = time.perf_counter()
                known.update(zip(new, embed(new), strict=True))
                pace.record(len(new), time.perf_counter() - started)
            self.done.append(Window(items, [known[text] for text in texts]))
        return _stacked([vector for window in self.done for vector in window.vectors])

    def _windows(self, pace: Pace) -> Iterator[list[Item]]:
        """Runs of whole items of at least `pace.window()` chunks, sized as each begins."""
        window: list[Item] = []
        chunks = 0
        for item in self.items:
            window.append(item)
            chunks += len(item.chunks)  # a copy has none: it costs no embedding
            if chunks >= pace.window():
                yield window
                window, chunks = [], 0
        if window:
            yield window


def finished(batches: Sequence[WindowedBatch]) -> tuple[list[Item], Any]:
    """The items of `batches` (sent in this order, none written) whose chunks are all
    embedded, and their vectors: the windows done, up to the first batch not done."""
    items: list[Item] = []
    vectors: list[Any] = []
    for batch in batches:
        windows = list(batch.done)  # a snapshot: the embedding thread may be adding one
        kept = [item for window in windows for item in window.items]
        items += kept
        vectors += [vector for window in windows for vector in window.vectors]
        if len(kept) < len(batch.items):
            break  # the batches after it have not begun
    return items, _stacked(vectors)


def _stacked(vectors: list[Any]) -> Any:
    return np.stack(vectors) if vectors else []
