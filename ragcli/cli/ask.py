"""`ragcli ask`, `ragcli chat` and `ragcli compare`: questions answered by the modes."""

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ragcli.cli import common
from ragcli.cli.common import (
    export_notice,
    make_settings,
    print_json,
    scope_flags,
    search_filters,
    start_logging,
    write_report,
)
from ragcli.cli.options import (
    CollectionOpt,
    ConfigOpt,
    ConversationOpt,
    ExpandOpt,
    HtmlOpt,
    HydeOpt,
    JsonOpt,
    LlmOpt,
    LongCollectionOpt,
    MetaOpt,
    ModeOpt,
    PathOpt,
    SinceOpt,
    StoreOpt,
    TopKOpt,
    TypeOpt,
    VerboseOpt,
)
from ragcli.errors import ExitCode, RagcliError, exit_code_for

if TYPE_CHECKING:
    from ragcli.config import Settings
    from ragcli.models import SearchFilters


def ask(
    question: Annotated[str, typer.Argument(metavar="QUESTION", help="The question to answer.")],
    mode: ModeOpt = "standard",
    top_k: TopKOpt = None,
    hyde: HydeOpt = None,
    expand: ExpandOpt = None,
    llm: LlmOpt = None,
    max_iterations: Annotated[
        int | None,
        typer.Option(
            "--max-iterations",
            metavar="N",
            min=1,
            help="Loop rounds at most (limits.max_iterations).",
        ),
    ] = None,
    max_web_calls: Annotated[
        int | None,
        typer.Option(
            "--max-web-calls",
            metavar="N",
            min=0,
            help="Web searches at most (limits.max_web_calls).",
        ),
    ] = None,
    max_llm_calls: Annotated[
        int | None,
        typer.Option(
            "--max-llm-calls",
            metavar="N",
            min=1,
            help="Model calls at most (limits.max_llm_calls).",
        ),
    ] = None,
    collection: LongCollectionOpt = None,
    continue_latest: Annotated[
        bool,
        typer.Option(
            "--continue", "-c", help="Continue the latest conversation: a follow-up question."
        ),
    ] = False,
    conversation_id: ConversationOpt = None,
    paths: PathOpt = None,
    types: TypeOpt = None,
    since: SinceOpt = None,
    meta: MetaOpt = None,
    set_values: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="SECTION.KEY=VALUE",
            help="Override a setting for this run, e.g. --set tos.qna_threshold=0.85 (repeatable).",
        ),
    ] = None,
    files: Annotated[
        list[Path] | None,
        typer.Option(
            "--file",
            metavar="PATH",
            help="Answer over this ingested document whole (repeatable): a summary, a "
            "comparison, a question about all of it.",
        ),
    ] = None,
    as_json: JsonOpt = False,
    no_stream: Annotated[
        bool,
        typer.Option("--no-stream", help="Print the answer when complete, not as it is written."),
    ] = False,
    compare_modes: Annotated[
        bool, typer.Option("--compare", help="Run every mode on the question; one table.")
    ] = False,
    refresh: Annotated[
        bool,
        typer.Option(
            "--refresh",
            help="Re-ingest retrieved files changed since their ingest (and drop deleted "
            "ones) before answering.",
        ),
    ] = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Answer a question from the ingested documents (with --file, over whole documents).

    Exit codes: 0 answered, 3 limited or unverified, 4 clarification needed,
    5 handoff or not covered, 2 usage or configuration error, 1 failure."""
    from ragcli import service

    start_logging(verbose)
    filters = search_filters(paths, types, since, meta)
    if compare_modes and files:
        raise RagcliError(
            "--file with --compare: the modes retrieve chunks, --file reads whole documents",
            ExitCode.USAGE,
        )
    if compare_modes and (continue_latest or conversation_id):
        flag = "--continue" if continue_latest else "--conversation"
        raise RagcliError(
            f"{flag} with --compare: each mode's run would be recorded as the "
            "conversation's next turn; ask the follow-up without --compare",
            ExitCode.USAGE,
        )
    settings = make_settings(
        config,
        store,
        {
            "store.collection": collection,
            "llm.provider": llm,
            "retrieval.top_k": top_k,
            "retrieval.hyde": hyde,
            "retrieval.expand": expand,
            "limits.max_iterations": max_iterations,
            "limits.max_web_calls": max_web_calls,
            "limits.max_llm_calls": max_llm_calls,
        },
        set_values,
    )
    settings = service.with_top_k(settings, top_k)
    if compare_modes:  # the same settings as one run: --set and --max-* included
        _compare(question, settings, filters, as_json, refresh=refresh)
        return
    conversation = None
    if continue_latest or conversation_id:
        conversation = service.continue_conversation(settings, conversation_id)
    from ragcli.terminal import LiveAnswer, can_animate

    if not no_stream and not as_json and can_animate(common.console):
        with LiveAnswer(common.console) as live:
            result = service.ask(
                settings,
                question,
                mode,
                on_export=export_notice,
                on_token=live,
                refresh=refresh,
                filters=filters,
                conversation=conversation,
                files=[str(f) for f in files or []],
            )
    else:
        result = service.ask(
            settings,
            question,
            mode,
            on_export=export_notice,
            refresh=refresh,
            filters=filters,
            conversation=conversation,
            files=[str(f) for f in files or []],
        )
    usd = service.cost_of(settings, result.backend.model_dump(), result.usage.model_dump())
    if as_json:
        data = result.to_json_dict()
        if usd is not None:
            data["estimated_cost_usd"] = usd
        print_json(data)
    else:
        from ragcli.views.ask import ask_view

        trace = service.saved_trace(settings, result.trace_id)
        common.console.print(
            ask_view(result, trace, cost=usd, scope=scope_flags(config, store, collection))
        )
    code = exit_code_for(result.answer_type)
    if code != ExitCode.OK:
        raise typer.Exit(int(code))


def chat(
    mode: ModeOpt = "standard",
    collection: LongCollectionOpt = None,
    continue_latest: Annotated[
        bool, typer.Option("--continue", "-c", help="Continue the latest conversation.")
    ] = False,
    conversation_id: ConversationOpt = None,
    top_k: TopKOpt = None,
    hyde: HydeOpt = None,
    expand: ExpandOpt = None,
    llm: LlmOpt = None,
    paths: PathOpt = None,
    types: TypeOpt = None,
    since: SinceOpt = None,
    meta: MetaOpt = None,
    store: StoreOpt = None,
    config: ConfigOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Talk with your documents: follow-up questions read the conversation so far.

    Slash commands: /mode NAME, /sources, /trace, /new, /help, /exit. Ctrl-C cancels the
    answer in progress, Ctrl-D leaves."""
    from ragcli import service
    from ragcli.pipeline.modes.registry import runnable

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise RagcliError(
            "chat needs a terminal (input or output is not a TTY); "
            'for scripts use `ragcli ask "QUESTION"` and `ragcli ask -c "FOLLOW-UP"`',
            ExitCode.USAGE,
        )
    start_logging(verbose)
    filters = search_filters(paths, types, since, meta)
    flags = {"store.collection": collection, "llm.provider": llm, "retrieval.top_k": top_k}
    flags |= {"retrieval.hyde": hyde, "retrieval.expand": expand}
    settings = service.with_top_k(make_settings(config, store, flags), top_k)
    modes = runnable()
    if mode not in modes:
        raise RagcliError(f"--mode {mode!r}: choose one of {', '.join(modes)}", ExitCode.USAGE)
    conversation = None
    if continue_latest or conversation_id:
        conversation = service.continue_conversation(settings, conversation_id)
    from ragcli.chat.session import ChatLoop

    session = service.AskSession(
        settings,
        mode,
        collection=collection,
        filters=filters,
        conversation=conversation,
        on_export=export_notice,
    )
    ChatLoop(session, common.console, common.errors).run()


