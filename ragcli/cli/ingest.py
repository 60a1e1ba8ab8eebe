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
DEFAULT_EVERY_SECONDS = 1800.0  # --watch with sites or repositories and no --every


def ingest(
    paths: Annotated[
        list[str],
        typer.Argument(
            metavar="PATH|URL",
            help="Files or folders; a site (https://…) or a Git repository (git+https://…[@ref]).",
        ),
    ],
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
    allow_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-host", help="A site: also crawl this host (repeatable).", metavar="HOST"
        ),
    ] = None,
    depth: Annotated[
        int | None,
        typer.Option("--depth", min=0, metavar="N", help="A site: follow links at most N hops."),
    ] = None,
    max_pages: Annotated[
        int,
        typer.Option("--max-pages", min=1, metavar="N", help="A site: stop after N pages."),
    ] = 10_000,
    whole_page: Annotated[
        bool,
        typer.Option("--whole-page", help="A site: read whole pages, navigation and footers too."),
    ] = False,
    allow_private: Annotated[
        bool,
        typer.Option(
            "--allow-private",
            help="Let a crawl reach private, loopback and link-local addresses.",
        ),
    ] = False,
    git_ref: Annotated[
        str | None,
        typer.Option(
            "--git-ref", metavar="REF", help="PATH is a local Git clone: ingest its tree at REF."
        ),
    ] = None,
    every: Annotated[
        str | None,
        typer.Option(
            "--every",
            metavar="INTERVAL",
            help="Sync again every INTERVAL (30m, 1h, 90s) until Ctrl-C.",
        ),
    ] = None,
    as_json: JsonOpt = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Load files, sites and repositories into the store, incrementally: unchanged ones
    cost nothing."""
    from ragcli import service
    from ragcli.remote.roots import parse_root
    from ragcli.remote.run import RemoteOptions
    from ragcli.remote.schedule import parse_interval
    from ragcli.remote.web import CrawlOptions
    from ragcli.store.collections import check_collection_name
    from ragcli.views.ingest import ingest_view

    start_logging(verbose)
    roots = [parse_root(p, git_ref) for p in paths]
    interval = parse_interval(every) if every is not None else None
    settings = make_settings(config, store, {"store.collection": collection})
    check_collection_name(settings.store.collection)
    crawl = CrawlOptions(
        allow_hosts=frozenset(h.lower() for h in allow_host or []),
        depth=depth,
        max_pages=max_pages,
        main_content=not whole_page,
        allow_private=allow_private,
    )
    options = RemoteOptions(crawl)
    ingestor = service.ingestor(settings, on_export=export_notice)
    prune = prune or watch  # watching, the store follows the tree: deletions included
    collection_name = settings.store.collection
    run = Run(ingestor, roots, collection_name, prune, options)
    report = _ingest_until_stopped(run, as_json, quiet)
    data = report.to_dict()
    print_json(data) if as_json else common.console.print(ingest_view(data, show_skipped))
    local = [r for r in roots if isinstance(r, Path)]
    if watch or interval is not None:
        _keep_in_step(run, local if watch else [], interval, as_json, show_skipped)
        return
    if report.new_failures():  # a file failing as in the last run was said then
        raise typer.Exit(int(ExitCode.LIMITED))


class Run:
    """One ingest of the given roots, run again by --every."""

    def __init__(
        self, ingestor: "Ingestor", roots: list[Any], collection: str, prune: bool, options: Any
    ):
        self.ingestor, self.roots, self.collection = ingestor, roots, collection
        self.prune, self.options = prune, options

    def __call__(self, progress: Any = None, roots: list[Any] | None = None) -> "IngestReport":
        from ragcli.remote.run import ingest_roots

        return ingest_roots(
            self.ingestor,
            self.roots if roots is None else roots,
            self.collection,
            self.prune,
            progress,
            self.options,
        )


def _ingest_until_stopped(
    run: Run, as_json: bool, quiet: bool = False, roots: list[Any] | None = None
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

    ingestor = run.ingestor
    try:
        with SignalStop(ingestor.stop, said):
            if quiet:
                return run(roots=roots)
            if can_animate(common.errors):
                return _ingest_with_progress(run, roots)
            return _ingest_with_lines(run, roots)
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


def _keep_in_step(
    run: Run, local: list[Path], interval: float | None, as_json: bool, show_skipped: bool
) -> None:
    """--watch (the local folders, and with remote roots a sync every --every, 30 minutes
    by default) or --every alone (every root, again and again) until Ctrl-C."""
    from ragcli.remote.schedule import Schedule

    remote = [r for r in run.roots if not isinstance(r, Path)]
    schedule = Schedule(interval or DEFAULT_EVERY_SECONDS)
    if local:
        wake = (lambda: _sync_when_due(run, remote, schedule, as_json)) if remote else None
        _watch(run.ingestor, local, run.collection, as_json, wake)
        return
    _sync_every(run, schedule, as_json, show_skipped)


def _sync_when_due(run: Run, remote: list[Any], schedule: Any, as_json: bool) -> None:
    """Inside --watch: the remote roots synced, their changes one line each."""
    if not schedule.due():
        return
    from ragcli.errors import RagcliError
    from ragcli.ingest.cancel import IngestInterrupted, SignalStop
    from ragcli.ingest.watch import AppliedChange, applied_changes

    show = _change_printer(as_json)

    def said(first: bool) -> None:
        common.errors.print("stopping after the write in progress …", style="dim")

    try:
        with SignalStop(run.ingestor.stop, said):  # Ctrl-C stops the sync, then the watch
            report = run(roots=remote)
    except IngestInterrupted as stopped:
        stored = stopped.report.stored()
        common.errors.print(f"interrupted: {stored} stored; stopped watching", style="yellow")
        raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
    except RagcliError as exc:
        show(AppliedChange("error", "", reason=f"{exc} (tried again at the next sync)"))
    else:
        for change in applied_changes(report):
            show(change)
    schedule.done()


def _sync_every(run: Run, schedule: Any, as_json: bool, show_skipped: bool) -> None:
    """--every: each root synced again once the interval has passed since the last sync
    ended; Ctrl-C while waiting stops at once, during a sync as an ingest stops."""
    import time
    from datetime import datetime, timedelta

    from ragcli.errors import RagcliError
    from ragcli.views.ingest import ingest_view

    while True:
        at = (datetime.now() + timedelta(seconds=schedule.left())).strftime("%H:%M:%S")
        common.errors.print(f"next sync at {at} · Ctrl-C stops", style="dim")
        try:
            while not schedule.due():
                time.sleep(min(1.0, schedule.left() or 0.1))
        except KeyboardInterrupt:
            common.errors.print("stopped", style="dim")
            return
        try:
            report = _ingest_until_stopped(run, as_json, quiet=True)
        except RagcliError as exc:
            common.errors.print(f"sync failed: {exc} (tried again at the next sync)", style="red")
        else:
            data = report.to_dict()
            print_json(data) if as_json else common.console.print(ingest_view(data, show_skipped))
        schedule.done()


def _change_printer(as_json: bool) -> Any:
    import json
    from dataclasses import asdict
    from datetime import datetime

    from ragcli.views.ingest import watch_line

    def show(change: Any) -> None:
        if as_json:
            print(json.dumps(asdict(change)), flush=True)
        else:
            common.console.print(watch_line(change, datetime.now().strftime("%H:%M:%S")))

    return show


def _watch(
    ingestor: "Ingestor",
    paths: list[Path],
    collection: str,
    as_json: bool,
    on_wake: Any = None,
) -> None:
    """`ingest --watch`: one line per applied change (a JSON object per line with --json)
    until Ctrl-C, which stops after the write in progress."""
    from ragcli.ingest.watch import Watcher, watch_until_interrupted
    from ragcli.views.format import display_path

    show = _change_printer(as_json)

    def stopping(writing: bool) -> None:
        after = " after the write in progress" if writing else ""
        common.errors.print(f"stopping{after} (Ctrl-C again stops at once)", style="dim")

    where = ", ".join(display_path(str(p)) for p in paths)

    def ready() -> None:
        common.errors.print(f"watching {where} for changes · Ctrl-C stops", style="dim")

    watcher = Watcher(ingestor, paths, collection, show, on_ready=ready, on_wake=on_wake)
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


def _ingest_with_progress(run: Run, roots: list[Any] | None) -> "IngestReport":
    from rich.progress import BarColumn, Progress

    from ragcli.ingest.loaders import ocr
    from ragcli.views.ingest import ActivityColumn, OcrColumn

    def reading() -> tuple[str, int, int] | None:
        now = ocr.activity
        return None if now is None else (now.file, now.page, now.pages)

    ingestor = run.ingestor
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

        return run(update, roots)


def _ingest_with_lines(run: Run, roots: list[Any] | None) -> "IngestReport":
    """Not a terminal (a log, CI): a plain progress line on stderr every few seconds."""
    import threading

    from ragcli.views.ingest import progress_line

    done = threading.Event()

    def tick() -> None:
        while not done.wait(PROGRESS_LINE_SECONDS):
            line = progress_line(_activity(run.ingestor))
            print(f"ingest: {line}", file=sys.stderr, flush=True)

    ticker = threading.Thread(target=tick, name="progress-lines", daemon=True)
    ticker.start()
    try:
        return run(roots=roots)
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
        list[str],
        typer.Argument(
            metavar="PATH|URL",
            help="Ingested files or folders (may be gone from disk), pages, sites or repositories.",
        ),
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
    from ragcli.remote.roots import canonical_url

    named = [canonical_url(p) if p.split("://", 1)[0] in ("http", "https") else p for p in paths]
    given = [p if "://" in p else Path(p) for p in named]
    data = service.remove(settings, given, dry_run).to_dict()
    print_json(data) if as_json else common.console.print(removal_view(data))
