"""Builds what a command needs from Settings: the one place that wires objects together."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragcli.config import Settings
from ragcli.errors import ConfigError, EmptyStoreError
from ragcli.pipeline.results import AskResult
from ragcli.trace.recorder import Trace
from ragcli.trace.store import TraceStore

log = logging.getLogger("ragcli")


def store_dir(settings: Settings) -> Path:
    return Path(settings.store.path).expanduser()


def trace_store(settings: Settings) -> TraceStore:
    return TraceStore(store_dir(settings) / "traces.sqlite")


def embedder(settings: Settings, on_export: Callable[[str], None] | None = None):
    from ragcli.store.embedder import make_embedder

    return make_embedder(settings.embedding, on_export=on_export)


def embedder_in_background(settings: Settings, on_export: Callable[[str], None] | None = None):
    """A future of the embedder, loading while the caller imports Chroma: onnxruntime
    builds its session without the GIL, so the two overlap."""
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragcli-embedder")
    loading = pool.submit(embedder, settings, on_export)
    pool.shutdown(wait=False)
    return loading


def vector_store(settings: Settings, must_exist: bool = False):
    from ragcli.store.vectors import VectorStore

    directory = store_dir(settings)
    if must_exist and not settings.store.url and not (directory / "chroma").is_dir():
        raise EmptyStoreError(f"no store at {directory}: run `ragcli ingest PATH` first")
    return VectorStore(directory, settings.store.url)


def ingestor(
    settings: Settings,
    on_export: Callable[[str], None] | None = None,
    emb: Any = None,
    vectors: Any = None,
):
    """The ingest writer; `emb` and `vectors` when the caller has them loaded already."""
    from ragcli.ingest import loaders
    from ragcli.ingest.chunker import Chunker
    from ragcli.ingest.runner import Ingestor
    from ragcli.store.embedder import read_max_seq_length, resolve_model_dir
    from ragcli.store.lock import StoreLock
    from ragcli.store.manifest import Manifest
    from ragcli.store.tokenizer import TokenCounter

    loaders.configure(
        loaders.LoadOptions(settings.ingest.ocr, settings.ingest.ocr_languages)
    )
    if settings.ingest.ocr != "off":  # a missing language model fails now, not per file
        from ragcli.ingest.loaders.ocr import OcrUnavailable, check_languages

        try:
            check_languages(settings.ingest.ocr_languages)
        except OcrUnavailable as exc:
            raise ConfigError(f"ingest.ocr_languages: {exc}") from None
    model_dir = resolve_model_dir(settings.embedding.model)
    # A chunk longer than the model's window would be silently truncated when embedded.
    max_tokens = min(settings.chunking.max_tokens, read_max_seq_length(model_dir))
    chunker = Chunker(TokenCounter(model_dir), max_tokens, settings.chunking.overlap_tokens)
    loading = None if emb is not None else embedder_in_background(settings, on_export)
    vectors = vectors or vector_store(settings)
    claim = None
    if settings.store.url:
        from functools import partial

        from ragcli.store.ownership import claim as claim_collection

        claim = partial(claim_collection, vectors, store_dir(settings))
    return Ingestor(
        vectors,
        Manifest(store_dir(settings) / "manifest.sqlite"),
        loading.result() if loading else emb,
        chunker,
        qna_collection=settings.tos.qna_collection,
        lock=StoreLock(store_dir(settings), settings.store.lock_timeout),
        claim=claim,
        lexical=lexical_indexes(settings),
    )


def lexical_indexes(settings: Settings):
    from ragcli.store.lexical_sync import LexicalIndexes

    return LexicalIndexes(store_dir(settings))


def retriever(settings: Settings, store, emb, collection: str):
    """Search over one collection in the configured retrieval mode."""
    from ragcli.store.retriever import Retriever

    return Retriever(
        store,
        emb,
        collection,
        mode=settings.retrieval.mode,
        lexical=lexical_indexes(settings),
        options=settings.retrieval,
    )


def term_stats(search) -> Callable:
    """The retriever's BM25 index (repaired when it lags), whose statistics the extractive
    backend weighs query terms by."""
    return lambda: search.lexical.searchable(search.collection, search.store)


def backend_info(settings: Settings, llm_model: str, embedder_name: str) -> dict[str, str]:
    from ragcli.llm import chosen_provider
    from ragcli.web import chosen_web

    return {
        "llm": chosen_provider(settings),
        "model": llm_model,
        "web": chosen_web(settings),
        "embedder": embedder_name,
    }


def calibration(settings: Settings):
    from ragcli.llm.calibration import Calibration

    return Calibration.for_store(store_dir(settings))


def with_top_k(settings: Settings, top_k: int | None) -> Settings:
    """`--top-k` for one run: every retrieval of the run takes it, the agentic
    sub-questions' too."""
    if top_k is None:
        return settings
    retrieval = settings.retrieval.model_copy(update={"top_k": top_k})
    agentic = settings.agentic.model_copy(update={"top_k": top_k})
    return settings.model_copy(update={"retrieval": retrieval, "agentic": agentic})


