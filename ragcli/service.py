"""The calls front ends make (ask, compare, search, rm, sync, traces): each builds what it
needs from Settings through ragcli/wiring.py, whose builders are also offered here."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ragcli.config import Settings
from ragcli.errors import ConfigError, EmptyStoreError, NoMatchError
from ragcli.pipeline.conversation import Conversation
from ragcli.pipeline.results import AskResult
from ragcli.trace.recorder import Trace
from ragcli.wiring import calibration as calibration
from ragcli.wiring import embedder as embedder
from ragcli.wiring import embedder_in_background as embedder_in_background
from ragcli.wiring import ingested_files as ingested_files
from ragcli.wiring import ingestor as ingestor
from ragcli.wiring import lexical_indexes as lexical_indexes
from ragcli.wiring import manifest as manifest
from ragcli.wiring import retriever as retriever
from ragcli.wiring import scope_resolver as scope_resolver
from ragcli.wiring import sentence_vectors as sentence_vectors
from ragcli.wiring import store_dir as store_dir
from ragcli.wiring import term_stats as term_stats
from ragcli.wiring import trace_store as trace_store
from ragcli.wiring import vector_store as vector_store

if TYPE_CHECKING:
    from ragcli.models import PriorTurn, SearchFilters, SearchResult

log = logging.getLogger("ragcli")


def require_matches(search, collection: str) -> None:
    """A filter that admits no file of the collection searched is an error (exit 5), so
    it is never mistaken for "the documents do not cover this"."""
    scope = search.scope(collection)
    if scope is not None and scope.empty:
        raise NoMatchError(scope.nothing_matched())


class Resources:
    """What a long-lived front end (the MCP server) keeps warm between calls: the
    embedder, the store's client and the BM25 indexes. Each call asks for the store
    again, so one that an ingest in another process changed is reopened, and one that did
    not exist when the server started is found once it does."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.lexical = lexical_indexes(settings)
        self._embedder: Any = None
        self._store = None
        self._lock = threading.Lock()

    def embedder(self):
        with self._lock:
            if self._embedder is None:
                from ragcli.store.embedding_cache import CachingEmbedder

                self._embedder = CachingEmbedder(embedder(self.settings))
            return self._embedder

    def store(self):
        with self._lock:
            if self._store is None:
                self._store = vector_store(self.settings, must_exist=True)
            else:
                self._store.refresh()
            return self._store

    def warm_up(self) -> None:
        """Load the embedder, and the store and its BM25 index when there is one, so the
        first call does not pay for them."""
        emb = self.embedder()
        emb.embed(["warm up"])
        try:
            store = self.store()
        except EmptyStoreError:
            return
        collection = self.settings.store.collection
        if store.count(collection):
            self.lexical.searchable(collection, store)


def _open_store(settings: Settings, resources: Resources | None, on_export=None):
    """The store and (a future of) the embedder: warm ones, or loaded now, overlapping."""
    if resources is not None:
        store = resources.store()
        return store, resources.embedder
    loading = embedder_in_background(settings, on_export)
    store = vector_store(settings, must_exist=True)
    return store, loading.result


def _require_chunks(store, collection: str) -> None:
    if store.count(collection) == 0:
        raise EmptyStoreError(
            f"collection {collection!r} in {store.location} is empty: "
            "run `ragcli ingest PATH` first"
        )


def backend_info(settings: Settings, llm_model: str, embedder_name: str) -> dict[str, str]:
    from ragcli.llm import chosen_provider
    from ragcli.web import chosen_web

    return {
        "llm": chosen_provider(settings),
        "model": llm_model,
        "web": chosen_web(settings),
        "embedder": embedder_name,
    }


