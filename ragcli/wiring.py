"""Builds the store's parts from Settings: the embedder, the vector store, the BM25
indexes, the retriever, the store's writer and the ingest, the manifest. The service (the
calls front ends make) and the evaluation package both build on these, so neither imports
the other."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragcli.config import Settings
from ragcli.errors import ConfigError, EmptyStoreError
from ragcli.trace.store import TraceStore

if TYPE_CHECKING:
    from ragcli.ingest.writer import StoreWriter
    from ragcli.models import SearchFilters
    from ragcli.retrieval.filters import Scope


def store_dir(settings: Settings) -> Path:
    return Path(settings.store.path).expanduser()


def trace_store(settings: Settings) -> TraceStore:
    return TraceStore(store_dir(settings) / "traces.sqlite")


def embedder(settings: Settings, on_export: Callable[[str], None] | None = None):
    from ragcli.embedding.embedder import make_embedder

    made = make_embedder(settings.embedding, on_export=on_export)
    if settings.embedding.provider == "openai":  # a server claiming a model we have: check it
        from ragcli.embedding import probe as embedding_probe

        embedding_probe.verify(store_dir(settings), settings.embedding, made)
    return made


def embedder_in_background(settings: Settings, on_export: Callable[[str], None] | None = None):
    """The embedder, loading while the caller imports Chroma: onnxruntime builds its
    session without the GIL, so the two overlap. `.result()` waits for it."""
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragcli-embedder")
    loading = pool.submit(embedder, settings, on_export)
    pool.shutdown(wait=False)
    return _Loading(loading)


class _Loading:
    """A future of the embedder. A Ctrl-C while it is awaited closes any server embedder,
    so the exit (which waits for the loading thread) does not wait for a slow server."""

    def __init__(self, future: Any):
        self.future = future

    def result(self) -> Any:
        try:
            return self.future.result()
        except BaseException:
            from ragcli.embedding.server import close_all

            close_all()
            raise


def vector_store(settings: Settings, must_exist: bool = False):
    from ragcli.store.vectors import ChromaServer, VectorStore

    directory = store_dir(settings)
    if must_exist and not settings.store.url and not (directory / "chroma").is_dir():
        raise EmptyStoreError(f"no store at {directory}: run `ragcli ingest PATH` first")
    return VectorStore(directory, ChromaServer.of(settings.store))


def ingestor(
    settings: Settings,
    on_export: Callable[[str], None] | None = None,
    emb: Any = None,
    vectors: Any = None,
):
    """The ingest; `emb` and `vectors` when the caller has them loaded already. The
    caller closes it (its manifest)."""
    from ragcli.embedding.embedder import read_max_seq_length, tokenizer_dir
    from ragcli.embedding.wordpieces import TokenCounter
    from ragcli.ingest import loaders
    from ragcli.ingest.chunker import Chunker
    from ragcli.ingest.parse_pool import default_workers
    from ragcli.ingest.runner import Ingestor

    loaders.configure(loaders.LoadOptions(settings.ingest.ocr, settings.ingest.ocr_languages))
    if settings.ingest.ocr != "off":  # a missing language model fails now, not per file
        from ragcli.ingest.loaders.ocr import OcrUnavailable, check_languages

        try:
            check_languages(settings.ingest.ocr_languages)
        except OcrUnavailable as exc:
            raise ConfigError(f"ingest.ocr_languages: {exc}") from None
    model_dir = tokenizer_dir(settings.embedding)
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
        store_writer(settings, vectors),
        loading.result() if loading else emb,
        chunker,
        qna_collection=settings.tos.qna_collection,
        claim=claim,
        workers=settings.ingest.workers or default_workers(),
    )


def store_writer(settings: Settings, vectors: Any = None):
    """The store's writer (ingest/writer.py): no embedder, so a removal loads no model.
    Unlocked and open: `writing` below holds the lock and closes it."""
    from ragcli.ingest.writer import StoreWriter
    from ragcli.store.lock import StoreLock
    from ragcli.store.manifest import Manifest

    return StoreWriter(
        vectors or vector_store(settings),
        Manifest(store_dir(settings) / "manifest.sqlite"),
        StoreLock(store_dir(settings), settings.store.lock_timeout),
        lexical_indexes(settings),
    )


@contextmanager
def writing(settings: Settings, vectors: Any = None) -> Iterator[StoreWriter]:
    """The store's writer holding the store's lock; the lock released and the manifest
    closed on every path out, errors included."""
    writer = store_writer(settings, vectors)
    try:
        with writer:
            yield writer
    finally:
        writer.close()


def lexical_indexes(settings: Settings):
    from ragcli.bm25.sync import lexical_indexes as indexes_for

    return indexes_for(store_dir(settings), shared=bool(settings.store.url))


def retriever(
    settings: Settings,
    store,
    emb,
    collection: str,
    filters: SearchFilters | None = None,
    lexical=None,
):
    """Search over one collection in the configured retrieval mode, restricted to the
    files `filters` admit (in every collection the run searches)."""
    from ragcli.embedding import identity as embedding_identity
    from ragcli.languages.coverage import embedder_languages
    from ragcli.retrieval.retriever import Retriever

    embedding_identity.check(
        store, store_dir(settings), collection, emb, store.count(collection) > 0
    )
    return Retriever(
        store,
        emb,
        collection,
        mode=settings.retrieval.mode,
        lexical=lexical or lexical_indexes(settings),
        options=settings.retrieval,
        scope=scope_resolver(settings, filters),
        heading_embedder=sentence_vectors(settings, emb),
        languages=embedder_languages(settings.embedding),
    )


def rerank_stage(
    settings: Settings,
    answer_model: Callable[[], Any] | None = None,
    warm: Callable[[Any], Any] | None = None,
    strict: bool = False,
):
    """A run's rerank stage over the reranker `retrieval.rerank` names, built at its
    first rerank. `answer_model`: the run's answer backend (the llm reranker asks it);
    `warm`: a long-lived front end's kept reranker for these settings (Resources)."""
    from ragcli.retrieval.rerank.stage import RerankStage

    options = settings.retrieval.rerank
    if options.provider == "none":
        return RerankStage.off()

    def build():
        if warm is not None and options.provider != "llm":
            return warm(options)
        from ragcli.retrieval.rerank.factory import make_reranker

        return make_reranker(options, answer_model() if answer_model else None)

    return RerankStage(options, build, strict=strict)


def scope_resolver(
    settings: Settings, filters: SearchFilters | None
) -> Callable[[str], Scope] | None:
    """Resolves a filter against one collection's manifest rows; None when nothing is
    filtered. Relative patterns are also read from the folder holding the store."""
    if filters is None or not filters.active:
        return None
    from ragcli.retrieval.filters import resolve

    def scope(collection: str) -> Scope:
        path = store_dir(settings) / "manifest.sqlite"
        rows = ingested_files(settings, collection) if path.is_file() else []
        return resolve(filters, collection, rows, bases=[store_dir(settings).resolve().parent])

    return scope


def sentence_vectors(settings: Settings, emb):
    """The embedder the answer backends score sentences with: `emb`, its vectors kept in
    the store (embedding/sentence_vectors.py)."""
    from ragcli.embedding.sentence_vectors import SentenceVectors

    return SentenceVectors(emb, store_dir(settings))


def term_stats(search) -> Callable:
    """The retriever's BM25 index (repaired when it lags), whose statistics the extractive
    backend weighs query terms by."""
    return lambda: search.lexical.searchable(search.collection, search.store)


def calibration(settings: Settings):
    from ragcli.llm.calibration import Calibration

    return Calibration.for_store(store_dir(settings))


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
