"""The command line: parse options, call the service layer, render the result.

Domain errors are printed once as one line and end in `typer.Exit(code)`."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from ragcli import __version__
from ragcli.errors import ExitCode, RagcliError, exit_code_for
from ragcli.terminal import can_animate, make_console

app = typer.Typer(
    name="ragcli",
    help="Retrieval-augmented answers from your own files.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)

console = Console()
errors = Console(stderr=True)
NoStreamOpt = Annotated[
    bool,
    typer.Option("--no-stream", help="Print the answer when it is complete, not as it is written."),
]

ConfigOpt = Annotated[
    Path | None, typer.Option("--config", help="Configuration file (default ./config.yaml).")
]
StoreOpt = Annotated[
    Path | None,
    typer.Option(
        "--store",
        help="Store directory (default .ragcli).",
        envvar="RAGCLI_STORE",
        show_envvar=True,
    ),
]
CollectionOpt = Annotated[
    str | None, typer.Option("--collection", "-c", help="Collection (default: store.collection).")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
VerboseOpt = Annotated[bool, typer.Option("--verbose", "-v", help="Log each step.")]

MODE_NAMES = ("standard", "crag", "reflect", "both", "tos", "agentic")


def _settings(config: Path | None, overrides: dict[str, Any], assignments: list[str] | None = None):
    from ragcli.config import load_settings

    if assignments:
        from ragcli.overrides import parse_assignments

        # Named flags win over --set for the same key.
        merged = parse_assignments(assignments)
        merged.update({k: v for k, v in overrides.items() if v is not None})
        overrides = merged
    return load_settings(config, overrides)


def _fail(error: RagcliError) -> typer.Exit:
    errors.print(f"[red]error:[/] {error}", highlight=False, markup=True, soft_wrap=True)
    return typer.Exit(int(error.exit_code))


def _logging(verbose: bool) -> None:
    if verbose:
        from rich.logging import RichHandler

        handler = RichHandler(console=errors, show_time=False, show_path=False)
        logging.basicConfig(level=logging.INFO, handlers=[handler], format="%(message)s")
        logging.getLogger("ragcli").setLevel(logging.INFO)
    else:
        logging.basicConfig(level=logging.WARNING, format="warning: %(message)s")


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _export_notice(message: str) -> None:
    errors.print(f"[dim]{message}[/]")


def _version(value: bool) -> None:
    if value:
        console.print(f"ragcli {__version__}")
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
    global console, errors
    console, errors = make_console(), make_console(stderr=True)


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders to ingest.")],
    collection: CollectionOpt = None,
    prune: Annotated[
        bool,
        typer.Option("--prune", help="Remove chunks of files under PATHS that no longer exist."),
    ] = False,
    as_json: JsonOpt = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Load files into the store, incrementally: unchanged files cost nothing."""
    from ragcli import service
    from ragcli import render

    _logging(verbose)
    try:
        settings = _settings(
            config, {"store.path": store and str(store), "store.collection": collection}
        )
        from ragcli.store.vectors import check_collection_name

        check_collection_name(settings.store.collection)
        ingestor = service.ingestor(settings, on_export=_export_notice)
        if can_animate(console) and not as_json:
            report = _ingest_with_progress(ingestor, paths, settings.store.collection, prune)
        else:
            report = ingestor.run(paths, settings.store.collection, prune=prune)
    except RagcliError as error:
        raise _fail(error) from None
    data = report.to_dict()
    if as_json:
        _print_json(data)
    else:
        console.print(render.ingest_report(data))
    if report.count("failed"):
        raise typer.Exit(int(ExitCode.LIMITED))