class Checkpoint(Protocol):
    """Lets a front end abandon a run between its stages (`chat`'s Ctrl-C)."""

    def check(self) -> None:
        """Raises to abandon the run."""

    def commit(self) -> None:
        """The run is about to be saved: raises to abandon it, or it is kept."""


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
    filters: SearchFilters | None = None,
    resources: Resources | None = None,
    conversation: Conversation | None = None,
    checkpoint: Checkpoint | None = None,
) -> AskResult:
    """One run of `mode`, a turn of `conversation` (a new one when None): a follow-up is
    made standalone before retrieval. With `refresh`, the retrieved files that changed or
    vanished since they were ingested are re-ingested (or removed) first. `checkpoint` is
    consulted between stages; a run it abandons is not saved."""
    from ragcli.llm import make_llm
    from ragcli.pipeline.context import RunContext
    from ragcli.pipeline.conversation import check_length, standalone_step
    from ragcli.pipeline.modes.registry import runnable
    from ragcli.web import make_web

    modes = runnable()
    if mode not in modes:
        raise ConfigError(f"--mode {mode!r}: choose one of {', '.join(modes)}")
    if not question.strip():
        raise ConfigError("the question is empty")
    check_length(question, settings.conversation)
    conversation = conversation or new_conversation()
    started = time.perf_counter()
    collection = collection or settings.store.collection
    store, emb_of = _open_store(settings, resources, on_export)
    _require_chunks(store, collection)
    emb = emb_of()
    if checkpoint is not None:
        checkpoint.check()
    lexical = resources.lexical if resources is not None else None
    search = retriever(settings, store, emb, collection, filters, lexical)
    require_matches(search, collection)
    sentence_emb = sentence_vectors(settings, emb)
    llm = make_llm(settings, sentence_emb, calibration(settings), term_stats=term_stats(search))
    trace = Trace(
        question=question,
        mode=mode,
        thresholds=settings.thresholds(),
        backend=backend_info(settings, llm.model, emb.name),
        conversation_id=conversation.id,
        turn=len(conversation.turns) + 1,
    )
    turn = standalone_step(llm, trace, question, conversation, settings.conversation)
    if turn.rewritten:
        trace.standalone = turn.standalone
    refreshed: list = []
    if refresh:
        refreshed = refresh_stale(settings, search, turn.standalone, collection)
        if refreshed:  # a fresh BM25 index: the refresh saved a new one
            search = retriever(settings, store, emb, collection, filters, lexical)
            llm = make_llm(
                settings, sentence_emb, calibration(settings), term_stats=term_stats(search)
            )
    web = make_web(settings)
    if checkpoint is not None:  # before retrieval
        checkpoint.check()
    if filters is not None and filters.active:
        trace.filters = filters.model_dump(mode="json")
    ctx = RunContext(
        settings=settings, retriever=search, llm=llm, trace=trace, web=web, on_token=on_token
    )
    result = modes[mode](ctx, turn.standalone)
    result.conversation = turn
    if checkpoint is not None:
        checkpoint.check()
    if settings.support.enabled and result.answer_type in CHECKED_ANSWERS:
        check_support(settings, emb, result, trace)
    result.stale_sources = check_sources(settings, collection, source_files(result.sources))
    result.refreshed_sources = refreshed
    if filters is not None and filters.active:
        result.filters = filters
    trace.total_ms = round((time.perf_counter() - started) * 1000, 1)
    result.timings_ms = {"total": trace.total_ms}
    result.usage = result.usage.model_validate(trace.usage())
    trace.answer = result.answer
    trace.answer_type = result.answer_type
    trace.sources = [s.model_dump(mode="json") for s in result.sources]
    trace.result = result.to_json_dict()
    if checkpoint is not None:
        checkpoint.commit()
    save_trace(settings, trace)
    from ragcli.trace.export import export_run  # light: OpenTelemetry only when configured

    export_run(settings, trace)
    return result


def new_conversation() -> Conversation:
    import uuid

    return Conversation(id=uuid.uuid4().hex[:12])


def prior_turn(result: AskResult) -> PriorTurn:
    from ragcli.models import PriorTurn

    turn = result.conversation
    asked = turn.asked if turn else result.query
    return PriorTurn(
        question=asked, standalone=turn.standalone if turn else asked, answer=result.answer
    )


