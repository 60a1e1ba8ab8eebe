"""Repairs what a killed ingest left behind, before the next ingest does anything else.

Each file's chunks are written under the ingest journal (see Manifest.begin): a journal row
left over means the run died somewhere between the first chunk written for that file and
the moment every index was durable. For each such file the store is put back to a state an
uninterrupted run could have produced:

- the file's committed version (its manifest row) is still complete in the store: only the
  chunks of the half-written version go, and the file keeps its committed chunks;
- otherwise (a new file, a half-deleted old version, or a version committed to the manifest
  while another index may still lag): every chunk of the file goes and so does its manifest
  row, so the same run re-ingests it from scratch if it still exists.

Chunk ids come from the vector store, which is always written first; every other index
deletes the same ids through `delete_chunks`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ragcli.store.manifest import Manifest
from ragcli.store.vectors import VectorStore

DeleteChunks = Callable[[str, list[str]], None]  # (collection, ids)
ChunkIdFn = Callable[[str, str, int], str]  # (path, sha256, index) -> id


@dataclass
class Repair:
    path: str
    action: str  # "rolled back" (committed version kept) | "reset" (file re-ingested)
    chunks_removed: int


def recover(
    store: VectorStore,
    manifest: Manifest,
    collection: str,
    delete_chunks: DeleteChunks,
    chunk_id: ChunkIdFn,
) -> list[Repair]:
    repairs = []
    for path, journal_sha in manifest.journaled(collection):
        present = set(store.ids_where(collection, {"source_file": path}))
        record = manifest.get(collection, path)
        expected = (
            {chunk_id(path, record.sha256, i) for i in range(record.chunk_count)}
            if record
            else set()
        )
        keep_committed = record is not None and record.sha256 != journal_sha and expected <= present
        if keep_committed:
            doomed = sorted(present - expected)
            action = "rolled back"
        else:
            doomed = sorted(present)
            action = "reset"
        delete_chunks(collection, doomed)
        if not keep_committed and record is not None:
            manifest.remove(collection, path)
        manifest.settle(collection, [path])
        repairs.append(Repair(path, action, len(doomed)))
    return repairs
