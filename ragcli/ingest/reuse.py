"""Renames, moves and copies cost no embedding: a file whose content is already stored
under another path takes that path's chunks, embeddings and metadata, and only what
depends on the path (chunk ids, source_file, the manifest row, the BM25 index) is new."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ragcli.store.manifest import FileRecord, Manifest
from ragcli.store.vectors import VectorStore

ChunkIdFn = Callable[[str, str, int], str]  # (path, sha256, index) -> id


@dataclass
class StoredCopy:
    """The stored chunks of one file's content, read from the path that holds them."""

    origin: FileRecord  # the file the chunks were stored for
    texts: list[str]
    vectors: list[Any]
    metadatas: list[dict[str, Any]]


def find_stored_copy(
    store: VectorStore,
    manifest: Manifest,
    collection: str,
    key: str,
    sha256: str,
    file_type: str,
    chunk_id: ChunkIdFn,
) -> StoredCopy | None:
    """The chunks of `sha256` stored under a path other than `key` as the same file type
    (a.md renamed a.txt is chunked anew), if one holds them all: a path whose chunks are
    incomplete, after a damaged store, is passed over."""
    for record in manifest.with_sha256(collection, sha256):
        if record.path == key or record.chunk_count == 0 or record.file_type != file_type:
            continue
        ids = [chunk_id(record.path, sha256, i) for i in range(record.chunk_count)]
        found = store.stored(collection, ids)
        if found is not None:
            return StoredCopy(record, *found)
    return None