def continue_conversation(settings: Settings, conversation_id: str | None) -> Conversation:
    """`ask -c` (the latest conversation, `conversation_id` None) or `--conversation ID`
    (a prefix is enough): the conversation with its stored turns."""
    from ragcli.models import PriorTurn

    traces = trace_store(settings)
    if conversation_id is None:
        found = traces.latest_conversation()
        if found is None:
            raise ConfigError(f"-c: no conversation yet in {traces.path}: ask a question first")
    else:
        matches = traces.conversation_ids(conversation_id)
        if len(matches) != 1:
            raise ConfigError(
                f"--conversation {conversation_id!r}: "
                + ("a prefix of several" if matches else "no such conversation")
                + f" in {traces.path} (`ragcli trace --list` shows the runs)"
            )
        found = matches[0]
    turns = [
        PriorTurn(question=t.question, standalone=t.standalone or t.question, answer=t.answer)
        for t in traces.conversation(found)
    ]
    return Conversation(id=found, turns=turns)


class AskSession:
    """A conversation kept by a long-lived front end (`ragcli chat`): warm resources, the
    turns so far, and the last answer for /sources and /trace. Every turn is `ask`."""

    def __init__(
        self,
        settings: Settings,
        mode: str = "standard",
        collection: str | None = None,
        filters: SearchFilters | None = None,
        conversation: Conversation | None = None,
        on_export: Callable[[str], None] | None = None,
    ):
        self.settings = settings
        self.mode = mode
        self.collection = collection
        self.filters = filters
        self.on_export = on_export
        self.resources = Resources(settings)
        self.conversation = conversation or new_conversation()
        self.last: AskResult | None = None

    def ask(
        self,
        question: str,
        on_token: Callable[[str], None] | None = None,
        checkpoint: Checkpoint | None = None,
    ) -> AskResult:
        result = ask(
            self.settings,
            question,
            self.mode,
            collection=self.collection,
            on_export=self.on_export,
            on_token=on_token,
            filters=self.filters,
            resources=self.resources,
            conversation=self.conversation,
            checkpoint=checkpoint,
        )
        self.conversation.turns.append(prior_turn(result))
        self.last = result
        return result

    def new(self) -> None:
        """A fresh conversation: earlier turns no longer shape the questions."""
        self.conversation = new_conversation()
        self.last = None

    def last_trace(self) -> Trace | None:
        return saved_trace(self.settings, self.last.trace_id) if self.last else None


# Outcomes whose text is an answer drawn from the sources; the others are ragcli's own words.
CHECKED_ANSWERS = ("answer", "limited", "unverified")


def check_support(settings: Settings, emb, result: AskResult, trace: Trace) -> None:
    """Each answer sentence against the sources it cites (pipeline/support.py): the
    result's `support`, and a step of the trace."""
    from ragcli.pipeline.support import SupportChecker

    own = list(result.notes)  # ragcli's own words inside the answer are not claims
    if result.tos_details is not None and result.tos_details.uncertainty_note:
        own.append(result.tos_details.uncertainty_note)
    checker = SupportChecker(emb, settings.support.threshold)
    with trace.step("support", answer_chars=len(result.answer)) as step:
        result.support = checker.check(result.answer, result.sources, skip=own)
        marked = [s for s in result.support if not s.supported or s.uncited]
        step.scores = {"sentences": len(result.support), "marked": len(marked)}
        step.threshold = {"support.threshold": settings.support.threshold}
        step.decision = (
            f"{len(marked)} of {len(result.support)} sentences marked"
            if result.support
            else "no sentence claims anything to check"
        )
        step.details["sentences"] = [
            s.model_dump(include={"sentence", "score", "cites", "backed_by", "uncited"})
            for s in result.support
        ]


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


def refresh_stale(
    settings: Settings, search, question: str, collection: str, top_k: int | None = None
) -> list:
    """`--refresh`: the retrieved files that changed are re-ingested and those deleted
    are removed, before the run retrieves again. Returns the StaleSources refreshed."""
    retrieved = search.search(question, top_k or settings.retrieval.top_k)
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
                writer.lexical.save(collection, writer.store)
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
            writer.lexical.save(name, writer.store)
    return removal


