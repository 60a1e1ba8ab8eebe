"""The command line: parse options, call the service layer, hand the result to a view.

Nothing here decides anything about the store or a mode. A `RagcliError` raised by any
command is printed once, as one line, by `RagcliGroup`, and ends in its exit code."""

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperArgument, TyperGroup

from ragcli import __version__
from ragcli.completion import complete_collection, complete_mode, complete_retriever
from ragcli.errors import ExitCode, RagcliError, exit_code_for
from ragcli.pipeline.modes.registry import AUTO, CHOICES, MODE_NAMES

if TYPE_CHECKING:
    from rich.console import Console

    from ragcli.config import Settings
    from ragcli.ingest.runner import Ingestor, IngestReport
    from ragcli.models import SearchFilters


class RagcliGroup(TyperGroup):
    """Turns a domain error into its message and exit code, for every command and for
    tests that drive the app with CliRunner; commands list in the order people use them."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except RagcliError as error:
            from rich.markup import escape

            errors.print(f"[red]error:[/] {escape(str(error))}", highlight=False, soft_wrap=True)
            raise typer.Exit(int(error.exit_code)) from None


# Typer labels each argument in --help with its Python type (`QUESTION <str>`,
# `PATH... <list[Path]>`); the metavar alone is the convention.
TyperArgument.display_type_rich = lambda self, ctx: None  # type: ignore[method-assign]

app = typer.Typer(
    name="ragcli",
    cls=RagcliGroup,
    help="Retrieval-augmented answers from your own files.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    # Plain Click help: conventional metavars, and --help starts without Rich's Markdown.
    rich_markup_mode=None,
)

# Made by main_options, which runs before any command: `--help` never loads Rich's console.
console: "Console"
errors: "Console"

# -- options shared by several commands, declared once ------------------------------------

ConfigOpt = Annotated[
    Path | None,
    typer.Option("--config", metavar="FILE", help="Configuration file (default ./config.yaml)."),
]
StoreOpt = Annotated[
    Path | None,
    typer.Option(
        "--store",
        metavar="DIR",
        help="Store directory (default .ragcli).",
        envvar="RAGCLI_STORE",
        show_envvar=True,
    ),
]
CollectionOpt = Annotated[
    str | None,
    typer.Option(
        "--collection",
        "-c",
        metavar="NAME",
        help="Collection (default: store.collection).",
        autocompletion=complete_collection,
    ),
]
# `ask` and `chat` give -c to --continue, as `llm -c` does: the collection is long-only there.
LongCollectionOpt = Annotated[
    str | None,
    typer.Option(
        "--collection",
        metavar="NAME",
        help="Collection (default: store.collection).",
        autocompletion=complete_collection,
    ),
]
ModeOpt = Annotated[
    str,
    typer.Option(
        "--mode",
        "-m",
        metavar="MODE",
        autocompletion=complete_mode,
        help=f"One of: {', '.join(MODE_NAMES)}; {AUTO} picks one per question.",
    ),
]
TopKOpt = Annotated[
    int | None,
    typer.Option("--top-k", "-k", metavar="N", min=1, max=100, help="Chunks to retrieve."),
]
LlmOpt = Annotated[
    str | None,
    typer.Option("--llm", metavar="NAME", help="Model backend: auto, openai or extractive."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
HtmlOpt = Annotated[
    Path | None,
    typer.Option(
        "--html",
        metavar="FILE",
        help="Write the run(s) as one HTML page: answer, the route drawn, steps, chunks.",
        show_default=False,
    ),
]
VerboseOpt = Annotated[bool, typer.Option("--verbose", "-v", help="Log each step.")]
PathOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--path",
        metavar="GLOB",
        help="Only files matching GLOB, gitignore style: 'docs/*.md', '*.pdf' (repeatable).",
    ),
]
TypeOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--type", metavar="TYPE", help="Only files of TYPE: pdf, md, txt ... (repeatable)."
    ),
]
SinceOpt = Annotated[
    str | None,
    typer.Option(
        "--since", metavar="DATE", help="Only files modified since DATE: 2024-05-01, 36h, 7d, 2w."
    ),
]


PROGRESS_LINE_SECONDS = 5.0  # between plain progress lines when stderr is not a terminal

# The flag behind each setting a command line can set, so an error names it.
FLAG_NAMES = {
    "store.path": "--store",
    "store.collection": "--collection",
    "llm.provider": "--llm",
    "retrieval.top_k": "--top-k",
    "limits.max_iterations": "--max-iterations",
    "limits.max_web_calls": "--max-web-calls",
    "limits.max_llm_calls": "--max-llm-calls",
    "serve.host": "--host",
    "serve.port": "--port",
}


def _settings(
    config: Path | None,
    store: Path | None,
    flags: dict[str, Any] | None = None,
    assignments: list[str] | None = None,
) -> "Settings":
    """Settings with the command line on top; named flags win over --set for one key."""
    from ragcli.config import load_settings

    overrides: dict[str, Any] = {}
    if assignments:
        from ragcli.overrides import parse_assignments

        overrides.update(parse_assignments(assignments))
    values = {"store.path": store and str(store), **(flags or {})}
    named = {k: v for k, v in values.items() if v is not None}
    overrides.update(named)
    names = {key: FLAG_NAMES.get(key, key) for key in named}
    return load_settings(config, overrides, override_names=names)


def _logging(verbose: bool) -> None:
    import logging

    if verbose:
        from rich.logging import RichHandler

        handler = RichHandler(console=errors, show_time=False, show_path=False)
        logging.basicConfig(level=logging.INFO, handlers=[handler], format="%(message)s")
        logging.getLogger("ragcli").setLevel(logging.INFO)
    else:
        logging.basicConfig(level=logging.WARNING, format="warning: %(message)s")
    # pypdf warns about each malformed PDF it meets; the ingest report says it once.
    logging.getLogger("pypdf").setLevel(logging.ERROR)


def _filters(paths: list[str] | None, types: list[str] | None, since: str | None):
    from ragcli.retrieval.filters import make_filters

    return make_filters(paths, types, since)


def _scope_flags(config: Path | None, store: Path | None, collection: str | None) -> str:
    """The options that chose the store, as typed, for a command we suggest to run next."""
    import shlex

    named = [("--config", config), ("--store", store), ("--collection", collection)]
    return " ".join(f"{flag} {shlex.quote(str(value))}" for flag, value in named if value)


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _export_notice(message: str) -> None:
    errors.print(f"[dim]{message}[/]")


def _version(value: bool) -> None:
    if value:
        print(f"ragcli {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """Retrieval-augmented answers from your own files."""
    from ragcli.terminal import make_console

    global console, errors
    console, errors = make_console(), make_console(stderr=True)


# -- ingest, ask ----------------------------------------------------------------------------


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(metavar="PATH", help="Files or folders.")],
    collection: CollectionOpt = None,
    prune: Annotated[
        bool,
        typer.Option("--prune", help="Remove chunks of files under PATHS that no longer exist."),
    ] = False,
    show_skipped: Annotated[
        bool,
        typer.Option(
            "--show-skipped", help="List files skipped or failing as in the last run, too."
        ),
    ] = False,
    watch: Annotated[
        bool,
        typer.Option(
            "--watch",
            help="Then keep the store in step with PATHS as files change (implies --prune); "
            "Ctrl-C stops.",
        ),
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress display, only the summary.")
    ] = False,
    as_json: JsonOpt = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Load files into the store, incrementally: unchanged files cost nothing."""
    from ragcli import service
    from ragcli.store.collections import check_collection_name
    from ragcli.views.ingest import ingest_view

    _logging(verbose)
    settings = _settings(config, store, {"store.collection": collection})
    check_collection_name(settings.store.collection)
    ingestor = service.ingestor(settings, on_export=_export_notice)
    prune = prune or watch  # watching, the store follows the tree: deletions included
    collection_name = settings.store.collection
    report = _ingest_until_stopped(ingestor, paths, collection_name, prune, as_json, quiet)
    data = report.to_dict()
    _print_json(data) if as_json else console.print(ingest_view(data, show_skipped))
    if watch:
        _watch(ingestor, paths, settings.store.collection, as_json)
        return
    if report.new_failures():  # a file failing as in the last run was said then
        raise typer.Exit(int(ExitCode.LIMITED))