def ask(
    settings: Settings,
    question: str,
    mode: str = "standard",
    collection: str | None = None,
    on_export: Callable[[str], None] | None = None,
    on_token: Callable[[str], None] | None = None,
    refresh: bool = False,
) -> AskResult:
    """One run of `mode`; with `refresh`, the retrieved files that changed or vanished
    since they were ingested are re-ingested (or removed) first."""
    from ragcli.llm import make_llm
    from ragcli.pipeline.context import RunContext
    from ragcli.pipeline.modes.registry import MODES
    from ragcli.web import make_web

    if mode not in MODES:
        raise ConfigError(f"--mode {mode!r}: choose one of {', '.join(MODES)}")
    if not question.strip():
        raise ConfigError("the question is empty")
    started = time.perf_counter()
    collection = collection or settings.store.collection
    loading = embedder_in_background(settings, on_export)
    store = vector_store(settings, must_exist=True)
    if store.count(collection) == 0:
        raise EmptyStoreError(
            f"collection {collection!r} in {store.location} is empty: "
            "run `ragcli ingest PATH` first"
        )
    emb = loading.result()
    search = retriever(settings, store, emb, collection)
    refreshed: list = []
    if refresh:
        refreshed = refresh_stale(settings, search, question, collection)
        if refreshed:  # a fresh BM25 index: the refresh saved a new one
            search = retriever(settings, store, emb, collection)
    llm = make_llm(settings, emb, calibration(settings), term_stats=term_stats(search))
    web = make_web(settings)
    trace = Trace(
        question=question,
        mode=mode,
        thresholds=settings.thresholds(),
        backend=backend_info(settings, llm.model, emb.name),
    )
    ctx = RunContext(
        settings=settings, retriever=search, llm=llm, trace=trace, web=web, on_token=on_token
    )
    result = MODES[mode](ctx, question)
    result.stale_sources = check_sources(settings, collection, source_files(result.sources))
    result.refreshed_sources = refreshed
    trace.total_ms = round((time.perf_counter() - started) * 1000, 1)
    result.timings_ms = {"total": trace.total_ms}
    result.usage = result.usage.model_validate(trace.usage())
    trace.answer = result.answer
    trace.answer_type = result.answer_type
    trace.sources = [s.model_dump(mode="json") for s in result.sources]
    trace.result = result.to_json_dict()
    save_trace(settings, trace)
    return result


def source_files(chunks: list) -> list[str]:
    return [chunk.metadata.source_file for chunk in chunks]


def check_sources(settings: Settings, collection: str, paths: list[str]) -> list:
    """The cited files (paths, as stored) that changed or vanished since their ingest."""
    from ragcli.pipeline.staleness import stale_sources
    from ragcli.store.manifest import Manifest

    path = store_dir(settings) / "manifest.sqlite"
    if not path.is_file():  # a shared server's store ingested elsewhere: nothing to check
        return []
    manifest = Manifest(path)
    try:
        return stale_sources(manifest, collection, paths)
    finally:
        manifest.close()