def compare(
    settings: Settings,
    question: str,
    on_export: Callable[[str], None] | None = None,
    on_run: Callable[[str], None] | None = None,
    filters: SearchFilters | None = None,
    refresh: bool = False,
) -> list[dict]:
    """Every mode on one question, one summary row each (see compare.py). With `refresh`,
    the files retrieved for it that changed are re-ingested once, before the first mode,
    so every mode answers from the same files and no mode's time carries the ingest."""
    from ragcli.compare import compare as compare_modes

    if not question.strip():
        raise ConfigError("the question is empty")
    traces = trace_store(settings)
    # Load the store and the model once before the first mode, so that mode alone does
    # not pay for the imports and its time compares fairly with the others.
    store = vector_store(settings, must_exist=True)
    # A filter that admits nothing is one error, not the same failure in every row.
    resolve_scope = scope_resolver(settings, filters)
    scope = resolve_scope(settings.store.collection) if resolve_scope else None
    if scope is not None and scope.empty:
        raise NoMatchError(scope.nothing_matched())
    emb = embedder(settings, on_export)
    if refresh:
        collection = settings.store.collection
        _require_chunks(store, collection)
        search = retriever(settings, store, emb, collection, filters)
        refresh_stale(settings, search, question, collection)

    def ask_quietly(settings: Settings, question: str, mode: str) -> AskResult:
        return ask(settings, question, mode=mode, on_export=on_export, filters=filters)

    return compare_modes(settings, question, ask_quietly, traces.get, on_run=on_run)


def search(
    settings: Settings,
    query: str,
    top_k: int | None = None,
    mode: str | None = None,
    filters: SearchFilters | None = None,
    collection: str | None = None,
    on_export: Callable[[str], None] | None = None,
    resources: Resources | None = None,
    refresh: bool = False,
) -> SearchResult:
    """`ragcli search`: the ranked chunks, no answer and no model call. Files among them
    changed or deleted since their ingest are listed; with `refresh`, refreshed first."""
    from ragcli.models import SearchHit, SearchResult

    if not query.strip():
        raise ConfigError("the query is empty")
    started = time.perf_counter()
    collection = collection or settings.store.collection
    top_k = top_k or settings.retrieval.top_k
    store, emb_of = _open_store(settings, resources, on_export)
    _require_chunks(store, collection)
    lexical = resources.lexical if resources is not None else None
    search = retriever(settings, store, emb_of(), collection, filters, lexical)
    require_matches(search, collection)
    mode = mode or search.mode
    refreshed: list = []
    if refresh:
        refreshed = refresh_stale(settings, search, query, collection, top_k)
        if refreshed:  # a fresh BM25 index: the refresh saved a new one
            search = retriever(settings, store, emb_of(), collection, filters, lexical)
    chunks = search.search(query, top_k, mode=mode)
    return SearchResult(
        query=query,
        retriever=mode,
        collection=collection,
        top_k=top_k,
        filters=filters if filters is not None and filters.active else None,
        results=[SearchHit.of(chunk, rank) for rank, chunk in enumerate(chunks, start=1)],
        stale_sources=check_sources(settings, collection, source_files(chunks)),
        refreshed_sources=refreshed,
        timings_ms={"total": round((time.perf_counter() - started) * 1000, 1)},
    )


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


def eval_questions(
    settings: Settings,
    path: Path,
    modes: list[str],
    progress: Callable[[str, int, int], None] | None = None,
):
    """`ragcli eval QUESTIONS.yaml`: every mode in `modes` on each labelled question, over
    the store as it is, with the store and model loaded once."""
    from ragcli.evaluation.questions import evaluate, load_questions
    from ragcli.llm import chosen_provider
    from ragcli.pipeline.modes.registry import runnable

    known = runnable()
    unknown = [m for m in modes if m not in known]
    if unknown:
        raise ConfigError(f"--mode {unknown[0]!r}: choose one of {', '.join(known)}")
    load_questions(path)  # a malformed file fails before the store and model load
    resources = Resources(settings)

    def run(question: str, mode: str) -> tuple[AskResult, float]:
        started = time.perf_counter()
        result = ask(settings, question, mode, resources=resources)
        return result, time.perf_counter() - started

    return evaluate(path, modes, run, chosen_provider(settings), progress)
