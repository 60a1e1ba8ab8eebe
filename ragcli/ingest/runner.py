"""The ingest run: find files, skip what is unchanged, chunk and embed the rest, and
replace each changed file's chunks without leaving duplicates or orphans.

Crash safety: one run at a time per store (StoreLock); files are journaled before their
chunks are written and the journal is cleared at each checkpoint; a run starts by
repairing what a killed run left journaled (recovery.py). Crash points (crashpoints.py)
let tests kill the process between any two writes."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ragcli.errors import RagcliError
from ragcli.ingest.chunker import Chunk, Chunker
from ragcli.ingest.crashpoints import crash_point
from ragcli.ingest.loaders import LoadError, file_type_of, iter_sections, load
from ragcli.ingest.prefetch import prefetch
from ragcli.ingest.qna import NotQnaFile, qna_chunks, qna_format
from ragcli.ingest.recovery import recover
from ragcli.ingest.textstream import scan_text
from ragcli.ingest.walker import walk
from ragcli.store.embedder import Embedder
from ragcli.store.lexical_sync import LexicalIndexes
from ragcli.store.lock import StoreLock
from ragcli.store.manifest import FileRecord, Manifest
from ragcli.store.vectors import VectorStore

STATUSES = ("new", "changed", "unchanged", "skipped", "failed", "removed")
# Chunks embedded together. The embedder sorts them by length into batches, so a larger pool
# pads less: on SciFact, 8.5 % padding overhead at 256 chunks, 3.5 % at 1024.
FLUSH_CHUNKS = 1024
# Text and Markdown files above this size are streamed: read, chunked, embedded and stored
# in pieces, so memory stays bounded whatever the file's size.
STREAM_BYTES = 8 << 20


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
    # Files a killed earlier ingest left half-written, and what was done about them.
    recovered: list[dict[str, Any]] = field(default_factory=list)

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
            "recovered": self.recovered,
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
    # A large file's chunks, produced as they are read (see _store_streamed).
    stream: Callable[[], Iterator[Chunk]] | None = None


ProgressFn = Callable[[int, int, int], None]  # files done, files total, chunks embedded


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def chunk_id(key: str, sha256: str, index: int) -> str:
    return hashlib.sha256(f"{key}\0{sha256}\0{index}".encode()).hexdigest()[:32]


def _resolved(path: Path) -> Path:
    """The absolute path without symlinks; a symlink loop stays as it is (and fails later
    with a one-line reason)."""
    try:
        return path.resolve()
    except (RuntimeError, OSError):  # Python 3.11 raises RuntimeError on a loop
        return path.absolute()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Ingestor:
    def __init__(
        self,
        store: VectorStore,
        manifest: Manifest,
        embedder: Embedder,
        chunker: Chunker,
        qna_collection: str | None = None,
        lock: StoreLock | None = None,
        claim: Callable[[str], None] | None = None,
        lexical: LexicalIndexes | None = None,
    ):
        self.store = store
        self.manifest = manifest
        self.embedder = embedder
        self.chunker = chunker
        self.qna_collection = qna_collection  # Markdown ingested here is read as Q:/A: pairs
        self.lock = lock
        self.claim = claim  # a shared server: checks this store may ingest the collection
        self.lexical = lexical  # the BM25 indexes, mirrored chunk for chunk

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
        if self.lock is None:
            return self._run(paths, collection, prune, progress, started)
        with self.lock:
            return self._run(paths, collection, prune, progress, started)

    def _run(
        self,
        paths: list[Path],
        collection: str,
        prune: bool,
        progress: ProgressFn | None,
        started: float,
    ) -> IngestReport:
        report = IngestReport(collection)
        if self.claim is not None:
            self.claim(collection)
        for repair in recover(
            self.store, self.manifest, collection, self._delete_chunks, chunk_id
        ):
            report.recovered.append(asdict(repair))
            report.chunks_removed += repair.chunks_removed
        if self.lexical:  # catch up on whatever a killed run stored but never indexed
            self.lexical.reconcile(collection, self.store, save=False)
        files = self._discover(paths)
        pending: list[_Pending] = []
        pending_chunks = 0
        embedded = 0
        # Files are read, hashed and chunked in a thread ahead of the embedding here, and
        # each batch is embedded in another while the next one is gathered (batches).
        prepared = prefetch(files, lambda path: self._prepare(path, collection))
        with _Batches(self, collection, report) as batches:
            for done, outcome_or_pending in enumerate(prepared, start=1):
                if isinstance(outcome_or_pending, FileOutcome):
                    report.files.append(outcome_or_pending)
                elif outcome_or_pending.stream is not None:
                    embedded += batches.send(pending) + batches.send([])
                    pending, pending_chunks = [], 0
                    embedded += self._store_streamed(outcome_or_pending, collection, report)
                else:
                    pending.append(outcome_or_pending)
                    pending_chunks += len(outcome_or_pending.chunks)
                if pending_chunks >= FLUSH_CHUNKS:
                    embedded += batches.send(pending)
                    pending, pending_chunks = [], 0
                if progress:
                    progress(done, len(files), embedded)
            embedded += batches.send(pending) + batches.send([])
        if progress:
            progress(len(files), len(files), embedded)
        if prune:
            self._prune(paths, collection, report)
            self._checkpoint(collection)
        # The BM25 index is derived from Chroma (reconciled at the start of every run), so
        # one save per run is enough: a kill before it costs a catch-up, not data.
        if self.lexical:
            self.lexical.save(collection)
        report.seconds = time.perf_counter() - started
        return report

    def _discover(self, paths: list[Path]) -> list[Path]:
        seen: set[Path] = set()
        found = []
        for root in paths:
            for path in walk(root):
                resolved = _resolved(path)
                if resolved not in seen:
                    seen.add(resolved)
                    found.append(path)
        return found

    def _prepare(self, path: Path, collection: str) -> FileOutcome | _Pending:
        key = str(_resolved(path))
        if path.is_dir() and not path.is_symlink():
            return FileOutcome(key, "failed", "cannot read this folder (permission denied)")
        qna = qna_format(path, collection, self.qna_collection)
        file_type = "qna" if qna else file_type_of(path)
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
            status = "changed" if known else "new"
            if qna:
                strict = collection == self.qna_collection
                try:
                    pairs, notes = qna_chunks(path, qna, self.chunker.counter, strict)
                except NotQnaFile as exc:
                    return FileOutcome(key, "skipped", str(exc))
                return _Pending(path, key, sha, stat, status, "qna", None, pairs, notes)
            if file_type in ("txt", "md") and stat.st_size > STREAM_BYTES:
                encoding, notes = scan_text(path)

                def stream() -> Iterator[Chunk]:
                    return self.chunker.iter_chunks(iter_sections(path, file_type, encoding))

                return _Pending(path, key, sha, stat, status, file_type, None, [], notes, stream)
            loaded = load(path)
        except LoadError as exc:
            return FileOutcome(key, "failed", str(exc))
        except PermissionError:
            return FileOutcome(key, "failed", "permission denied")
        except OSError as exc:
            # A broken or looping symlink is named by the link, not by where it points.
            shown = str(path.absolute()) if path.is_symlink() else key
            return FileOutcome(shown, "failed", exc.strerror or str(exc))
        chunks = self.chunker.chunk(loaded.sections)
        return _Pending(
            path, key, sha, stat, status, loaded.file_type, loaded.pages, chunks, loaded.notes
        )

    def _embed(self, pending: list[_Pending]) -> Any:
        # A QnA pair is embedded by its question only (`embed_text`).
        texts = [
            getattr(chunk, "embed_text", "") or chunk.text
            for item in pending
            for chunk in item.chunks
        ]
        return self.embedder.embed(texts) if texts else []

    def _store_batch(
        self, pending: list[_Pending], vectors: Any, collection: str, report: IngestReport
    ) -> int:
        """Journal, write and record an embedded batch; returns the chunks written."""
        if not pending:
            return 0
        # One journal transaction for the whole batch: a commit per file would cost a sync each.
        self.manifest.begin_many(collection, [(item.key, item.sha256) for item in pending])
        crash_point("after_journal")
        # All the batch's chunks in one upsert: a Chroma call costs ~14 ms whatever its size.
        ids: list[str] = []
        chunk_texts: list[str] = []
        metadatas: list[dict] = []
        for item in pending:
            item_ids, item_metadatas = self._chunk_records(item, item.chunks, 0, len(item.chunks))
            ids += item_ids
            chunk_texts += [c.text for c in item.chunks]
            metadatas += item_metadatas
        self._upsert(collection, ids, chunk_texts, vectors, metadatas)
        for item in pending:
            crash_point("after_upsert")
            self._finish_file(item, len(item.chunks), collection, report)
        self._checkpoint(collection)
        return len(ids)

    def _store_streamed(self, item: _Pending, collection: str, report: IngestReport) -> int:
        """A large file in slices of FLUSH_CHUNKS chunks: at most one slice is in memory."""
        assert item.stream is not None
        self.manifest.begin(collection, item.key, item.sha256)
        batch: list[Chunk] = []
        start = 0
        # The chunk count is known only at the end: total_chunks is filled in then.
        for chunk in item.stream():
            batch.append(chunk)
            if len(batch) == FLUSH_CHUNKS:
                vectors = self.embedder.embed([c.text for c in batch])
                self._write_chunks(item, batch, vectors, start, 0, collection)
                start += len(batch)
                batch = []
        if batch:
            vectors = self.embedder.embed([c.text for c in batch])
            self._write_chunks(item, batch, vectors, start, 0, collection)
            start += len(batch)
        if start == 0:
            self.manifest.settle(collection, [item.key])
            report.files.append(FileOutcome(item.key, "failed", "no text found"))
            return 0
        ids = [chunk_id(item.key, item.sha256, i) for i in range(start)]
        self.store.update_metadata(collection, ids, {"total_chunks": start})
        self._finish_file(item, start, collection, report)
        self._checkpoint(collection)
        return start

    def _write_chunks(
        self,
        item: _Pending,
        chunks: list[Chunk],
        vectors,
        start: int,
        total: int,
        collection: str,
    ) -> None:
        """Chunks `start`.. of a file whose version has `total` chunks."""
        ids, metadatas = self._chunk_records(item, chunks, start, total)
        self._upsert(collection, ids, [c.text for c in chunks], vectors, metadatas)
        if ids:
            crash_point("after_upsert")

    def _upsert(self, collection: str, ids: list[str], texts: list[str], vectors, metadatas):
        if ids:
            self.store.upsert(collection, ids, texts, vectors, metadatas)
            if self.lexical:
                self.lexical.upsert(collection, ids, texts)

    def _chunk_records(
        self, item: _Pending, chunks: list[Chunk], start: int, total: int
    ) -> tuple[list[str], list[dict]]:
        """Ids and metadata of chunks `start`.. of a file whose version has `total` chunks."""
        now = _now()
        ids = [chunk_id(item.key, item.sha256, start + i) for i in range(len(chunks))]
        metadatas = [
            {
                "chunk_id": ids[i],
                "source_file": item.key,
                "file_type": item.file_type,
                "chunk_index": start + i,
                "total_chunks": total,
                "chunk_method": chunk.method,
                "token_count": chunk.token_count,
                "char_count": len(chunk.text),
                "content_preview": chunk.text[:100],
                "page": chunk.page,
                "heading": chunk.heading,
                "file_sha256": item.sha256,
                "created_at": now,
                "processed_at": now,
                **getattr(chunk, "extra", {}),
            }
            for i, chunk in enumerate(chunks)
        ]
        return ids, metadatas

    def _finish_file(
        self, item: _Pending, count: int, collection: str, report: IngestReport
    ) -> None:
        # Whatever this file left behind under other contents (earlier versions, or a run
        # killed half-way) goes now, so no orphan outlives a successful ingest. A new file
        # has nothing behind it: a killed run's chunks were journaled and recovered before
        # this run began, so the lookup (a metadata scan per file) is skipped.
        stale = []
        if item.status != "new":
            stale = self.store.ids_where(
                collection,
                {"$and": [{"source_file": item.key}, {"file_sha256": {"$ne": item.sha256}}]},
            )
        self._delete_chunks(collection, stale)
        crash_point("after_stale_delete")
        self.manifest.put(
            FileRecord(
                collection,
                item.key,
                item.sha256,
                item.stat.st_size,
                item.stat.st_mtime_ns,
                item.file_type,
                count,
                item.pages,
                _now(),
            )
        )
        crash_point("after_manifest")
        report.chunks_added += count
        report.chunks_removed += len(stale)
        reason = "; ".join(item.notes)
        report.files.append(FileOutcome(item.key, item.status, reason, count))

    def _delete_chunks(self, collection: str, ids: list[str]) -> None:
        """The one place chunks leave the store: every index of chunks deletes them here."""
        self.store.delete(collection, ids=ids)
        if self.lexical:
            self.lexical.delete(collection, ids)

    def _checkpoint(self, collection: str) -> None:
        """Every index of chunks is durable: the journal of the files written so far is
        cleared. (An index that buffers writes, like a BM25 index, must save here first.)"""
        crash_point("before_checkpoint")
        self.manifest.settle(collection)

    def _prune(self, paths: list[Path], collection: str, report: IngestReport) -> None:
        roots = [str(p.resolve()) for p in paths]
        for record in self.manifest.files(collection):
            under = any(
                record.path == r or record.path.startswith(r.rstrip("/") + "/") for r in roots
            )
            if under and not Path(record.path).exists():
                report.chunks_removed += self.remove_file(
                    collection, record.path, checkpoint=False
                )
                report.files.append(FileOutcome(record.path, "removed", "file no longer exists"))

    def remove_file(self, collection: str, key: str, checkpoint: bool = True) -> int:
        self.manifest.begin(collection, key, "")
        stale = self.store.ids_where(collection, {"source_file": key})
        self._delete_chunks(collection, stale)
        crash_point("after_remove_chunks")
        self.manifest.remove(collection, key)
        if checkpoint:
            self._checkpoint(collection)
        return len(stale)


class _Batches:
    """Embeds one batch in a background thread while the caller gathers the next, so
    reading and chunking never leave the embedder idle. Batches are still written one at
    a time, in order, on the caller's thread: the journal, crash points and manifest see
    the same sequence as without the overlap, and at most two batches are in memory."""

    def __init__(self, ingestor: Ingestor, collection: str, report: IngestReport):
        self.ingestor = ingestor
        self.collection = collection
        self.report = report
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragcli-embed")
        self.in_flight: tuple[list[_Pending], Future] | None = None

    def send(self, batch: list[_Pending]) -> int:
        """Start embedding `batch` (none when empty), then write the batch sent before it;
        returns the chunks written."""
        previous = self.in_flight
        self.in_flight = (batch, self.pool.submit(self.ingestor._embed, batch)) if batch else None
        if previous is None:
            return 0
        items, vectors = previous
        return self.ingestor._store_batch(items, vectors.result(), self.collection, self.report)

    def __enter__(self) -> _Batches:
        return self

    def __exit__(self, *exc: object) -> None:
        # On an error the batch still embedding is dropped unwritten, as an unflushed
        # batch always was: its files are not in the manifest, so the next run redoes them.
        self.pool.shutdown(wait=True, cancel_futures=True)

