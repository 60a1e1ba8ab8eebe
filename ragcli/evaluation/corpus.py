"""Putting a BEIR corpus into the store, incrementally, through the ingest's own write path.

A corpus document is not a file, so it enters the manifest under the key `beir:DOC_ID`
with the sha256 of its title and text in place of a file hash (size = its UTF-8 length,
mtime 0). CorpusSource is an ingest source like the file walker: the Ingestor journals,
embeds, stores and mirrors its documents into the BM25 index exactly as it does files, so
a re-run embeds only documents whose text changed or that are new, a killed run is
repaired by the next, and documents the corpus no longer holds are removed (a prune).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from ragcli.evaluation.beir import Document
from ragcli.ingest.chunker import Chunker
from ragcli.ingest.items import FileOutcome, Item
from ragcli.ingest.loaders import Section
from ragcli.ingest.runner import Ingestor, IngestReport
from ragcli.store.manifest import Manifest

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

    @classmethod
    def of(cls, report: IngestReport) -> CorpusReport:
        return cls(
            new=report.count("new"),
            changed=report.count("changed"),
            unchanged=report.count("unchanged"),
            removed=report.count("removed"),
            chunks_added=report.chunks_added,
        )


def doc_key(doc_id: str) -> str:
    return KEY_PREFIX + doc_id


def doc_id_of(source_file: str) -> str:
    return source_file.removeprefix(KEY_PREFIX)


class CorpusSource:
    """A BEIR corpus as an ingest source: one Item per new or changed document."""

    def __init__(
        self, corpus: dict[str, Document], collection: str, manifest: Manifest, chunker: Chunker
    ):
        self.corpus = corpus
        self.collection = collection
        self.manifest = manifest
        self.chunker = chunker

    def entries(self) -> list[str]:
        return list(self.corpus)

    def prepare(self, doc_id: str) -> FileOutcome | Item:
        key = doc_key(doc_id)
        document = self.corpus[doc_id]
        text = document.full_text
        data = text.encode("utf-8")
        sha = hashlib.sha256(data).hexdigest()
        known = self.manifest.get(self.collection, key)
        if known and known.sha256 == sha:
            return FileOutcome(key, "unchanged", chunks=known.chunk_count)
        # The title is the chunks' heading; it is already in the text, as BEIR indexes it.
        sections = [Section(text, heading=document.title or None)] if text else []
        status = "changed" if known else "new"
        return Item(key, sha, len(data), 0, status, FILE_TYPE, self.chunker.chunk(sections))

    def gone(self) -> list[tuple[str, str]]:
        return [
            (record.path, "document no longer in the corpus")
            for record in self.manifest.files(self.collection)
            if record.path.startswith(KEY_PREFIX) and doc_id_of(record.path) not in self.corpus
        ]


def ingest_corpus(
    ingestor: Ingestor,
    corpus: dict[str, Document],
    collection: str,
    progress: CorpusProgress | None = None,
) -> CorpusReport:
    source = CorpusSource(corpus, collection, ingestor.manifest, ingestor.chunker)
    report = ingestor.write(
        source,
        collection,
        prune=True,
        progress=(lambda done, total, _chunks: progress(done, total)) if progress else None,
    )
    return CorpusReport.of(report)
