"""What the ingest's one write path consumes, whatever the documents' origin.

A source (files under some paths, a BEIR corpus) lists its entries and turns each into an
Item to write, or an outcome that needs no write (unchanged, skipped, failed). The Ingestor
does everything else in one place: journal, batching, embedding, Chroma, the BM25 mirror,
the manifest, removals and crash points."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from ragcli.ingest.chunker import Chunk
from ragcli.ingest.reuse import StoredCopy
from ragcli.metadata import Metadata

E = TypeVar("E")


@dataclass
class FileOutcome:
    path: str
    status: str
    reason: str = ""
    chunks: int = 0
    # Skipped or failed as in the last run, the file unchanged since: said once, in summary.
    repeated: bool = False
    # Stored from another path's chunks (a rename, move or copy): nothing was embedded.
    copied_from: str = ""


@dataclass
class Item:
    """One document to (re)write. Its chunk ids derive from `key` and `sha256`, so the
    chunks of another version of the same key are told apart without reading them."""

    key: str  # the manifest key and the chunks' source_file: a path, or e.g. beir:DOC_ID
    sha256: str
    size: int
    mtime_ns: int
    status: str  # "new" or "changed"
    file_type: str
    chunks: list[Chunk]
    pages: int | None = None
    ocr_pages: int = 0  # pages (or images) read by OCR
    notes: list[str] = field(default_factory=list)
    # A large document's chunks, produced as they are read: at most a slice is in memory.
    stream: Callable[[], Iterator[Chunk]] | None = None
    # The same content already stored under another path: its chunks are copied, not
    # chunked and embedded again (`chunks` stays empty).
    copied: StoredCopy | None = None
    # A copied item read, chunked and embedded after all: its copy was found incomplete.
    reread: Callable[[], FileOutcome | Item] | None = None
    # Being parsed (the file, and what waits for its chunks): the source's `finish` fills
    # `chunks` from it before the item is written.
    parsing: tuple[Path, Callable[[], Any]] | None = None
    # Its chunks per language as they are written (the manifest's `languages`).
    languages: Counter[str] = field(default_factory=Counter)
    # Stored with every chunk of the document, copied ones included: a web page's title,
    # a repository file's commit and web address (ragcli/remote/).
    metadata: dict[str, Any] = field(default_factory=dict)
    # A streamed file's document metadata (ragcli/metadata.py), gathered from its chunks
    # as they are written, for the manifest.
    document_metadata: Metadata = field(default_factory=dict)

    def chunk_count(self) -> int:
        return len(self.copied.ids) if self.copied else len(self.chunks)


class Source(Protocol[E]):
    """Where an ingest's documents come from. `prepare` runs in a background thread, ahead
    of the writes, so reading, hashing and chunking overlap with embedding."""

    def entries(self) -> Sequence[E]:
        """What to look at, in order (called after a killed run's journal is repaired)."""
        ...

    def prepare(self, entry: E) -> FileOutcome | Item: ...

    def gone(self) -> list[tuple[str, str]]:
        """(key, reason) of manifest entries this source no longer holds, for a prune."""
        ...
