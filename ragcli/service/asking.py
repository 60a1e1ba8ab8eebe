"""A run over the store: `ask` (one mode on a question, a turn of a conversation),
`search` (the ranked chunks, no answer) and `compare` (every mode on one question)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from ragcli.config import Settings
from ragcli.errors import ConfigError, NoMatchError
from ragcli.pipeline.conversation import Conversation
from ragcli.pipeline.results import AskResult
from ragcli.service.conversations import new_conversation
from ragcli.service.maintenance import check_sources, refresh_stale, source_files
from ragcli.service.resources import Resources, open_store, require_chunks, require_matches
from ragcli.service.traces import save_trace
from ragcli.trace.recorder import Trace
from ragcli.wiring import (
    calibration,
    embedder,
    rerank_stage,
    retriever,
    scope_resolver,
    sentence_vectors,
    term_stats,
    trace_store,
    vector_store,
)

if TYPE_CHECKING:
    from ragcli.models import SearchFilters, SearchResult
    from ragcli.pipeline.context import RunContext


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
    files: list[str] | None = None,
) -> AskResult:
    """One run of `mode`, a turn of `conversation` (a new one when None): a follow-up is
    made standalone before retrieval. With `refresh`, the retrieved files that changed or
    vanished since they were ingested are re-ingested (or removed) first. `checkpoint` is
    consulted between stages; a run it abandons is not saved. With `files` (ingested
    paths), the question is answered over those documents whole (the documents mode)."""
    from ragcli.llm import make_llm
    from ragcli.pipeline.context import RunContext
    from ragcli.pipeline.conversation import check_length, standalone_step
    from ragcli.pipeline.modes.registry import runnable
    from ragcli.service.documents import library, whole_documents_mode
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
    if files:  # the paths are checked before anything loads
        mode, modes, records = whole_documents_mode(settings, files, collection, mode)
    store, emb_of = open_store(settings, resources, on_export)
    require_chunks(store, collection)
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
    warm = resources.reranker if resources is not None else None
    ctx = RunContext(
        settings=settings,
        retriever=search,
        llm=llm,
        trace=trace,
        web=web,
        on_token=on_token,
        rerank=rerank_stage(settings, lambda: llm, warm),
        library=library(settings, store, collection),
    )
    if files:
        ctx.documents = ctx.library.read(records) if ctx.library else []
    result = modes[mode](ctx, turn.standalone)
    result.conversation = turn
    if checkpoint is not None:
        checkpoint.check()
    if settings.support.enabled and result.answer_type in CHECKED_ANSWERS:
        check_support(settings, ctx, result, trace)
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


# Outcomes whose text is an answer drawn from the sources; the others are ragcli's own words.
CHECKED_ANSWERS = ("answer", "limited", "unverified")


def check_support(settings: Settings, ctx: RunContext, result: AskResult, trace: Trace) -> None:
    """Each claim of the answer against the sources it cites (pipeline/support.py): the
    result's `support`, and a step of the trace. An answer reflect or verify judged
    already keeps that judgement: one per sentence in a run."""
    from ragcli.answer import Answer

    answer = result.typed_answer() or Answer()  # ragcli's own words alone: nothing to check
    with trace.step("support", answer_chars=len(result.answer)) as step:
        earlier = ctx.judged_by(answer, result.sources)
        result.support = ctx.support(answer, result.sources, "support")
        if earlier:
            step.details["judged_in"] = earlier
            step.note(f"judged once, in {earlier}: the marks show that judgement")
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
        require_chunks(store, collection)
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
    from ragcli.languages.coverage import uncovered_note
    from ragcli.models import RerankReport, SearchHit, SearchResult

    if not query.strip():
        raise ConfigError("the query is empty")
    started = time.perf_counter()
    collection = collection or settings.store.collection
    top_k = top_k or settings.retrieval.top_k
    store, emb_of = open_store(settings, resources, on_export)
    require_chunks(store, collection)
    lexical = resources.lexical if resources is not None else None
    search = retriever(settings, store, emb_of(), collection, filters, lexical)
    require_matches(search, collection)
    mode = mode or search.mode
    refreshed: list = []
    if refresh:
        refreshed = refresh_stale(settings, search, query, collection, top_k)
        if refreshed:  # a fresh BM25 index: the refresh saved a new one
            search = retriever(settings, store, emb_of(), collection, filters, lexical)
    stage = _search_rerank_stage(settings, search, emb_of, resources)
    candidates = search.search(query, stage.pool(top_k), mode=mode)
    # No run budget here: the llm reranker may spend what one run of ask may.
    reranked = stage.apply(query, candidates, top_k, lambda n: n <= settings.limits.max_llm_calls)
    chunks = reranked.chunks
    return SearchResult(
        query=query,
        retriever=mode,
        collection=collection,
        top_k=top_k,
        filters=filters if filters is not None and filters.active else None,
        rerank=(
            RerankReport(
                reranker=stage.label, candidates=reranked.candidates, skipped=reranked.skipped
            )
            if stage.active
            else None
        ),
        results=[SearchHit.of(chunk, rank) for rank, chunk in enumerate(chunks, start=1)],
        stale_sources=check_sources(settings, collection, source_files(chunks)),
        refreshed_sources=refreshed,
        notes=[uncovered_note(search.embedder.name, search.uncovered)] if search.uncovered else [],
        timings_ms={"total": round((time.perf_counter() - started) * 1000, 1)},
    )


def _search_rerank_stage(settings: Settings, search, emb_of, resources: Resources | None):
    """`search`'s rerank stage; the answer model is built only for the llm reranker."""

    def answer_model():
        from ragcli.llm import make_llm

        sentences = sentence_vectors(settings, emb_of())
        return make_llm(settings, sentences, calibration(settings), term_stats(search))

    warm = resources.reranker if resources is not None else None
    return rerank_stage(settings, answer_model, warm)
