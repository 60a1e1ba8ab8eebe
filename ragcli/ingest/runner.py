"""The ingest: documents from any source (files under some paths, a BEIR corpus for
`ragcli eval`) are journaled, chunked, embedded, and written through the store's writer
(writer.py) into every index of chunks and the manifest.

Crash safety: one run at a time per store (the writer's StoreLock); documents are
journaled before their chunks are written and the journal is cleared at each checkpoint;
a run starts by repairing what a killed run left journaled (recovery.py). Crash points
(crashpoints.py) let tests kill the process between any two writes."""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ragcli.bm25.sync import LexicalIndexes
from ragcli.embedding import identity as embedding_identity
from ragcli.embedding.embedder import Embedder
from ragcli.errors import BackendError, RagcliError
from ragcli.ingest import loaders
from ragcli.ingest.activity import Activity
from ragcli.ingest.cancel import IngestInterrupted, StopFlag, StopRequested
from ragcli.ingest.chunker import Chunk, Chunker
from ragcli.ingest.crashpoints import crash_point
from ragcli.ingest.files import FileSource
from ragcli.ingest.items import FileOutcome, Item, Source
from ragcli.ingest.loaders import reading_of
from ragcli.ingest.parse_pool import ParsePool
from ragcli.ingest.prefetch import Batches, prefetch
from ragcli.ingest.recovery import recover
from ragcli.ingest.reuse import CopiedChunks, find_stored_copy, read_copies
from ragcli.ingest.windows import Pace, WindowedBatch, embed_texts, finished
from ragcli.ingest.writer import StoreWriter
from ragcli.metadata import Metadata, chroma_fields, union
from ragcli.store.manifest import FileRecord, Manifest
from ragcli.store.vectors import VectorStore

__all__ = ["FLUSH_CHUNKS", "STATUSES", "FileOutcome", "IngestReport", "Ingestor", "chunk_id"]

STATUSES = ("new", "changed", "unchanged", "skipped", "failed", "removed")
# Chunks embedded together. The embedder sorts them by length into batches, so a larger pool
# pads less: on SciFact, 8.5 % padding overhead at 256 chunks, 3.5 % at 1024.
FLUSH_CHUNKS = 1024
# The first batch is sent after this many chunks and each next one is twice the last, up
# to FLUSH_CHUNKS: embedding starts while the rest is still read, and a small corpus is not
# one batch embedded only after every file is read and written only after all of it.
FIRST_FLUSH_CHUNKS = 64
# Text and Markdown files above this size are streamed: read, chunked, embedded and stored
# in pieces, so memory stays bounded whatever the file's size.
STREAM_BYTES = 8 << 20
STREAM_BYTES_PER_CHUNK = 1000  # a guess for a streamed file's chunks, for the ETA only


@dataclass
class IngestReport:
    collection: str
    files: list[FileOutcome] = field(default_factory=list)
    chunks_added: int = 0
    chunks_removed: int = 0
    seconds: float = 0.0
    # Files a killed earlier ingest left half-written, and what was done about them.
    recovered: list[dict[str, Any]] = field(default_factory=list)
    # What the ingest was asked to read (the paths given), for messages about them.
    roots: list[str] = field(default_factory=list)
    # Ingested files that no longer exist, left in place because --prune was not given.
    gone: list[str] = field(default_factory=list)
    # Chunks copied from another path holding the same content: stored, not embedded.
    chunks_reused: int = 0
    # Files renamed or moved: {"from", "to", "chunks"}; the old path left the store.
    moved: list[dict[str, Any]] = field(default_factory=list)
    # Stopped by Ctrl-C or SIGTERM: the entries not stored, which the next run stores.
    interrupted: bool = False
    files_left: int = 0
    # Pages and images whose text came from OCR, over every file this run stored.
    ocr_pages: int = 0
    # Each remote root's crawl or fetch: requests, not modified, notes (ragcli/remote/).
    remote: list[dict[str, Any]] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for f in self.files if f.status == status)

    def new_failures(self) -> int:
        """Failures this run found for the first time: what the exit code reflects."""
        return sum(1 for f in self.files if f.status == "failed" and not f.repeated)

    def to_dict(self) -> dict[str, Any]:
        return {
            "collection": self.collection,
            **{f"files_{s}": self.count(s) for s in STATUSES},
            "files_repeated": sum(1 for f in self.files if f.repeated),
            "chunks_added": self.chunks_added,
            "chunks_removed": self.chunks_removed,
            "chunks_reused": self.chunks_reused,
            "ocr_pages": self.ocr_pages,
            "seconds": round(self.seconds, 2),
            "files": [asdict(f) for f in self.files if f.status != "unchanged"],
            "recovered": self.recovered,
            "roots": self.roots,
            "gone": self.gone,
            "moved": self.moved,
            **({"remote": self.remote} if self.remote else {}),
            **({"interrupted": True, "files_left": self.files_left} if self.interrupted else {}),
        }

    def stored(self) -> int:
        """Files this run wrote (new or changed)."""
        return self.count("new") + self.count("changed")