def _ingest_with_progress(ingestor, paths: list[Path], collection: str, prune: bool):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    started = [0.0]
    with Progress(
        TextColumn("[bold]ingest"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("files · {task.fields[chunks]} chunks · {task.fields[rate]} chunks/s"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task("ingest", total=None, chunks=0, rate="-")

        def update(done: int, total: int, chunks: int) -> None:
            import time

            if not started[0]:
                started[0] = time.perf_counter()
            elapsed = max(time.perf_counter() - started[0], 1e-6)
            progress.update(
                task, completed=done, total=total, chunks=chunks, rate=f"{chunks / elapsed:.0f}"
            )

        return ingestor.run(paths, collection, prune=prune, progress=update)


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="The question to answer.")],
    mode: Annotated[
        str, typer.Option("--mode", "-m", help=f"One of: {', '.join(MODE_NAMES)}.")
    ] = "standard",
    top_k: Annotated[
        int | None, typer.Option("--top-k", "-k", min=1, max=100, help="Chunks to retrieve.")
    ] = None,
    llm: Annotated[
        str | None, typer.Option("--llm", help="Model backend: auto, openai or extractive.")
    ] = None,
    max_iterations: Annotated[
        int | None,
        typer.Option("--max-iterations", min=1, help="Loop rounds at most (limits.max_iterations)"),
    ] = None,
    max_web_calls: Annotated[
        int | None,
        typer.Option("--max-web-calls", min=0, help="Web searches at most (limits.max_web_calls)."),
    ] = None,
    max_llm_calls: Annotated[
        int | None,
        typer.Option("--max-llm-calls", min=1, help="Model calls at most (limits.max_llm_calls)."),
    ] = None,
    collection: CollectionOpt = None,
    set_values: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="SECTION.KEY=VALUE",
            help="Override a setting for this run, e.g. --set tos.qna_threshold=0.85 "
            "(repeatable).",
        ),
    ] = None,
    as_json: JsonOpt = False,
    no_stream: NoStreamOpt = False,
    compare_modes: Annotated[
        bool, typer.Option("--compare", help="Run every mode on the question; one table.")
    ] = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Answer a question from the ingested documents.

    Exit codes: 0 answered, 3 limited or unverified, 4 clarification needed,
    5 handoff or not covered, 2 usage or configuration error, 1 failure."""
    from ragcli import service
    from ragcli import render
    from ragcli.pipeline.modes import MODES

    _logging(verbose)
    if compare_modes:
        _compare(question, top_k, llm, collection, as_json, store, config)
        return
    try:
        if mode not in MODES:
            known = ", ".join(MODES)
            raise RagcliError(f"--mode {mode!r}: choose one of {known}", ExitCode.USAGE)
        settings = _settings(
            config,
            {
                "store.path": store and str(store),
                "store.collection": collection,
                "retrieval.top_k": top_k,
                "agentic.top_k": top_k if mode == "agentic" else None,
                "llm.provider": llm,
                "limits.max_iterations": max_iterations,
                "limits.max_web_calls": max_web_calls,
                "limits.max_llm_calls": max_llm_calls,
            },
            set_values,
        )
        if not question.strip():
            raise RagcliError("the question is empty", ExitCode.USAGE)
        if not no_stream and not as_json and can_animate(console):
            from ragcli.terminal import LiveAnswer

            with LiveAnswer(console) as live:
                result = service.ask(
                    settings, question, mode=mode, on_export=_export_notice, on_token=live
                )
        else:
            result = service.ask(settings, question, mode=mode, on_export=_export_notice)
    except RagcliError as error:
        raise _fail(error) from None
    from ragcli import cost

    usd = cost.estimate_usage(settings.prices, result.backend, result.usage.model_dump())
    if as_json:
        data = result.to_json_dict()
        if usd is not None:
            data["estimated_cost_usd"] = usd
        _print_json(data)
    else:
        trace = service.saved_trace(settings, result.trace_id)
        console.print(render.ask_result(result, trace, cost=usd))
    code = exit_code_for(result.answer_type)
    if code != ExitCode.OK:
        raise typer.Exit(int(code))


@app.command()
def trace(
    trace_id: Annotated[
        str | None, typer.Argument(help="Run id (a prefix is enough), or `diff A B`.")
    ] = None,
    more_ids: Annotated[
        list[str] | None, typer.Argument(help="With `diff`: the two run ids.", show_default=False)
    ] = None,
    list_runs: Annotated[bool, typer.Option("--list", help="List recent runs.")] = False,
    search: Annotated[
        str | None,
        typer.Option("--search", "-s", help="List runs whose question or answer contains TEXT."),
    ] = None,
    limit: Annotated[int, typer.Option("-n", help="How many runs --list shows.")] = 20,
    as_json: JsonOpt = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
) -> None:
    """Show how a run was made: every score, threshold, route and iteration.

    `ragcli trace diff A B` puts two runs' steps side by side and marks what differs."""
    from ragcli import service
    from ragcli import render

    try:
        settings = _settings(config, {"store.path": store and str(store)})
        traces = service.trace_store(settings)
        if trace_id == "diff" or more_ids:
            _trace_diff(traces, trace_id, more_ids or [], as_json)
            return
        if search is not None:
            _trace_search(traces, search, limit, as_json)
            return
        if list_runs:
            rows = traces.recent(limit)
            _print_json(rows) if as_json else console.print(render.trace_list(rows))
            return
        record = traces.get(trace_id)
    except RagcliError as error:
        raise _fail(error) from None
    if record is None:
        what = f"no run {trace_id!r}" if trace_id else "no runs yet"
        raise _fail(RagcliError(f"{what} in {traces.path}: ask a question first", ExitCode.USAGE))
    if as_json:
        _print_json(record.to_dict())
    else:
        from ragcli import cost

        usd = cost.estimate_usage(settings.prices, record.backend, record.usage())
        console.print(render.trace_view(record, cost=usd))