def compare(
    question: Annotated[str, typer.Argument(metavar="QUESTION", help="The question to answer.")],
    top_k: TopKOpt = None,
    hyde: HydeOpt = None,
    expand: ExpandOpt = None,
    llm: LlmOpt = None,
    collection: CollectionOpt = None,
    paths: PathOpt = None,
    types: TypeOpt = None,
    since: SinceOpt = None,
    meta: MetaOpt = None,
    as_json: JsonOpt = False,
    html: HtmlOpt = None,
    store: StoreOpt = None,
    config: ConfigOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Run every mode on one question and compare them in one table (same as ask --compare).

    `--html FILE` also writes every mode's run side by side on one page.
    Exits 0 when every mode produced an answer of some kind, 1 when one failed."""
    from ragcli import service

    start_logging(verbose)
    filters = search_filters(paths, types, since, meta)
    if html is not None:
        from ragcli.report import check_target

        check_target(html)  # before six runs, not after
    flags = {"store.collection": collection, "llm.provider": llm, "retrieval.top_k": top_k}
    flags |= {"retrieval.hyde": hyde, "retrieval.expand": expand}
    settings = service.with_top_k(make_settings(config, store, flags), top_k)
    _compare(question, settings, filters, as_json, html)


def _compare(
    question: str,
    settings: "Settings",
    filters: "SearchFilters",
    as_json: bool,
    html: Path | None = None,
    refresh: bool = False,
) -> None:
    from ragcli import service
    from ragcli.views.compare import compare_view

    def announce(mode: str) -> None:
        if not as_json:
            common.errors.print(f"running {mode} ...", style="dim", highlight=False)

    rows = service.compare(
        settings,
        question,
        on_export=export_notice,
        on_run=announce,
        filters=filters,
        refresh=refresh,
    )
    print_json(rows) if as_json else common.console.print(compare_view(question, rows))
    if html is not None:
        ids = [row["trace_id"] for row in rows if row.get("trace_id")]
        traces = [t for t in (service.saved_trace(settings, i) for i in ids) if t is not None]
        if traces:
            write_report(html, traces, as_json, to_stderr=True)
    if any(row.get("error") for row in rows):
        raise typer.Exit(int(ExitCode.FAILURE))