def _ingest_until_stopped(
    ingestor: "Ingestor",
    paths: list[Path],
    collection: str,
    prune: bool,
    as_json: bool,
    quiet: bool = False,
) -> "IngestReport":
    """The ingest, which Ctrl-C or SIGTERM stops after the write in progress and one
    write of the files already embedded: what was written stays, the rest is said, and
    the process exits 130."""
    from ragcli.ingest.cancel import IngestInterrupted, SignalStop
    from ragcli.views.format import plural

    def said(first: bool) -> None:
        if first:
            errors.print("stopping: storing the files already embedded …", style="dim")
        else:
            errors.print("still stopping: the write in progress finishes first", style="dim")

    from ragcli.terminal import can_animate

    try:
        with SignalStop(ingestor.stop, said):
            if quiet:
                return ingestor.run(paths, collection, prune=prune)
            if can_animate(errors):
                return _ingest_with_progress(ingestor, paths, collection, prune)
            return _ingest_with_lines(ingestor, paths, collection, prune)
    except IngestInterrupted as stopped:
        report = stopped.report
        if as_json:
            _print_json(report.to_dict())
        errors.print(
            f"interrupted: {plural(report.stored(), 'file')} stored, {stopped.left} left; "
            "run the same command to finish",
            style="yellow",
        )
        _exit_now(ExitCode.INTERRUPTED)
        raise  # unreachable: _exit_now leaves