@app.command("eval")
def evaluate(
    dataset_dir: Annotated[
        Path, typer.Argument(help="BEIR dataset: corpus.jsonl[.gz], queries.jsonl, qrels/.")
    ],
    retriever: Annotated[
        list[str] | None,
        typer.Option(
            "--retriever", "-r", help="dense, bm25 or hybrid; repeat for several (default: all)."
        ),
    ] = None,
    split: Annotated[str, typer.Option("--split", help="The qrels/SPLIT.tsv to score.")] = "test",
    collection: Annotated[
        str | None, typer.Option("--collection", "-c", help="Collection (default eval-DIRNAME).")
    ] = None,
    as_json: JsonOpt = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Score retrieval on a BEIR dataset: nDCG@10, Recall@10, Recall@100, MRR@10."""
    from ragcli.evaluation.runner import run_eval
    from ragcli.evaluation.tables import eval_report
    from ragcli.store.retriever import MODES as RETRIEVERS
    from ragcli.store.vectors import check_collection_name

    _logging(verbose)
    chosen = list(dict.fromkeys(retriever or RETRIEVERS))
    try:
        unknown = [r for r in chosen if r not in RETRIEVERS]
        if unknown:
            raise RagcliError(
                f"--retriever {unknown[0]!r}: choose from {', '.join(RETRIEVERS)}", ExitCode.USAGE
            )
        if collection:
            check_collection_name(collection)
        settings = _settings(config, {"store.path": store and str(store)})
        if console.is_terminal and not as_json:
            report = _eval_with_progress(settings, dataset_dir, chosen, split, collection)
        else:
            report = run_eval(settings, dataset_dir, chosen, split, collection)
    except RagcliError as error:
        raise _fail(error) from None
    if as_json:
        _print_json(report.to_dict())
    else:
        console.print(eval_report(report.to_dict()))


def _eval_with_progress(settings, dataset_dir: Path, retrievers, split, collection):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ragcli.evaluation.runner import run_eval

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

        return run_eval(settings, dataset_dir, retrievers, split, collection, progress=update)


@app.command()
def calibrate(
    labelled_file: Annotated[
        Path,
        typer.Argument(help="YAML/JSON/JSONL of {question, source}; no source = unanswerable."),
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
    from ragcli.evaluation.labelled import calibrate as run_calibrate
    from ragcli.evaluation.tables import calibration_report

    try:
        settings = _settings(
            config, {"store.path": store and str(store), "store.collection": collection}
        )
        report = run_calibrate(settings, labelled_file, save=not dry_run)
    except RagcliError as error:
        raise _fail(error) from None
    if as_json:
        _print_json(report)
    else:
        console.print(calibration_report(report))


@app.command("config")
def show_config(
    as_json: JsonOpt = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
) -> None:
    """Print the configuration in force (secrets redacted)."""
    try:
        settings = _settings(config, {"store.path": store and str(store)})
    except RagcliError as error:
        raise _fail(error) from None
    data = settings.redacted()
    if as_json:
        _print_json(data)
    else:
        import yaml

        sys.stdout.write(yaml.safe_dump(data, sort_keys=False))


def _compare(
    question: str,
    top_k: int | None,
    llm: str | None,
    collection: str | None,
    as_json: bool,
    store: Path | None,
    config: Path | None,
) -> None:
    """Every mode in the registry on one question: a summary table, then each answer."""
    from ragcli import service
    from ragcli import views
    from ragcli.compare import compare

    try:
        settings = _settings(
            config,
            {
                "store.path": store and str(store),
                "store.collection": collection,
                "retrieval.top_k": top_k,
                "llm.provider": llm,
            },
        )
        if not question.strip():
            raise RagcliError("the question is empty", ExitCode.USAGE)
        traces = service.trace_store(settings)
        # Load the store and the model once before the first mode, so that mode alone
        # does not pay for the imports and its time compares fairly with the others.
        service.vector_store(settings, must_exist=True)
        service.embedder(settings, _export_notice)

        def ask_quietly(settings, question, mode):
            return service.ask(settings, question, mode=mode, on_export=_export_notice)

        def announce(mode: str) -> None:
            if not as_json:
                errors.print(f"running {mode} ...", style="dim", highlight=False)

        rows = compare(settings, question, ask_quietly, traces.get, on_run=announce)
    except RagcliError as error:
        raise _fail(error) from None
    if as_json:
        _print_json(rows)
    else:
        console.print(views.compare_view(question, rows))
    if any(row.get("error") for row in rows):
        raise typer.Exit(int(ExitCode.FAILURE))


@app.command()
def compare(
    question: Annotated[str, typer.Argument(help="The question every mode answers.")],
    top_k: Annotated[
        int | None, typer.Option("--top-k", "-k", min=1, max=100, help="Chunks to retrieve.")
    ] = None,
    llm: Annotated[
        str | None, typer.Option("--llm", help="Model backend: auto, openai or extractive.")
    ] = None,
    collection: CollectionOpt = None,
    as_json: JsonOpt = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Run every mode on one question and compare them in one table (same as ask --compare).

    Exits 0 when every mode produced an answer of some kind, 1 when one failed."""
    _logging(verbose)
    _compare(question, top_k, llm, collection, as_json, store, config)


def _trace_diff(traces, first: str | None, more: list[str], as_json: bool) -> None:
    from ragcli import views
    from ragcli.trace.diff import diff_traces

    if first != "diff" or len(more) != 2:
        raise RagcliError("compare two runs with `ragcli trace diff ID_A ID_B`", ExitCode.USAGE)
    records = []
    for run_id in more:
        record = traces.get(run_id)
        if record is None:
            raise RagcliError(
                f"no run {run_id!r} in {traces.path} (unknown, or a prefix of several)",
                ExitCode.USAGE,
            )
        records.append(record)
    data = diff_traces(*records)
    _print_json(data) if as_json else console.print(views.diff_view(data))


def _trace_search(traces, text: str, limit: int, as_json: bool) -> None:
    from ragcli import views

    if not text.strip():
        raise RagcliError("--search: give some text to look for", ExitCode.USAGE)
    rows = traces.search(text, limit)
    if as_json:
        _print_json(rows)
    elif rows:
        console.print(views.search_results(text, rows))
    else:
        console.print(f"no run's question or answer contains {text!r}", highlight=False)


@app.command()
def status(
    as_json: JsonOpt = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
) -> None:
    """The store, its collections, and the model, embedder and web search in force."""
    from ragcli import status as report
    from ragcli import views

    try:
        settings = _settings(config, {"store.path": store and str(store)})
    except RagcliError as error:
        raise _fail(error) from None
    data = report.gather(settings)
    _print_json(data) if as_json else console.print(views.status_view(data))


def _manifest_or_fail(settings):
    from ragcli import service
    from ragcli.errors import EmptyStoreError
    from ragcli.store.manifest import Manifest

    path = service.store_dir(settings) / "manifest.sqlite"
    if not path.is_file():
        raise EmptyStoreError(
            f"no files ingested in {service.store_dir(settings)}: run `ragcli ingest PATH` first"
        )
    return Manifest(path)


@app.command()
def sources(
    collection: CollectionOpt = None,
    as_json: JsonOpt = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
) -> None:
    """List the ingested files: chunks, pages, content hash and ingest time."""
    from ragcli import views

    try:
        settings = _settings(config, {"store.path": store and str(store)})
        manifest = _manifest_or_fail(settings)
        records = manifest.files(collection)
        manifest.close()
    except RagcliError as error:
        raise _fail(error) from None
    from dataclasses import asdict

    rows = [asdict(r) for r in records]
    if as_json:
        _print_json(rows)
    elif rows:
        console.print(views.sources_view(rows, collection))
    else:
        where = f"collection {collection!r}" if collection else "the store"
        console.print(f"no files ingested in {where}", highlight=False)


@app.command("rm")
def remove(
    paths: Annotated[
        list[Path], typer.Argument(help="Ingested files or folders (they may be gone from disk).")
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
    from ragcli import views
    from ragcli.ingest.removal import remove_paths

    try:
        settings = _settings(
            config, {"store.path": store and str(store), "store.collection": collection}
        )
        name = settings.store.collection
        manifest = _manifest_or_fail(settings)
        try:
            # Checked before the store and model load, so a typo costs nothing.
            removal = remove_paths(manifest, name, paths)
        finally:
            manifest.close()
        if not dry_run:
            ingestor = service.ingestor(settings, on_export=_export_notice)
            # The same lock as ingest: a removal must not interleave with an ingest's writes.
            with ingestor.lock or contextlib.nullcontext():
                removal = remove_paths(ingestor.manifest, name, paths, ingestor.remove_file)
                if ingestor.lexical:
                    ingestor.lexical.save(name)
    except RagcliError as error:
        raise _fail(error) from None
    data = removal.to_dict()
    _print_json(data) if as_json else console.print(views.removal_view(data))


def main() -> None:
    try:
        app()
    except Exception as exc:  # a bug, not a user error: still one line, unless asked for more
        if os.environ.get("RAGCLI_DEBUG"):
            raise
        errors.print(
            f"[red]error:[/] unexpected {type(exc).__name__}: {escape(str(exc))[:300]} "
            "(set RAGCLI_DEBUG=1 for the traceback)",
            highlight=False,
            soft_wrap=True,
        )
        sys.exit(int(ExitCode.FAILURE))
