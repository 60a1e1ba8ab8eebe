"""The ingest run: find files, skip what is unchanged, chunk and embed the rest, and
replace each changed file's chunks without leaving duplicates or orphans."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ragcli.errors import RagcliError
from ragcli.ingest.chunker import Chunk, Chunker
from ragcli.ingest.loaders import LoadError, file_type_of, load
from ragcli.ingest.prefetch import prefetch
from ragcli.ingest.walker import walk
from ragcli.store.embedder import Embedder
from ragcli.store.manifest import FileRecord, Manifest
from ragcli.store.vectors import VectorStore

STATUSES = ("new", "changed", "unchanged", "skipped", "failed", "removed")
# Chunks embedded together. The embedder sorts them by length into batches, so a larger pool
# pads less: on SciFact, 8.5 % padding overhead at 256 chunks, 3.5 % at 1024.
FLUSH_CHUNKS = 1024


@dataclass
class FileOutcome:
    path: str
    status: str
    reason: str = ""
    chunks: int = 0


@dataclass
class IngestReport:
    collection: str
    files: list[FileOutcome] = field(default_factory=list)
    chunks_added: int = 0
    chunks_removed: int = 0
    seconds: float = 0.0

    def count(self, status: str) -> int:
        return sum(1 for f in self.files if f.status == status)

    def to_dict(self) -> dict[str, Any]:
        return {
            "collection": self.collection,
            **{f"files_{s}": self.count(s) for s in STATUSES},
            "chunks_added": self.chunks_added,
            "chunks_removed": self.chunks_removed,
            "seconds": round(self.seconds, 2),
            "files": [asdict(f) for f in self.files if f.status != "unchanged"],
        }


@dataclass
class _Pending:
    path: Path
    key: str
    sha256: str
    stat: Any
    status: str
    file_type: str
    pages: int | None
    chunks: list[Chunk]
    notes: list[str]


ProgressFn = Callable[[int, int, int], None]  # files done, files total, chunks embedded


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def chunk_id(key: str, sha256: str, index: int) -> str:
    return hashlib.sha256(f"{key}\0{sha256}\0{index}".encode()).hexdigest()[:32]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Ingestor:
    def __init__(
        self,
        store: VectorStore,
        manifest: Manifest,
        embedder: Embedder,
        chunker: Chunker,
    ):
        self.store = store
        self.manifest = manifest
        self.embedder = embedder
        self.chunker = chunker

    def run(
        self,
        paths: list[Path],
        collection: str,
        prune: bool = False,
        progress: ProgressFn | None = None,
    ) -> IngestReport:
        started = time.perf_counter()
        for path in paths:
            if not path.exists() and not path.is_symlink():
                raise RagcliError(f"{path}: no such file or directory")
        report = IngestReport(collection)
        files = self._discover(paths)
        pending: list[_Pending] = []
        pending_chunks = 0
        embedded = 0
        # Files are read, hashed and chunked in a thread ahead of the embedding here.
        prepared = prefetch(files, lambda path: self._prepare(path, collection))
        for done, outcome_or_pending in enumerate(prepared, start=1):
            if isinstance(outcome_or_pending, FileOutcome):
                report.files.append(outcome_or_pending)
            else:
                pending.append(outcome_or_pending)
                pending_chunks += len(outcome_or_pending.chunks)
            if pending_chunks >= FLUSH_CHUNKS:
                embedded += self._flush(pending, collection, report)
                pending, pending_chunks = [], 0
            if progress:
                progress(done, len(files), embedded)
        embedded += self._flush(pending, collection, report)
        if progress:
            progress(len(files), len(files), embedded)
        if prune:
            self._prune(paths, collection, report)
        report.seconds = time.perf_counter() - started
        return report

    def _discover(self, paths: list[Path]) -> list[Path]:
        seen: set[Path] = set()
        found = []
        for root in paths:
            for path in walk(root):
                resolved = path.resolve()
                if resolved not in seen:
                    seen.add(resolved)
                    found.append(path)
        return found

    def _prepare(self, path: Path, collection: str) -> FileOutcome | _Pending:
        key = str(path.resolve())
        file_type = file_type_of(path)
        if file_type is None:
            return FileOutcome(key, "skipped", f"unsupported file type {path.suffix or '(none)'}")
        try:
            stat = path.stat()
            if not path.is_file():
                return FileOutcome(key, "skipped", "not a regular file")
            known = self.manifest.get(collection, key)
            if known and known.size == stat.st_size and known.mtime_ns == stat.st_mtime_ns:
                return FileOutcome(key, "unchanged", chunks=known.chunk_count)
            sha = sha256_of(path)
            if known and known.sha256 == sha:
                known.mtime_ns = stat.st_mtime_ns  # touched, not changed: remember the new time
                self.manifest.put(known)
                return FileOutcome(key, "unchanged", chunks=known.chunk_count)
            loaded = load(path)
        except LoadError as exc:
            return FileOutcome(key, "failed", str(exc))
        except PermissionError:
            return FileOutcome(key, "failed", "permission denied")
        except OSError as exc:
            return FileOutcome(key, "failed", exc.strerror or str(exc))
        chunks = self.chunker.chunk(loaded.sections)
        status = "changed" if known else "new"
        return _Pending(
            path, key, sha, stat, status, loaded.file_type, loaded.pages, chunks, loaded.notes
        )

    def _flush(self, pending: list[_Pending], collection: str, report: IngestReport) -> int:
        texts = [chunk.text for item in pending for chunk in item.chunks]
        if not pending:
            return 0
        vectors = self.embedder.embed(texts) if texts else []
        offset = 0
        # One Chroma upsert and one manifest transaction per flush, chunks before manifest.
        with self.manifest.batch(), self.store.batch():
            for item in pending:
                count = len(item.chunks)
                item_vectors = vectors[offset : offset + count]
                offset += count
                self._store_file(item, item_vectors, collection, report)
        return len(texts)

    def _store_file(self, item: _Pending, vectors, collection: str, report: IngestReport) -> None:
        now = _now()
        ids = [chunk_id(item.key, item.sha256, i) for i in range(len(item.chunks))]
        metadatas = [
            {
                "chunk_id": ids[i],
                "source_file": item.key,
                "file_type": item.file_type,
                "chunk_index": i,
                "total_chunks": len(item.chunks),
                "chunk_method": chunk.method,
                "token_count": chunk.token_count,
                "char_count": len(chunk.text),
                "content_preview": chunk.text[:100],
                "page": chunk.page,
                "heading": chunk.heading,
                "file_sha256": item.sha256,
                "created_at": now,
                "processed_at": now,
            }
            for i, chunk in enumerate(item.chunks)
        ]
        if ids:
            self.store.upsert(collection, ids, [c.text for c in item.chunks], vectors, metadatas)
        # Whatever this file left behind under other contents (earlier versions, or a run
        # killed half-way) goes now, so no orphan outlives a successful ingest.
        stale = self.store.ids_where(
            collection,
            {"$and": [{"source_file": item.key}, {"file_sha256": {"$ne": item.sha256}}]},
        )
        self.store.delete(collection, ids=stale)
        self.manifest.put(
            FileRecord(
                collection,
                item.key,
                item.sha256,
                item.stat.st_size,
                item.stat.st_mtime_ns,
                item.file_type,
                len(ids),
                item.pages,
                now,
            )
        )
        report.chunks_added += len(ids)
        report.chunks_removed += len(stale)
        reason = "; ".join(item.notes)
        report.files.append(FileOutcome(item.key, item.status, reason, len(ids)))

    def _prune(self, paths: list[Path], collection: str, report: IngestReport) -> None:
        roots = [str(p.resolve()) for p in paths]
        for record in self.manifest.files(collection):
            under = any(
                record.path == r or record.path.startswith(r.rstrip("/") + "/") for r in roots
            )
            if under and not Path(record.path).exists():
                report.chunks_removed += self.remove_file(collection, record.path)
                report.files.append(FileOutcome(record.path, "removed", "file no longer exists"))

    def remove_file(self, collection: str, key: str) -> int:
        stale = self.store.ids_where(collection, {"source_file": key})
        self.store.delete(collection, ids=stale)
        self.manifest.remove(collection, key)
        return len(stale)