ProgressFn = Callable[[int, int, int], None]  # entries done, entries total, chunks embedded


def chunk_id(key: str, sha256: str, index: int) -> str:
    return hashlib.sha256(f"{key}\0{sha256}\0{index}".encode()).hexdigest()[:32]


def language_mix(counts: Counter[str]) -> str:
    """A file's chunks per language as the manifest keeps them: "de:12,en:3" ("" for
    chunks whose language was not detected: "?")."""
    return ",".join(f"{language or '?'}:{n}" for language, n in counts.most_common())


def _file_metadata(item: Item) -> Metadata:
    """A file's metadata for the manifest: its chunks' together (a streamed file's were
    gathered as they went by), a copy's its origin's."""
    if item.copied is not None:
        return item.copied.origin.metadata
    return union([item.document_metadata, *(chunk.metadata for chunk in item.chunks)])


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Ingestor:
    """Reads, chunks and embeds documents; every write goes through `writer`."""

    def __init__(
        self,
        writer: StoreWriter,
        embedder: Embedder,
        chunker: Chunker,
        qna_collection: str | None = None,
        claim: Callable[[str], None] | None = None,
        workers: int = 1,
    ):
        self.writer = writer
        self.embedder = embedder
        self.chunker = chunker
        self.qna_collection = qna_collection  # Markdown ingested here is read as Q:/A: pairs
        self.claim = claim  # a shared server: checks this store may ingest the collection
        self.workers = workers  # processes that parse files (parse_pool.py); 1: none
        # Set by Ctrl-C or SIGTERM (cancel.py): the run stops after the write in progress
        # and a write of the files already embedded.
        self.stop = StopFlag()
        self.activity = Activity(embedder)  # what a progress display shows
        self.pace = Pace()  # sizes the windows a batch is embedded in

    # The writer's parts, read by the ingest and by callers that search what it wrote.
    @property
    def store(self) -> VectorStore:
        return self.writer.store

    @property
    def manifest(self) -> Manifest:
        return self.writer.manifest

    @property
    def lexical(self) -> LexicalIndexes | None:
        return self.writer.lexical

    def close(self) -> None:
        self.writer.close()

    def run(
        self,
        paths: list[Path],
        collection: str,
        prune: bool = False,
        progress: ProgressFn | None = None,
    ) -> IngestReport:
        """`ragcli ingest`: the files under `paths`."""
        for path in paths:
            if not path.exists() and not path.is_symlink():
                raise RagcliError(f"{path}: no such file or directory")
        source = self.file_source(paths, collection)
        report = self.write(source, collection, prune, progress)
        report.roots = [str(p) for p in paths]
        return report

    def file_source(self, paths: list[Path], collection: str) -> FileSource:
        """The files under `paths`, with renamed or copied content found in the store."""

        def find_copy(key: str, sha256: str, file_type: str):
            return find_stored_copy(self.manifest, collection, key, sha256, file_type, chunk_id)

        parser = ParsePool(self.chunker, loaders.current_options(), self.workers)
        return FileSource(
            paths,
            collection,
            self.manifest,
            self.chunker,
            self.qna_collection,
            STREAM_BYTES,
            find_copy,
            parser,
        )

    def write(
        self,
        source: Source[Any],
        collection: str,
        prune: bool = False,
        progress: ProgressFn | None = None,
    ) -> IngestReport:
        """Bring `collection` in step with `source`; with `prune`, remove what it no longer
        holds. Every ingest, of files or of anything else, writes through here."""
        started = time.perf_counter()  # the report's seconds include any wait for the lock
        with self.writer:
            return self._write(source, collection, prune, progress, started)

    def _write(
        self,
        source: Source[Any],
        collection: str,
        prune: bool,
        progress: ProgressFn | None,
        started: float,
    ) -> IngestReport:
        report = IngestReport(collection)
        if self.claim is not None:
            self.claim(collection)
        store_dir = self.manifest.path.parent
        # The manifest answers "has chunks" without a Chroma read, whose first one in a
        # process loads the collection (seconds at 100k chunks); an unchanged run needs none.
        stored = self.manifest.chunk_total(collection)
        has_chunks = stored > 0 or self.store.count(collection) > 0
        embedding_identity.check(self.store, store_dir, collection, self.embedder, has_chunks)
        embedding_identity.record(self.store, store_dir, collection, self.embedder)
        delete = self.writer.delete_chunks
        for repair in recover(self.store, self.manifest, collection, delete, chunk_id):
            report.recovered.append(asdict(repair))
            report.chunks_removed += repair.chunks_removed
        if self.lexical:  # what other machines logged, or a killed run left unindexed
            self.lexical.catch_up(collection, self.store, self.manifest.chunk_total(collection))
            self.lexical.begin(collection)
        entries = source.entries()
        self.activity.begin(entries)
        prepared = prefetch(entries, source.prepare, finish=getattr(source, "finish", None))
        stopping = True  # till the entries are all written: an error ends the parsers too
        try:
            embedded = self._write_entries(prepared, len(entries), collection, report, progress)
            stopping = False
        except StopRequested:
            report.seconds = time.perf_counter() - started
            # Entries with no outcome were not stored (read ahead, or embedding): left.
            report.interrupted, report.files_left = True, len(entries) - len(report.files)
            self._close_embedder()  # requests in flight to a server are not waited for
            raise IngestInterrupted(report, report.files_left) from None
        except BackendError as error:  # an embedding server that gave up after its retries
            left, stored = len(entries) - len(report.files), report.stored()
            raise BackendError(
                f"{error}; {stored} file{'' if stored == 1 else 's'} stored, {left} left: "
                "run the same command to finish"
            ) from None
        finally:
            prepared.close()  # the reading thread stops too
            close = getattr(source, "close", None)
            if close is not None:
                close(stopping)  # the parsing processes
        if progress:
            progress(len(entries), len(entries), embedded)
        moved = getattr(source, "moved", None)  # a site's redirects of stored pages
        gone = self._drop_moved(collection, report, source.gone(), moved() if moved else [])
        if prune:
            for key, reason in gone:
                removed = self.writer.remove_file(collection, key, checkpoint=False)
                report.chunks_removed += removed
                report.files.append(FileOutcome(key, "removed", reason, removed))
            self.writer.checkpoint(collection)
        else:  # said, so that a deleted file's chunks are not cited on in silence
            report.gone = [key for key, _ in gone]
        self.writer.save_index(collection, verify=True)
        report.seconds = time.perf_counter() - started
        return report

    def _write_entries(
        self,
        prepared: Any,
        total: int,
        collection: str,
        report: IngestReport,
        progress: ProgressFn | None,
    ) -> int:
        """Embed and write the prepared entries in batches; returns the chunks embedded.
        A stop is looked at before each entry and while an embedding is awaited."""
        pending: list[Item] = []
        pending_chunks = 0
        flush_at = min(FIRST_FLUSH_CHUNKS, FLUSH_CHUNKS)
        embedded = 0

        def store(items: list[Item], vectors: Any) -> int:
            written = self._store_batch(items, vectors, collection, report)
            self.activity.finished(len(items))
            return written

        def embed(batch: WindowedBatch) -> Any:
            return batch.embed(self.embedder.embed, self.pace, self.stop.is_set)

        def write(batch: WindowedBatch, vectors: Any) -> int:
            return store(batch.items, vectors)

        def windowed(items: list[Item]) -> WindowedBatch | None:
            return WindowedBatch(items) if items else None

        # Entries are read, hashed and chunked in a thread ahead of the embedding here, and
        # each batch is embedded in another while the next one is gathered (Batches).
        with Batches(embed, write, self.stop.wait_for) as batches:
            try:
                for done, outcome_or_item in enumerate(prepared, start=1):
                    if self.stop.is_set():
                        raise StopRequested
                    activity = self.activity
                    if isinstance(outcome_or_item, FileOutcome):
                        outcome = self._skipped(outcome_or_item, collection, report)
                        report.files.append(outcome)
                        activity.settled(done - 1)  # entries come prepared in their order
                        activity.finished()
                    elif outcome_or_item.stream is not None:
                        embedded += batches.send(windowed(pending)) + batches.flush()
                        pending, pending_chunks = [], 0
                        # Its chunks are counted as they come: one per kilobyte till then.
                        item = outcome_or_item
                        guess = max(1, item.size // STREAM_BYTES_PER_CHUNK)
                        activity.read(item.size, guess, item.key)
                        embedded += self._store_streamed(item, collection, report)
                        activity.finished()
                    else:
                        pending.append(outcome_or_item)
                        pending_chunks += outcome_or_item.chunk_count()
                        item = outcome_or_item
                        activity.read(item.size, item.chunk_count(), item.key)
                    if pending_chunks >= flush_at:
                        embedded += batches.send(windowed(pending))
                        pending, pending_chunks = [], 0
                        flush_at = min(flush_at * 2, FLUSH_CHUNKS)
                    if progress:
                        progress(done, total, embedded)
                embedded += batches.send(windowed(pending)) + batches.flush()
            except (StopRequested, BackendError):
                # The files already embedded are written before the stop (or an embedding
                # server that gave up) ends the run: one write, while the window in
                # progress is left to the next run.
                items, vectors = finished(batches.unwritten())
                store(items, vectors)
                raise
        return embedded

    def _skipped(self, outcome: FileOutcome, collection: str, report: IngestReport) -> FileOutcome:
        """A stored file that now holds no text of its own (emptied, a blank scan) leaves
        the store: its old text would otherwise be cited on, and an ingest of it would
        change nothing. A file that failed keeps what was stored."""
        if outcome.status != "skipped" or self.manifest.get(collection, outcome.path) is None:
            return outcome
        removed = self.writer.remove_file(collection, outcome.path)
        report.chunks_removed += removed
        outcome.reason += f" (its {removed} stored chunk{'' if removed == 1 else 's'} removed)"
        return outcome

    def _close_embedder(self) -> None:
        close = getattr(self.embedder, "close", None)
        if close is not None:
            close()

    def _embed(self, pending: list[Item]) -> Any:
        texts = [text for item in pending for text in embed_texts(item)]
        return self._embed_once_each(texts) if texts else []

    def _embed_once_each(self, texts: list[str]) -> Any:
        """Identical texts (licence headers, footers, boilerplate) are embedded once."""
        unique = list(dict.fromkeys(texts))
        vectors = self.embedder.embed(unique)
        if len(unique) == len(texts):
            return vectors
        position = {text: i for i, text in enumerate(unique)}
        return vectors[[position[text] for text in texts]]

    def _embed_stoppable(self, texts: list[str]) -> Any:
        """Embed in a worker thread while this one watches for a stop (a large file's
        slices are embedded here, one at a time)."""
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragcli-embed")
        try:
            return self.stop.wait_for(pool.submit(self._embed_once_each, texts))
        finally:
            pool.shutdown(wait=False)

    def _store_batch(
        self, pending: list[Item], vectors: Any, collection: str, report: IngestReport
    ) -> int:
        """Journal, write and record an embedded batch; returns the chunks embedded."""
        if not pending:
            return 0
        # Copies are read before anything of the batch is written; one found incomplete
        # is read, chunked and embedded after all (below).
        copied = [item for item in pending if item.copied]
        read = list(zip(copied, self._read_copies(copied, collection), strict=True))
        whole = [(item, chunks) for item, chunks in read if chunks is not None]
        unread = [item for item, chunks in read if chunks is None]
        pending = [item for item in pending if all(item is not u for u in unread)]
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
        self.writer.upsert(collection, ids, chunk_texts, vectors, metadatas)
        self._store_copies(whole, collection, report)
        self._finish_files([(item, item.chunk_count()) for item in pending], collection, report)
        self.writer.checkpoint(collection)
        return len(ids) + sum(self._store_anew(item, collection, report) for item in unread)

    def _read_copies(self, items: list[Item], collection: str) -> list[CopiedChunks | None]:
        copies = [item.copied for item in items if item.copied is not None]
        return read_copies(self.store, collection, copies) if copies else []

    def _store_copies(
        self, items: list[tuple[Item, CopiedChunks]], collection: str, report: IngestReport
    ) -> None:
        """Renamed, moved or copied files: the stored chunks of their content, under ids
        and metadata of their own path, in one upsert; the embeddings are reused."""
        ids: list[str] = []
        origins: list[str] = []
        texts: list[str] = []
        vectors: list[Any] = []
        metadatas: list[dict] = []
        now = _now()
        for item, chunks in items:
            assert item.copied is not None
            total = len(chunks.texts)
            item_ids = [chunk_id(item.key, item.sha256, i) for i in range(total)]
            ids += item_ids
            origins += item.copied.ids
            texts += chunks.texts
            vectors += chunks.vectors
            metadatas += [
                {
                    **meta,
                    "chunk_id": new_id,
                    "source_file": item.key,
                    "processed_at": now,
                    **item.metadata,
                }
                for meta, new_id in zip(chunks.metadatas, item_ids, strict=True)
            ]
            item.languages.update(str(meta.get("language") or "") for meta in chunks.metadatas)
            report.chunks_reused += total
        self.writer.upsert(collection, ids, texts, vectors, metadatas, copied_from=origins)

    def _store_anew(self, item: Item, collection: str, report: IngestReport) -> int:
        """A copied file whose stored chunks proved incomplete (a damaged store, or a
        version replaced earlier in this run): read, chunked and embedded after all."""
        assert item.reread is not None
        fresh = item.reread()
        if isinstance(fresh, FileOutcome):
            report.files.append(self._skipped(fresh, collection, report))
            return 0
        if fresh.stream is not None:
            return self._store_streamed(fresh, collection, report)
        return self._store_batch([fresh], self._embed([fresh]), collection, report)

    def _drop_moved(
        self,
        collection: str,
        report: IngestReport,
        gone: list[tuple[str, str]],
        redirected: list[tuple[str, str]],
    ) -> list[tuple[str, str]]:
        """A path that no longer exists while its content is stored under another, existing
        path was moved or renamed: it leaves the store (nothing is lost, its content lives
        on under the new path). Done after every write of the run, so the old chunks stay
        readable for any copy of them; returns the rest of `gone`, truly deleted files.

        Found two ways: the files this run copied from a vanished path, and gone files
        whose content another path holds (a move finished by a run that a kill cut short)."""
        moves = [(f.copied_from, f.path) for f in report.files if f.copied_from] + redirected
        copied_from = {old for old, _ in moves}
        remaining = []
        for key, reason in gone:
            if key in copied_from:
                continue
            record = self.manifest.get(collection, key)
            twins = self.manifest.with_sha256(collection, record.sha256) if record else []
            twin = next((t.path for t in twins if t.path != key and Path(t.path).exists()), "")
            if twin:
                moves.append((key, twin))
            else:
                remaining.append((key, reason))
        gone_olds: dict[str, str] = {}  # old -> new, each old path once
        for old, new in moves:
            if old not in gone_olds and not Path(old).exists():
                gone_olds[old] = new
        records = {r.path: r for r in self.manifest.files(collection) if r.path in gone_olds}
        if records:
            # One removal for them all: a Chroma delete costs ~45 ms whatever its size.
            report.chunks_removed += self.writer.remove_files(collection, sorted(records))
            report.moved += [
                {"from": old, "to": gone_olds[old], "chunks": records[old].chunk_count}
                for old in sorted(records)
            ]
            self.writer.checkpoint(collection)
        return remaining

    def _store_streamed(self, item: Item, collection: str, report: IngestReport) -> int:
        """A large file in slices of FLUSH_CHUNKS chunks: at most one slice is in memory."""
        assert item.stream is not None
        self.manifest.begin(collection, item.key, item.sha256)
        batch: list[Chunk] = []
        start = 0
        # The chunk count is known only at the end: total_chunks is filled in then.
        for chunk in item.stream():
            batch.append(chunk)
            item.document_metadata = union([item.document_metadata, chunk.metadata])
            if len(batch) == FLUSH_CHUNKS:
                vectors = self._embed_stoppable([c.text for c in batch])
                self._write_chunks(item, batch, vectors, start, 0, collection)
                start += len(batch)
                batch = []
        if batch:
            vectors = self._embed_stoppable([c.text for c in batch])
            self._write_chunks(item, batch, vectors, start, 0, collection)
            start += len(batch)
        if start == 0:
            self.manifest.settle(collection, [item.key])
            skipped = FileOutcome(item.key, "skipped", "no text")
            report.files.append(self._skipped(skipped, collection, report))
            return 0
        ids = [chunk_id(item.key, item.sha256, i) for i in range(start)]
        self.store.update_metadata(collection, ids, {"total_chunks": start})
        self._finish_files([(item, start)], collection, report)
        self.writer.checkpoint(collection)
        return start

    def _write_chunks(
        self,
        item: Item,
        chunks: list[Chunk],
        vectors,
        start: int,
        total: int,
        collection: str,
    ) -> None:
        """Chunks `start`.. of a file whose version has `total` chunks."""
        ids, metadatas = self._chunk_records(item, chunks, start, total)
        self.writer.upsert(collection, ids, [c.text for c in chunks], vectors, metadatas)
        if ids:
            crash_point("after_upsert")

    def _chunk_records(
        self, item: Item, chunks: list[Chunk], start: int, total: int
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
                **item.metadata,
                **chroma_fields(chunk.metadata),
            }
            for i, chunk in enumerate(chunks)
        ]
        item.languages.update(str(meta.get("language") or "") for meta in metadatas)
        return ids, metadatas

    def _finish_files(
        self, done: list[tuple[Item, int]], collection: str, report: IngestReport
    ) -> None:
        """Record files whose chunks (this many) are all written; the manifest rows in one
        transaction, as the journal's."""
        now = _now()
        records = []
        for item, count in done:
            crash_point("after_upsert")
            # Whatever this file left behind under other contents (earlier versions, or a
            # run killed half-way) goes now, so no orphan outlives a successful ingest. A
            # new file has nothing behind it: a killed run's chunks were journaled and
            # recovered before this run began, so the lookup (a metadata scan) is skipped.
            stale = []
            if item.status != "new":
                # Other contents' chunks, and chunks past this version's last (the same
                # content read again with another reading may make fewer).
                older = [{"file_sha256": {"$ne": item.sha256}}, {"chunk_index": {"$gte": count}}]
                where = {"$and": [{"source_file": item.key}, {"$or": older}]}
                stale = self.store.ids_where(collection, where)
            self.writer.delete_chunks(collection, stale)
            crash_point("after_stale_delete")
            records.append(
                FileRecord(
                    collection,
                    item.key,
                    item.sha256,
                    item.size,
                    item.mtime_ns,
                    item.file_type,
                    count,
                    item.pages,
                    now,
                    reading_of(item.file_type),
                    language_mix(item.languages),
                    _file_metadata(item),
                )
            )
            report.chunks_added += count
            report.chunks_removed += len(stale)
            report.ocr_pages += item.ocr_pages
            reason = "; ".join(item.notes)
            copied_from = item.copied.origin.path if item.copied else ""
            report.files.append(
                FileOutcome(item.key, item.status, reason, count, False, copied_from)
            )
        self.manifest.put_many(records)
        crash_point("after_manifest")
