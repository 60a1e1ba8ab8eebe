"""Putting a BEIR corpus into the store, incrementally.

A corpus document is not a file, so it enters the manifest under the key `beir:DOC_ID`
with the sha256 of its title and text in place of a file hash (size = its UTF-8 length,
mtime 0). A re-run embeds only documents whose text changed or that are new, and drops
documents the corpus no longer holds. Chunks are cut, embedded, stored in Chroma and
mirrored into the collection's BM25 index exactly as file chunks are; a document's chunk
ids are derived from its key and hash, so a changed document's old chunks are known
without asking Chroma.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from ragcli.evaluation.beir import Document
from ragcli.ingest.chunker import Chunk
from ragcli.ingest.loaders import Section
from ragcli.ingest.runner import FLUSH_CHUNKS, Ingestor, chunk_id
from ragcli.store.manifest import FileRecord

KEY_PREFIX = "beir:"
FILE_TYPE = "beir"

CorpusProgress = Callable[[int, int], None]  # documents done, documents total


@dataclass
class CorpusReport:
    new: int = 0
    changed: int = 0
    unchanged: int = 0
    removed: int = 0
    chunks_added: int = 0


@dataclass
class _Doc:
    key: str
    doc_id: str
    title: str
    sha256: str
    size: int
    chunks: list[Chunk]
    previous: FileRecord | None


def doc_key(doc_id: str) -> str:
    return KEY_PREFIX + doc_id


def doc_id_of(source_file: str) -> str:
    return source_file.removeprefix(KEY_PREFIX)


def ingest_corpus(
    ingestor: Ingestor,
    corpus: dict[str, Document],
    collection: str,
    progress: CorpusProgress | None = None,
) -> CorpusReport:
    report = CorpusReport()
    lexical = ingestor.lexical
    if lexical:
        lexical.reconcile(collection, ingestor.store, save=False)
    known = {r.path: r for r in ingestor.manifest.files(collection)}
    pending: list[_Doc] = []
    pending_chunks = 0
    for done, (doc_id, document) in enumerate(corpus.items(), start=1):
        key = doc_key(doc_id)
        text = document.full_text
        data = text.encode("utf-8")
        sha = hashlib.sha256(data).hexdigest()
        previous = known.get(key)
        if previous and previous.sha256 == sha:
            report.unchanged += 1
        else:
            chunks = ingestor.chunker.chunk([Section(text)]) if text else []
            pending.append(_Doc(key, doc_id, document.title, sha, len(data), chunks, previous))
            pending_chunks += len(chunks)
            if previous:
                report.changed += 1
            else:
                report.new += 1
        if pending_chunks >= FLUSH_CHUNKS:
            report.chunks_added += _store(ingestor, pending, collection)
            pending, pending_chunks = [], 0
        if progress:
            progress(done, len(corpus))
    report.chunks_added += _store(ingestor, pending, collection)
    gone = [
        record
        for key, record in known.items()
        if key.startswith(KEY_PREFIX) and doc_id_of(key) not in corpus
    ]
    for record in gone:
        _delete_chunks(ingestor, collection, record)
        ingestor.manifest.remove(collection, record.path)
    report.removed = len(gone)
    if lexical:
        lexical.save(collection)
    return report


def _store(ingestor: Ingestor, docs: list[_Doc], collection: str) -> int:
    if not docs:
        return 0
    now = datetime.now(UTC).isoformat(timespec="seconds")
    ids, texts, metadatas = [], [], []
    for doc in docs:
        for i, chunk in enumerate(doc.chunks):
            cid = chunk_id(doc.key, doc.sha256, i)
            ids.append(cid)
            texts.append(chunk.text)
            metadatas.append(
                {
                    "chunk_id": cid,
                    "source_file": doc.key,
                    "file_type": FILE_TYPE,
                    "chunk_index": i,
                    "total_chunks": len(doc.chunks),
                    "chunk_method": chunk.method,
                    "token_count": chunk.token_count,
                    "char_count": len(chunk.text),
                    "content_preview": chunk.text[:100],
                    "heading": doc.title or None,
                    "file_sha256": doc.sha256,
                    "created_at": now,
                    "processed_at": now,
                }
            )
    if ids:
        vectors = ingestor.embedder.embed(texts)
        ingestor.store.upsert(collection, ids, texts, vectors, metadatas)
        if ingestor.lexical:
            ingestor.lexical.upsert(collection, ids, texts)
    for doc in docs:
        if doc.previous:
            _delete_chunks(ingestor, collection, doc.previous)
        ingestor.manifest.put(
            FileRecord(
                collection, doc.key, doc.sha256, doc.size, 0, FILE_TYPE, len(doc.chunks), None, now
            )
        )
    return len(ids)


def _delete_chunks(ingestor: Ingestor, collection: str, record: FileRecord) -> None:
    old = [chunk_id(record.path, record.sha256, i) for i in range(record.chunk_count)]
    ingestor.store.delete(collection, ids=old)
    if ingestor.lexical:
        ingestor.lexical.delete(collection, old)
