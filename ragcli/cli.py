"""The command line: parse options, call the service layer, render the result.

Domain errors are printed once as one line and end in `typer.Exit(code)`."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from ragcli import __version__
from ragcli.errors import ExitCode, RagcliError

app = typer.Typer(
    name="ragcli",
    help="Retrieval-augmented answers from your own files.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)

console = Console()
errors = Console(stderr=True)

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


def _settings(config: Path | None, overrides: dict[str, Any]):
    from ragcli.config import load_settings

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
    from ragcli import app as service
    from ragcli import render

    _logging(verbose)
    try:
        settings = _settings(
            config, {"store.path": store and str(store), "store.collection": collection}
        )
        from ragcli.store.vectors import check_collection_name

        check_collection_name(settings.store.collection)
        ingestor = service.ingestor(settings, on_export=_export_notice)
        if console.is_terminal and not as_json:
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
    collection: CollectionOpt = None,
    as_json: JsonOpt = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Answer a question from the ingested documents."""
    from ragcli import app as service
    from ragcli import render
    from ragcli.pipeline.modes import MODES

    _logging(verbose)
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
                "llm.provider": llm,
            },
        )
        if not question.strip():
            raise RagcliError("the question is empty", ExitCode.USAGE)
        result = service.ask(settings, question, mode=mode, on_export=_export_notice)
    except RagcliError as error:
        raise _fail(error) from None
    if as_json:
        _print_json(result.to_json_dict())
    else:
        trace = service.trace_store(settings).get(result.trace_id)
        console.print(render.ask_result(result, trace))


@app.command()
def trace(
    trace_id: Annotated[str | None, typer.Argument(help="Run id (a prefix is enough).")] = None,
    list_runs: Annotated[bool, typer.Option("--list", help="List recent runs.")] = False,
    limit: Annotated[int, typer.Option("-n", help="How many runs --list shows.")] = 20,
    as_json: JsonOpt = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
) -> None:
    """Show how a run was made: every score, threshold, route and iteration."""
    from ragcli import app as service
    from ragcli import render

    try:
        settings = _settings(config, {"store.path": store and str(store)})
        traces = service.trace_store(settings)
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
        console.print(render.trace_view(record))


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


def main() -> None:
    app()