def refresh_stale(settings: Settings, search, question: str, collection: str) -> list:
    """`ask --refresh`: the retrieved files that changed are re-ingested and those deleted
    are removed, before the run retrieves again. Returns the StaleSources refreshed."""
    retrieved = search.search(question, settings.retrieval.top_k)
    stale = check_sources(settings, collection, source_files(retrieved))
    if not stale:
        return []
    writer = ingestor(settings, emb=search.embedder, vectors=search.store)
    changed = [Path(s.path) for s in stale if s.state == "changed"]
    if changed:
        writer.run(changed, collection)
    missing = [s.path for s in stale if s.state == "missing"]
    if missing:
        assert writer.lock is not None
        with writer.lock:  # the ingest lock: no write of another run interleaves
            for path in missing:
                writer.remove_file(collection, path)
            if writer.lexical:
                writer.lexical.save(collection)
    writer.manifest.close()
    return stale


def saved_trace(settings: Settings, trace_id: str) -> Trace | None:
    """The run's trace for display; None (the answer is shown without it) when the trace
    database cannot be read."""
    try:
        return trace_store(settings).get(trace_id)
    except Exception as exc:  # locked, corrupted ...
        log.warning("trace not shown (%s): %s", trace_store(settings).path, exc)
        return None


def save_trace(settings: Settings, trace: Trace) -> None:
    """A broken trace database must never cost the user their answer."""
    try:
        trace_store(settings).save(trace)
    except Exception as exc:  # locked, corrupted, read-only ...
        log.warning("trace not saved (%s): %s", trace_store(settings).path, exc)


def manifest(settings: Settings):
    """The store's file manifest; an error that says what to do when nothing was ingested."""
    from ragcli.store.manifest import Manifest

    path = store_dir(settings) / "manifest.sqlite"
    if not path.is_file():
        raise EmptyStoreError(
            f"no files ingested in {store_dir(settings)}: run `ragcli ingest PATH` first"
        )
    return Manifest(path)


def ingested_files(settings: Settings, collection: str | None = None):
    """The manifest's rows: every ingested file, or those of one collection."""
    files = manifest(settings)
    try:
        return files.files(collection)
    finally:
        files.close()


def remove(
    settings: Settings,
    paths: list[Path],
    dry_run: bool = False,
    on_export: Callable[[str], None] | None = None,
):
    """`ragcli rm`: the files at or under `paths` leave every index, under the ingest
    lock. The paths are matched before the store and model load, so a typo costs nothing."""
    import contextlib

    from ragcli.ingest.removal import remove_paths

    name = settings.store.collection
    files = manifest(settings)
    try:
        removal = remove_paths(files, name, paths)
    finally:
        files.close()
    if dry_run:
        return removal
    writer = ingestor(settings, on_export=on_export)
    # The same lock as ingest: a removal must not interleave with an ingest's writes.
    with writer.lock or contextlib.nullcontext():
        removal = remove_paths(writer.manifest, name, paths, writer.remove_file)
        if writer.lexical:
            writer.lexical.save(name)
    return removal


def compare(
    settings: Settings,
    question: str,
    on_export: Callable[[str], None] | None = None,
    on_run: Callable[[str], None] | None = None,
) -> list[dict]:
    """Every mode on one question, one summary row each (see compare.py)."""
    from ragcli.compare import compare as compare_modes

    if not question.strip():
        raise ConfigError("the question is empty")
    traces = trace_store(settings)
    # Load the store and the model once before the first mode, so that mode alone does
    # not pay for the imports and its time compares fairly with the others.
    vector_store(settings, must_exist=True)
    embedder(settings, on_export)

    def ask_quietly(settings: Settings, question: str, mode: str) -> AskResult:
        return ask(settings, question, mode=mode, on_export=on_export)

    return compare_modes(settings, question, ask_quietly, traces.get, on_run=on_run)


def find_trace(settings: Settings, trace_id: str | None) -> Trace:
    """One stored run by id (a prefix is enough), or the latest."""
    traces = trace_store(settings)
    record = traces.get(trace_id)
    if record is not None:
        return record
    if trace_id and traces.recent(1):
        raise ConfigError(
            f"no run matches {trace_id!r} in {traces.path} (unknown, or a prefix of several; "
            "`ragcli trace --list` shows the runs)"
        )
    raise ConfigError(f"no runs yet in {traces.path}: ask a question first")


def cost_of(settings: Settings, backend: dict[str, str], usage: dict[str, Any]) -> float | None:
    """The run's estimated price in USD from the price table; None when not priced."""
    from ragcli import cost

    return cost.estimate_usage(settings.prices, backend, usage)