def _exit_now(code: int) -> None:
    """Leave with `code` at once. A worker may still be inside onnxruntime, embedding a
    batch nobody will write: waiting for it would take seconds, and tearing the interpreter
    down around it aborts the process, so the process ends without either."""
    import os
    import threading

    sys.stdout.flush()
    sys.stderr.flush()
    if any(t.name.startswith("ragcli-embed") and t.is_alive() for t in threading.enumerate()):
        os._exit(int(code))
    raise typer.Exit(int(code))


def _watch(ingestor: "Ingestor", paths: list[Path], collection: str, as_json: bool) -> None:
    """`ingest --watch`: one line per applied change (a JSON object per line with --json)
    until Ctrl-C, which stops after the write in progress."""
    import json
    from dataclasses import asdict
    from datetime import datetime

    from ragcli.ingest.watch import AppliedChange, Watcher, watch_until_interrupted
    from ragcli.views.format import display_path
    from ragcli.views.ingest import watch_line

    def show(change: AppliedChange) -> None:
        if as_json:
            print(json.dumps(asdict(change)), flush=True)
        else:
            console.print(watch_line(change, datetime.now().strftime("%H:%M:%S")))

    def stopping(writing: bool) -> None:
        after = " after the write in progress" if writing else ""
        errors.print(f"stopping{after} (Ctrl-C again stops at once)", style="dim")

    where = ", ".join(display_path(str(p)) for p in paths)

    def ready() -> None:
        errors.print(f"watching {where} for changes · Ctrl-C stops", style="dim")

    watcher = Watcher(ingestor, paths, collection, show, on_ready=ready)
    watch_until_interrupted(watcher, stopping)
    errors.print("stopped watching", style="dim")


def _activity(ingestor: "Ingestor") -> dict[str, Any]:
    now = ingestor.activity
    return {
        "files_done": now.files_done,
        "files_total": now.files_total,
        "chunks": now.chunks,
        "rate": now.rate(),
        "eta": now.eta(),
        "current": now.current,
    }


def _ingest_with_progress(
    ingestor: "Ingestor", paths: list[Path], collection: str, prune: bool
) -> "IngestReport":
    from rich.progress import BarColumn, Progress

    from ragcli.ingest.loaders import ocr
    from ragcli.views.ingest import ActivityColumn, OcrColumn

    def reading() -> tuple[str, int, int] | None:
        now = ocr.activity
        return None if now is None else (now.file, now.page, now.pages)

    now = lambda: _activity(ingestor)  # noqa: E731
    with Progress(
        BarColumn(bar_width=10),
        ActivityColumn(now),
        OcrColumn(reading),
        console=errors,
        transient=True,
    ) as progress:
        task = progress.add_task("ingest", total=None)

        def update(done: int, total: int, chunks: int) -> None:
            now = ingestor.activity
            progress.update(task, completed=now.files_done, total=now.files_total)

        return ingestor.run(paths, collection, prune=prune, progress=update)


def _ingest_with_lines(
    ingestor: "Ingestor", paths: list[Path], collection: str, prune: bool
) -> "IngestReport":
    """Not a terminal (a log, CI): a plain progress line on stderr every few seconds."""
    import threading

    from ragcli.views.ingest import progress_line

    done = threading.Event()

    def tick() -> None:
        while not done.wait(PROGRESS_LINE_SECONDS):
            print(f"ingest: {progress_line(_activity(ingestor))}", file=sys.stderr, flush=True)

    ticker = threading.Thread(target=tick, name="progress-lines", daemon=True)
    ticker.start()
    try:
        return ingestor.run(paths, collection, prune=prune)
    finally:
        done.set()


