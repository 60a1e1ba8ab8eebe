"""`ragcli ingest` (and its --watch), `ragcli sync` and `ragcli rm`: the commands that
write the store."""

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ragcli.cli import common
from ragcli.cli.common import export_notice, make_settings, print_json, start_logging
from ragcli.cli.options import CollectionOpt, ConfigOpt, JsonOpt, StoreOpt, VerboseOpt
from ragcli.errors import ExitCode

if TYPE_CHECKING:
    from ragcli.ingest.runner import Ingestor, IngestReport

PROGRESS_LINE_SECONDS = 5.0  # between plain progress lines when stderr is not a terminal


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

    start_logging(verbose)
    settings = make_settings(config, store, {"store.collection": collection})
    check_collection_name(settings.store.collection)
    ingestor = service.ingestor(settings, on_export=export_notice)
    prune = prune or watch  # watching, the store follows the tree: deletions included
    collection_name = settings.store.collection
    report = _ingest_until_stopped(ingestor, paths, collection_name, prune, as_json, quiet)
    data = report.to_dict()
    print_json(data) if as_json else common.console.print(ingest_view(data, show_skipped))
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
            common.errors.print("stopping: storing the files already embedded …", style="dim")
        else:
            common.errors.print("still stopping: the write in progress finishes first", style="dim")

    from ragcli.terminal import can_animate

    try:
        with SignalStop(ingestor.stop, said):
            if quiet:
                return ingestor.run(paths, collection, prune=prune)
            if can_animate(common.errors):
                return _ingest_with_progress(ingestor, paths, collection, prune)
            return _ingest_with_lines(ingestor, paths, collection, prune)
    except IngestInterrupted as stopped:
        report = stopped.report
        # Said first: the same Ctrl-C may have ended the reader of the JSON (`| jq`).
        common.errors.print(
            f"interrupted: {plural(report.stored(), 'file')} stored, {stopped.left} left; "
            "run the same command to finish",
            style="yellow",
        )
        if as_json:
            _print_json_if_read(report.to_dict())
        _exit_now(ExitCode.INTERRUPTED)
        raise  # unreachable: _exit_now leaves


def _print_json_if_read(data: dict) -> None:
    """The report on stdout, unless its reader is gone: then nowhere, and stdout is pointed
    at os.devnull so that the flush at exit does not fail on the broken pipe either."""
    import os

    try:
        print_json(data)
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _exit_now(code: int) -> None:
    """Leave with `code` at once. A worker may still be inside onnxruntime, embedding a
    batch nobody will write: waiting for it would take seconds, and tearing the interpreter
    down around it aborts the process, so the process ends without either."""
    import os
    import threading

    sys.stdout.flush()
    sys.stderr.flush()
    if any(t.name.startswith("ragcli-embed") and t.is_alive() for t in threading.enumerate()):
        from ragcli.ingest.parse_pool import release_before_exit

        release_before_exit()
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
            common.console.print(watch_line(change, datetime.now().strftime("%H:%M:%S")))

    def stopping(writing: bool) -> None:
        after = " after the write in progress" if writing else ""
        common.errors.print(f"stopping{after} (Ctrl-C again stops at once)", style="dim")

    where = ", ".join(display_path(str(p)) for p in paths)

    def ready() -> None:
        common.errors.print(f"watching {where} for changes · Ctrl-C stops", style="dim")

    watcher = Watcher(ingestor, paths, collection, show, on_ready=ready)
    watch_until_interrupted(watcher, stopping)
    common.errors.print("stopped watching", style="dim")


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
        console=common.errors,
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

    with common.errors.status("reading the collection's texts from the server …"):
        synced = service.sync(make_settings(config, store), collection)
    if as_json:
        print_json(asdict(synced))
        return
    common.console.print(
        f"collection {synced.collection!r}: the keyword index holds {synced.chunks:,} chunks "
        f"(+{synced.added:,} −{synced.removed:,}) in {synced.seconds:.1f} s",
        highlight=False,
    )


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

    settings = make_settings(config, store, {"store.collection": collection})
    data = service.remove(settings, paths, dry_run).to_dict()
    print_json(data) if as_json else common.console.print(removal_view(data))
