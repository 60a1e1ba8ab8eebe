"""Whole stored documents for the front ends: `ragcli show PATH[:START-END]`, the MCP tools
`get` and `list`, and the files `ask --file` answers over (documents/ puts a file's
chunks back together)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ragcli.config import Settings
from ragcli.errors import ConfigError
from ragcli.wiring import ingested_files, vector_store

if TYPE_CHECKING:
    from ragcli.documents.model import DocumentList, StoredDocument
    from ragcli.service.resources import Resources
    from ragcli.store.manifest import FileRecord

LIST_LIMIT = 50  # documents a listing's page holds unless asked for another size


def show_document(
    settings: Settings,
    spec: str,
    collection: str | None = None,
    max_chars: int | None = None,
    resources: Resources | None = None,
) -> StoredDocument:
    """The stored document `spec` names (`PATH`, or `PATH:START-END` for its lines, pages,
    slides or rows), with its outline; at most `max_chars` of its text when given, with a
    note of where it was cut and the request that shows the rest. Without `collection`,
    the default collection is searched first, then every other one."""
    from ragcli.documents.places import parse_request
    from ragcli.documents.reading import bounded, select

    records = _records(settings, collection)
    try:
        request = parse_request(spec, frozenset(r.path for r in records))
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    record = _find(settings, records, request.path, collection)
    document = read_whole(settings, record, resources)
    document = select(document, request)
    if max_chars is not None:
        document = bounded(document, max_chars, request)
    return document


def read_whole(
    settings: Settings, record: FileRecord, resources: Resources | None = None
) -> StoredDocument:
    """One ingested file's document, from its chunks in the store."""
    from ragcli.documents.reading import document_of

    store = resources.store() if resources is not None else vector_store(settings, must_exist=True)
    return document_of(record, store.file_chunks(record.collection, [record.path]))


def find_documents(
    settings: Settings, specs: list[str], collection: str | None = None
) -> list[FileRecord]:
    """The ingested files these paths name (`ask --file`), each once, in the order given."""
    records = _records(settings, collection)
    found = [_find(settings, records, spec, collection) for spec in specs]
    return list({(r.collection, r.path): r for r in found}.values())


def list_documents(
    settings: Settings,
    collection: str | None = None,
    offset: int = 0,
    limit: int = LIST_LIMIT,
    resources: Resources | None = None,
) -> DocumentList:
    """A page of the collection's documents, by path, each with its stored title and
    metadata (read from its first chunk)."""
    from ragcli.documents.model import DocumentEntry, DocumentList
    from ragcli.documents.reading import document_metadata

    if offset < 0 or limit < 1:
        raise ConfigError(f"offset {offset}, limit {limit}: offset ≥ 0 and limit ≥ 1")
    name = collection or settings.store.collection
    records = sorted(ingested_files(settings, name), key=lambda r: r.path)
    page = records[offset : offset + limit]
    store = resources.store() if resources is not None else vector_store(settings, must_exist=True)
    firsts = store.first_chunks(name, [r.path for r in page]) if page else {}
    entries = []
    for record in page:
        title, metadata = document_metadata(firsts.get(record.path, {}))
        modified = datetime.fromtimestamp(record.mtime_ns / 1e9, tz=UTC)
        entries.append(
            DocumentEntry(
                path=record.path,
                file_type=record.file_type,
                chunks=record.chunk_count,
                pages=record.pages,
                title=title,
                ingested_at=record.ingested_at,
                modified_at=modified.isoformat(timespec="seconds"),
                sha256=record.sha256,
                metadata=metadata,
            )
        )
    following = offset + len(page)
    return DocumentList(
        collection=name,
        total=len(records),
        offset=offset,
        limit=limit,
        documents=entries,
        next_offset=following if following < len(records) else None,
    )


def _records(settings: Settings, collection: str | None) -> list[FileRecord]:
    """The ingested files of `collection`, or of every collection when None (the default
    one's first, so a path in both is found there)."""
    records = ingested_files(settings, collection)
    if collection is None:
        default = settings.store.collection
        records.sort(key=lambda r: r.collection != default)
    return records


def _find(
    settings: Settings, records: list[FileRecord], wanted: str, collection: str | None
) -> FileRecord:
    """The file `wanted` names; without `collection`, one in the default collection wins
    over the same file in another."""
    from ragcli.documents.reading import find_file

    if collection is None:
        default = settings.store.collection
        in_default = [r for r in records if r.collection == default]
        try:
            return find_file(in_default, wanted, default)
        except ConfigError:
            pass
    return find_file(records, wanted, collection)


def whole_documents_mode(
    settings: Settings, files: list[str], collection: str, mode: str
) -> tuple[str, dict, list[FileRecord]]:
    """`ask --file`: the documents mode, its runner, and the ingested files named (an
    unknown or ambiguous path is an error before any work). --mode auto or the default
    leave it to --file; another mode, which retrieves chunks, is refused."""
    from ragcli.pipeline.modes.registry import AUTO, DOCUMENTS, WHOLE_DOCUMENTS

    if mode not in ("standard", AUTO, DOCUMENTS):
        raise ConfigError(
            f"--file answers over whole documents; --mode {mode} answers over retrieved "
            "chunks: leave --mode out (or use auto), or use --path to restrict the mode"
        )
    return DOCUMENTS, {DOCUMENTS: WHOLE_DOCUMENTS}, find_documents(settings, files, collection)


def library(settings: Settings, store, collection: str):
    """The collection's documents for a run that may read some whole (None without a
    manifest here: a shared store ingested on another machine)."""
    from ragcli.documents.library import Library
    from ragcli.errors import EmptyStoreError

    def records() -> list[FileRecord]:
        try:
            return ingested_files(settings, collection)
        except EmptyStoreError:
            return []

    return Library(records, lambda paths: store.file_chunks(collection, paths))
