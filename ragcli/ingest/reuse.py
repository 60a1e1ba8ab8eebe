"""Renames, moves and copies cost no embedding: a file whose content is already stored
under another path takes that path's chunks, embeddings and metadata, and only what
depends on the path (chunk ids, source_file, the manifest row, the BM25 index) is new.

A copy is found from the manifest alone while files are read ahead, and the chunks of a
whole batch of copies are read from the store in one call when the batch is written: a
Chroma read per file cost more than the rest of a renamed folder's re-ingest."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ragcli.store.manifest import FileRecord, Manifest
from ragcli.store.vectors import VectorStore

ChunkIdFn = Callable[[str, str, int], str]  # (path, sha256, index) -> id


@dataclass
class StoredCopy:
    """Where a file's content is stored already: the chunks of another path."""

    origin: FileRecord  # the file the chunks were stored for
    ids: list[str]  # the origin's chunk ids, in chunk order


@dataclass
class CopiedChunks:
    """The stored chunks of one StoredCopy, read at write time."""

    texts: list[str]
    vectors: list[Any]
    metadatas: list[dict[str, Any]]


def find_stored_copy(
    manifest: Manifest,
    collection: str,
    key: str,
    sha256: str,
    file_type: str,
    chunk_id: ChunkIdFn,
) -> StoredCopy | None:
    """Another path whose chunks of `sha256` are stored as the same file type (a.md renamed
    a.txt is chunked anew), going by the manifest. Whether the store still holds them all
    is checked when they are read (`read_copies`)."""
    for record in manifest.with_sha256(collection, sha256):
        if record.path == key or record.chunk_count == 0 or record.file_type != file_type:
            continue
        ids = [chunk_id(record.path, sha256, i) for i in range(record.chunk_count)]
        return StoredCopy(record, ids)
    return None


def read_copies(
    store: VectorStore, collection: str, copies: list[StoredCopy]
) -> list[CopiedChunks | None]:
    """The chunks of each copy, read together; None for a copy the store no longer holds
    whole (a damaged store, or chunks replaced earlier in the same run)."""
    wanted = list(dict.fromkeys(chunk_id for copy in copies for chunk_id in copy.ids))
    found = store.chunks_by_id(collection, wanted)
    read: list[CopiedChunks | None] = []
    for copy in copies:
        if not all(chunk_id in found for chunk_id in copy.ids):
            read.append(None)
            continue
        rows = [found[chunk_id] for chunk_id in copy.ids]
        read.append(
            CopiedChunks(
                [text for text, _, _ in rows],
                [vector for _, vector, _ in rows],
                [dict(meta) for _, _, meta in rows],
            )
        )
    return read