@app.command()
def ask(
    question: Annotated[str, typer.Argument(metavar="QUESTION", help="The question to answer.")],
    mode: ModeOpt = "standard",
    top_k: TopKOpt = None,
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
    conversation_id: Annotated[
        str | None,
        typer.Option(
            "--conversation", metavar="ID", help="Continue conversation ID (a prefix is enough)."
        ),
    ] = None,
    paths: PathOpt = None,
    types: TypeOpt = None,
    since: SinceOpt = None,
    set_values: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="SECTION.KEY=VALUE",
            help="Override a setting for this run, e.g. --set tos.qna_threshold=0.85 (repeatable).",
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
    """Answer a question from the ingested documents.

    Exit codes: 0 answered, 3 limited or unverified, 4 clarification needed,
    5 handoff or not covered, 2 usage or configuration error, 1 failure."""
    from ragcli import service

    _logging(verbose)
    filters = _filters(paths, types, since)
    if compare_modes and (continue_latest or conversation_id):
        flag = "--continue" if continue_latest else "--conversation"
        raise RagcliError(
            f"{flag} with --compare: each mode's run would be recorded as the "
            "conversation's next turn; ask the follow-up without --compare",
            ExitCode.USAGE,
        )
    settings = _settings(
        config,
        store,
        {
            "store.collection": collection,
            "llm.provider": llm,
            "retrieval.top_k": top_k,
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

    if not no_stream and not as_json and can_animate(console):
        with LiveAnswer(console) as live:
            result = service.ask(
                settings,
                question,
                mode,
                on_export=_export_notice,
                on_token=live,
                refresh=refresh,
                filters=filters,
                conversation=conversation,
            )
    else:
        result = service.ask(
            settings,
            question,
            mode,
            on_export=_export_notice,
            refresh=refresh,
            filters=filters,
            conversation=conversation,
        )
    usd = service.cost_of(settings, result.backend.model_dump(), result.usage.model_dump())
    if as_json:
        data = result.to_json_dict()
        if usd is not None:
            data["estimated_cost_usd"] = usd
        _print_json(data)
    else:
        from ragcli.views.ask import ask_view

        trace = service.saved_trace(settings, result.trace_id)
        console.print(
            ask_view(result, trace, cost=usd, scope=_scope_flags(config, store, collection))
        )
    code = exit_code_for(result.answer_type)
    if code != ExitCode.OK:
        raise typer.Exit(int(code))


@app.command()
def chat(
    mode: ModeOpt = "standard",
    collection: LongCollectionOpt = None,
    continue_latest: Annotated[
        bool, typer.Option("--continue", "-c", help="Continue the latest conversation.")
    ] = False,
    conversation_id: Annotated[
        str | None,
        typer.Option(
            "--conversation", metavar="ID", help="Continue conversation ID (a prefix is enough)."
        ),
    ] = None,
    top_k: TopKOpt = None,
    llm: LlmOpt = None,
    paths: PathOpt = None,
    types: TypeOpt = None,
    since: SinceOpt = None,
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
    _logging(verbose)
    filters = _filters(paths, types, since)
    settings = _settings(
        config,
        store,
        {"store.collection": collection, "llm.provider": llm, "retrieval.top_k": top_k},
    )
    settings = service.with_top_k(settings, top_k)
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
        on_export=_export_notice,
    )
    ChatLoop(session, console, errors).run()


@app.command()
def search(
    query: Annotated[str, typer.Argument(metavar="QUERY", help="What to look for.")],
    top_k: TopKOpt = None,
    retriever: Annotated[
        str | None,
        typer.Option(
            "--retriever",
            "-r",
            metavar="NAME",
            autocompletion=complete_retriever,
            help="dense, bm25 or hybrid (default: retrieval.mode).",
        ),
    ] = None,
    paths: PathOpt = None,
    types: TypeOpt = None,
    since: SinceOpt = None,
    collection: CollectionOpt = None,
    as_json: JsonOpt = False,
    as_jsonl: Annotated[bool, typer.Option("--jsonl", help="Print one JSON chunk a line.")] = False,
    files_only: Annotated[
        bool, typer.Option("--files", help="Print only the distinct files, best first.")
    ] = False,
    refresh: Annotated[
        bool,
        typer.Option(
            "--refresh",
            help="Re-ingest found files changed since their ingest (and drop deleted ones) "
            "before searching.",
        ),
    ] = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Show the chunks that best match QUERY, with their scores; no answer, no model call.

    Exits 0 with results, 5 when nothing matches (or a filter admits no file)."""
    from ragcli import service
    from ragcli.retrieval.retriever import MODES as RETRIEVERS
    from ragcli.views.search import files_view, search_view, stale_notes

    _logging(verbose)
    if sum([as_json, as_jsonl, files_only]) > 1:
        raise RagcliError("choose one of --json, --jsonl and --files", ExitCode.USAGE)
    if retriever is not None and retriever not in RETRIEVERS:
        raise RagcliError(
            f"--retriever {retriever!r}: choose from {', '.join(RETRIEVERS)}", ExitCode.USAGE
        )
    filters = _filters(paths, types, since)
    settings = _settings(config, store, {"store.collection": collection, "retrieval.top_k": top_k})
    result = service.search(
        settings, query, top_k, retriever, filters, on_export=_export_notice, refresh=refresh
    )
    scope = _scope_flags(config, store, collection)
    plain = not console.is_terminal  # piped: one chunk a line, never cut at 80 columns
    if as_json:
        _print_json(result.to_json_dict())
    elif as_jsonl:
        for hit in result.results:
            sys.stdout.write(hit.model_dump_json() + "\n")
    elif files_only:
        sys.stdout.write(str(files_view(result)))
    else:
        console.print(search_view(result, plain=plain, scope=scope), soft_wrap=plain)
    if as_json or as_jsonl or files_only or plain:  # stdout is data: the warning goes aside
        for note in stale_notes(result, scope):
            errors.print(note, soft_wrap=True)
    if not result.results:
        raise typer.Exit(int(ExitCode.NOT_COVERED))


@app.command()
def serve(
    http: Annotated[
        bool, typer.Option("--http", help="Serve streamable HTTP instead of stdio.")
    ] = False,
    host: Annotated[
        str | None,
        typer.Option(
            "--host",
            metavar="HOST",
            help="With --http: the address to bind (default 127.0.0.1; others need a token).",
        ),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(
            "--port", metavar="PORT", min=1, max=65535, help="With --http: the port (default 8765)."
        ),
    ] = None,
    collection: CollectionOpt = None,
    store: StoreOpt = None,
    config: ConfigOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Serve the store to agents over MCP: the tools search, ask, sources and trace.

    stdio by default (what desktop clients launch); --http serves http://HOST:PORT/mcp.
    Read-only: no tool ingests or deletes. Ctrl-C stops it."""
    from ragcli import serve as server

    _logging(verbose)
    if (host or port) and not http:
        raise RagcliError("--host and --port go with --http", ExitCode.USAGE)
    settings = _settings(
        config,
        store,
        {"store.collection": collection, "serve.host": host, "serve.port": port},
    )
    try:
        server.run(settings, http=http, host=host, port=port, announce=_export_notice)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None


# -- trace, status, sources, rm -------------------------------------------------------------


@app.command()
def trace(
    trace_id: Annotated[
        str | None,
        typer.Argument(metavar="ID", help="Run id (a prefix is enough), or `diff A B`."),
    ] = None,
    more_ids: Annotated[
        list[str] | None,
        typer.Argument(metavar="A B", help="With `diff`: the two run ids.", show_default=False),
    ] = None,
    list_runs: Annotated[bool, typer.Option("--list", help="List recent runs.")] = False,
    show_all: Annotated[
        bool, typer.Option("--all", "-a", help="Also show every threshold in force.")
    ] = False,
    search: Annotated[
        str | None,
        typer.Option(
            "--search", "-s", metavar="TEXT", help="List runs whose question or answer has TEXT."
        ),
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", "-n", metavar="N", help="How many runs --list shows.")
    ] = 20,
    conversation_id: Annotated[
        str | None,
        typer.Option(
            "--conversation", metavar="ID", help="List a conversation's turns (a prefix is enough)."
        ),
    ] = None,
    as_json: JsonOpt = False,
    html: HtmlOpt = None,
    store: StoreOpt = None,
    config: ConfigOpt = None,
) -> None:
    """Show how a run was made: every score, threshold, route and iteration.

    `ragcli trace diff A B` puts two runs' steps side by side and marks what differs.
    `--html FILE` writes the run (or both runs of a diff) as one page that draws the route."""
    from ragcli import service
    from ragcli.views import trace as views

    settings = _settings(config, store)
    if html is not None and (list_runs or search is not None or conversation_id is not None):
        raise RagcliError("--html draws a run or a diff, not a list of runs", ExitCode.USAGE)
    if trace_id == "diff" or more_ids:
        if trace_id != "diff" or len(more_ids or []) != 2:
            raise RagcliError("compare two runs with `ragcli trace diff ID_A ID_B`", ExitCode.USAGE)
        from ragcli.trace.diff import diff_traces

        first, second = (more_ids or [])[:2]
        pair = [service.find_trace(settings, first), service.find_trace(settings, second)]
        if html is not None:
            _write_report(html, pair, as_json)
            return
        data = diff_traces(*pair)
        _print_json(data) if as_json else console.print(views.trace_diff_view(data))
        return
    traces = service.trace_store(settings)
    if conversation_id is not None:
        conversation = service.continue_conversation(settings, conversation_id)
        turns = traces.conversation(conversation.id)
        if as_json:
            _print_json([views.turn_row(t) for t in turns])
        else:
            console.print(views.conversation_view(conversation.id, turns))
        return
    if search is not None:
        if not search.strip():
            raise RagcliError("--search: give some text to look for", ExitCode.USAGE)
        rows = traces.search(search, limit)
        if as_json:
            _print_json(rows)
        elif rows:
            console.print(views.trace_search_view(search, rows))
        else:
            console.print(f"no run's question or answer contains {search!r}", highlight=False)
        return
    if list_runs:
        rows = traces.recent(limit)
        _print_json(rows) if as_json else console.print(views.trace_list(rows))
        return
    record = service.find_trace(settings, trace_id)
    if html is not None:
        _write_report(html, [record], as_json)
        return
    if as_json:
        _print_json(record.to_dict())
    else:
        usd = service.cost_of(settings, record.backend, record.usage())
        console.print(views.trace_view(record, cost=usd, full=show_all))


def _write_report(path: Path, traces: list, as_json: bool, to_stderr: bool = False) -> None:
    """The page for `traces`; one line says where it went (JSON with --json)."""
    from ragcli.report import check_target
    from ragcli.report.page import write

    check_target(path)
    write(traces, path)
    if as_json and not to_stderr:
        _print_json({"html": str(path), "runs": [t.id for t in traces]})
        return
    if len(traces) <= 2:
        runs = ", ".join(f"{t.id} ({t.mode})" for t in traces)
    else:  # a compare: the modes say enough, the ids are on the page
        runs = f"{len(traces)} runs ({', '.join(t.mode for t in traces)})"
    line = f"report written to {path}: {runs}"
    (errors if to_stderr or as_json else console).print(line, highlight=False, soft_wrap=True)


@app.command()
def status(as_json: JsonOpt = False, store: StoreOpt = None, config: ConfigOpt = None) -> None:
    """The store, its collections, and the model, embedder and web search in force."""
    from ragcli import service
    from ragcli.views.status import status_view

    data = service.status(_settings(config, store))
    _print_json(data) if as_json else console.print(status_view(data))


@app.command()
def sources(
    collection: CollectionOpt = None,
    as_json: JsonOpt = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
) -> None:
    """List the ingested files: chunks, pages, content hash and ingest time."""
    from dataclasses import asdict

    from ragcli import service
    from ragcli.views.sources import sources_view

    rows = [asdict(r) for r in service.ingested_files(_settings(config, store), collection)]
    if as_json:
        _print_json(rows)
    elif rows:
        plain = not console.is_terminal  # piped: one file a line, never cut at 80 columns
        console.print(sources_view(rows, collection, plain=plain), soft_wrap=plain)
    else:
        where = f"collection {collection!r}" if collection else "the store"
        console.print(f"no files ingested in {where}", highlight=False)


@app.command()
def sync(
    collection: CollectionOpt = None,
    as_json: JsonOpt = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
) -> None:
    """Bring this machine's keyword (BM25) index of a shared collection up to date.

    A machine's first ask against a large collection on a Chroma server starts this in the
    background and answers from the dense retriever meanwhile; run it to wait for it."""
    from dataclasses import asdict

    from ragcli import service

    with errors.status("reading the collection's texts from the server …"):
        synced = service.sync(_settings(config, store), collection)
    if as_json:
        _print_json(asdict(synced))
        return
    console.print(
        f"collection {synced.collection!r}: the keyword index holds {synced.chunks:,} chunks "
        f"(+{synced.added:,} −{synced.removed:,}) in {synced.seconds:.1f} s",
        highlight=False,
    )


@app.command("rm")
def remove(
    paths: Annotated[
        list[Path],
        typer.Argument(metavar="PATH", help="Ingested files or folders (may be gone from disk)."),
    ],
    collection: CollectionOpt = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", "-n", help="List what would be removed; remove nothing.")
    ] = False,
    as_json: JsonOpt = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
) -> None:
    """Remove files' chunks from the store: vectors, lexical index and manifest.

    A folder removes every ingested file under it. A path that matches no ingested file is
    an error (exit 2) and nothing is removed."""
    from ragcli import service
    from ragcli.views.rm import removal_view

    settings = _settings(config, store, {"store.collection": collection})
    data = service.remove(settings, paths, dry_run).to_dict()
    _print_json(data) if as_json else console.print(removal_view(data))


# -- compare, eval, calibrate, config, schema ---------------------------------------------


@app.command()
def compare(
    question: Annotated[str, typer.Argument(metavar="QUESTION", help="The question to answer.")],
    top_k: TopKOpt = None,
    llm: LlmOpt = None,
    collection: CollectionOpt = None,
    paths: PathOpt = None,
    types: TypeOpt = None,
    since: SinceOpt = None,
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

    _logging(verbose)
    filters = _filters(paths, types, since)
    if html is not None:
        from ragcli.report import check_target

        check_target(html)  # before six runs, not after
    flags = {"store.collection": collection, "llm.provider": llm, "retrieval.top_k": top_k}
    settings = service.with_top_k(_settings(config, store, flags), top_k)
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
            errors.print(f"running {mode} ...", style="dim", highlight=False)

    rows = service.compare(
        settings,
        question,
        on_export=_export_notice,
        on_run=announce,
        filters=filters,
        refresh=refresh,
    )
    _print_json(rows) if as_json else console.print(compare_view(question, rows))
    if html is not None:
        ids = [row["trace_id"] for row in rows if row.get("trace_id")]
        traces = [t for t in (service.saved_trace(settings, i) for i in ids) if t is not None]
        if traces:
            _write_report(html, traces, as_json, to_stderr=True)
    if any(row.get("error") for row in rows):
        raise typer.Exit(int(ExitCode.FAILURE))


@app.command("eval")
def evaluate(
    dataset_dir: Annotated[
        Path,
        typer.Argument(
            metavar="DIR|FILE",
            help="BEIR dataset (corpus.jsonl[.gz], queries.jsonl, qrels/), or a labelled "
            "question file (YAML, JSON, JSON Lines) to run the modes on.",
        ),
    ],
    retriever: Annotated[
        list[str] | None,
        typer.Option(
            "--retriever",
            "-r",
            metavar="NAME",
            autocompletion=complete_retriever,
            help="dense, bm25 or hybrid; repeat for several (default: all).",
        ),
    ] = None,
    split: Annotated[
        str, typer.Option("--split", metavar="NAME", help="The qrels/NAME.tsv to score.")
    ] = "test",
    collection: Annotated[
        str | None,
        typer.Option(
            "--collection",
            "-c",
            metavar="NAME",
            help="Collection (default eval-DIRNAME).",
            autocompletion=complete_collection,
        ),
    ] = None,
    baseline: Annotated[
        Path | None,
        typer.Option(
            "--baseline",
            metavar="FILE",
            help="An earlier `eval --json`: exit 7 when nDCG@10 or Recall@10 drops.",
        ),
    ] = None,
    tolerance: Annotated[
        float,
        typer.Option("--tolerance", metavar="X", min=0.0, help="The drop allowed (0..1)."),
    ] = 0.01,
    folds: Annotated[
        int | None,
        typer.Option(
            "--folds",
            metavar="K",
            min=2,
            help="Also nDCG@10 and Recall@10 on K folds of the queries: their mean and spread.",
        ),
    ] = None,
    modes: Annotated[
        list[str] | None,
        typer.Option(
            "--mode",
            "-m",
            metavar="MODE",
            autocompletion=complete_mode,
            help="With a question file: the modes to run (repeatable; default all, and auto).",
        ),
    ] = None,
    as_json: JsonOpt = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Score retrieval on a BEIR dataset, or every mode on a labelled question file.

    On a BEIR dataset: nDCG@10, Recall@10, Recall@100, MRR@10. With --baseline, a
    quality gate for CI: exits 7 when a retriever's nDCG@10 or Recall@10 is more than
    --tolerance below the baseline's.

    Given a labelled question file instead, runs each mode on its questions over the
    store and scores answered, limited, missed and declined against the labels, and the
    expected evidence found in the answers."""
    import functools

    from ragcli import service
    from ragcli.views.eval import eval_view

    _logging(verbose)
    if dataset_dir.is_file():
        _eval_questions(dataset_dir, modes, collection, as_json, store, config)
        return
    if modes:
        raise RagcliError("--mode applies to a question file, not a BEIR dataset", ExitCode.USAGE)
    settings = _settings(config, store)
    run = functools.partial(
        service.eval_dataset,
        settings,
        dataset_dir,
        retriever,
        split,
        collection,
        folds,
        baseline=baseline,
        tolerance=tolerance,
    )
    data, passed = _with_eval_progress(run) if console.is_terminal and not as_json else run()
    _print_json(data) if as_json else console.print(eval_view(data))
    if not passed:
        raise typer.Exit(int(ExitCode.REGRESSION))


def _eval_questions(
    path: Path,
    modes: list[str] | None,
    collection: str | None,
    as_json: bool,
    store: Path | None,
    config: Path | None,
) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ragcli import service
    from ragcli.views.eval_questions import eval_questions_view

    settings = _settings(config, store, {"store.collection": collection})
    chosen = list(dict.fromkeys(modes or CHOICES))
    if not console.is_terminal or as_json:
        report = service.eval_questions(settings, path, chosen)
    else:
        with Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        ) as progress:
            tasks: dict[str, Any] = {}

            def update(mode: str, done: int, total: int) -> None:
                if mode not in tasks:
                    tasks[mode] = progress.add_task(f"questions · {mode}", total=total)
                progress.update(tasks[mode], completed=done, total=total)

            report = service.eval_questions(settings, path, chosen, update)
    if as_json:
        _print_json(report.model_dump(mode="json"))
    else:
        console.print(eval_questions_view(report))


def _with_eval_progress(run: Any) -> Any:
    """`run(progress=...)` under `ragcli eval DIR`'s bars: the corpus ingest, then each
    retriever's queries."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as progress:
        tasks: dict[str, Any] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                label = "ingest corpus" if stage == "ingest" else f"queries · {stage}"
                tasks[stage] = progress.add_task(label, total=total)
            progress.update(tasks[stage], completed=done, total=total)

        return run(progress=update)


@app.command()
def calibrate(
    labelled_file: Annotated[
        Path,
        typer.Argument(
            metavar="FILE", help="YAML/JSON/JSONL of {question, source}; no source = unanswerable."
        ),
    ],
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Report the fit without saving it in the store.")
    ] = False,
    collection: CollectionOpt = None,
    as_json: JsonOpt = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
) -> None:
    """Fit the extractive relevance calibration on your own labelled questions."""
    from ragcli import service
    from ragcli.views.eval import calibration_view

    settings = _settings(config, store, {"store.collection": collection})
    report = service.calibrate(settings, labelled_file, save=not dry_run)
    _print_json(report) if as_json else console.print(calibration_view(report))


@app.command("config")
def show_config(as_json: JsonOpt = False, store: StoreOpt = None, config: ConfigOpt = None) -> None:
    """Print the configuration in force (secrets redacted)."""
    data = _settings(config, store).redacted()
    if as_json:
        _print_json(data)
    else:
        import yaml

        sys.stdout.write(yaml.safe_dump(data, sort_keys=False))


@app.command()
def schema() -> None:
    """Print the JSON Schema of `ragcli ask --json` (and of a trace's result)."""
    from ragcli.pipeline.results import json_schema

    _print_json(json_schema())


def main() -> None:
    try:
        app()
    except Exception as exc:  # a bug, not a user error: still one line, unless asked for more
        if os.environ.get("RAGCLI_DEBUG"):
            raise
        from rich.markup import escape

        from ragcli.terminal import make_console

        make_console(stderr=True).print(
            f"[red]error:[/] unexpected {type(exc).__name__}: {escape(str(exc))[:300]} "
            "(set RAGCLI_DEBUG=1 for the traceback)",
            highlight=False,
            soft_wrap=True,
        )
        sys.exit(int(ExitCode.FAILURE))
