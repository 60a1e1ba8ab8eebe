"""Keeping the store in step with the files: `ragcli rm`, the refresh of stale sources
(`ask/search --refresh`), the check of cited files, and `ragcli sync`. Every write goes
through the store's writer (wiring.writing); only a refresh of changed files embeds."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from ragcli.config import Settings
from ragcli.errors import ConfigError, EmptyStoreError
from ragcli.wiring import ingestor, lexical_indexes, manifest, store_dir, vector_store, writing


def source_files(chunks: list) -> list[str]:
    return [chunk.metadata.source_file for chunk in chunks]


def check_sources(settings: Settings, collection: str, paths: list[str]) -> list:
    """The cited files (paths, as stored) that changed or vanished since their ingest."""
    from ragcli.pipeline.staleness import stale_sources
    from ragcli.store.manifest import Manifest

    path = store_dir(settings) / "manifest.sqlite"
    if not path.is_file():  # a shared server's store ingested elsewhere: nothing to check
        return []
    files = Manifest(path)
    try:
        return stale_sources(files, collection, paths)
    finally:
        files.close()


def refresh_stale(
    settings: Settings, search, question: str, collection: str, top_k: int | None = None
) -> list:
    """`--refresh`: the retrieved files that changed are re-ingested and those deleted
    are removed, before the run retrieves again. Returns the StaleSources refreshed."""
    retrieved = search.search(question, top_k or settings.retrieval.top_k)
    stale = check_sources(settings, collection, source_files(retrieved))
    if not stale:
        return []
    changed = [Path(s.path) for s in stale if s.state == "changed"]
    if changed:
        ingest = ingestor(settings, emb=search.embedder, vectors=search.store)
        try:
            ingest.run(changed, collection)
        finally:
            ingest.close()
    missing = [s.path for s in stale if s.state == "missing"]
    if missing:
        with writing(settings, search.store) as writer:
            for path in missing:
                writer.remove_file(collection, path)
            writer.save_index(collection)
    return stale


def remove(settings: Settings, paths: list[Path | str], dry_run: bool = False):
    """`ragcli rm`: the files at or under `paths` leave every index, under the store's
    lock. The paths are matched before the store opens, so a typo costs nothing; no
    embedder is loaded at all."""
    from ragcli.ingest.removal import remove_paths

    name = settings.store.collection
    files = manifest(settings)
    try:
        removal = remove_paths(files, name, paths)
    finally:
        files.close()
    if dry_run:
        return removal
    with writing(settings) as writer:  # matched again: another writer may have been first
        removal = remove_paths(writer.manifest, name, paths, writer.remove_file)
        writer.save_index(name)
    return removal


@dataclass
class Synced:
    collection: str
    chunks: int  # what the keyword index holds now
    added: int
    removed: int
    seconds: float


def sync(settings: Settings, collection: str | None = None) -> Synced:
    """`ragcli sync`: this machine's keyword index of a shared collection, brought in step
    with the server and saved (the first ask of a new machine starts it in the background)."""
    name = collection or settings.store.collection
    if not settings.store.url:
        raise ConfigError(
            "ragcli sync: store.url is not set; a local store's keyword index is kept in "
            "step by ingest"
        )
    started = time.perf_counter()
    store = vector_store(settings)
    if store.collection(name) is None:
        raise EmptyStoreError(f"collection {name!r} is not on {settings.store.url}")
    indexes = lexical_indexes(settings)
    fixed = indexes.sync_now(name, store, settings.store.lock_timeout)
    chunks = len(indexes.index(name))
    return Synced(name, chunks, fixed.added, fixed.removed, time.perf_counter() - started)
