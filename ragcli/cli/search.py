"""`ragcli search`: the chunks that match, with their scores; no model call."""

import sys
from typing import Annotated

import typer

from ragcli.cli import common
from ragcli.cli.common import (
    export_notice,
    make_settings,
    print_json,
    scope_flags,
    search_filters,
    start_logging,
)
from ragcli.cli.options import (
    CollectionOpt,
    ConfigOpt,
    ExpandOpt,
    JsonOpt,
    MetaOpt,
    PathOpt,
    SinceOpt,
    StoreOpt,
    TopKOpt,
    TypeOpt,
    VerboseOpt,
)
from ragcli.completion import complete_retriever
from ragcli.errors import ExitCode, RagcliError


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
    expand: ExpandOpt = None,
    paths: PathOpt = None,
    types: TypeOpt = None,
    since: SinceOpt = None,
    meta: MetaOpt = None,
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

    start_logging(verbose)
    if sum([as_json, as_jsonl, files_only]) > 1:
        raise RagcliError("choose one of --json, --jsonl and --files", ExitCode.USAGE)
    if retriever is not None and retriever not in RETRIEVERS:
        raise RagcliError(
            f"--retriever {retriever!r}: choose from {', '.join(RETRIEVERS)}", ExitCode.USAGE
        )
    filters = search_filters(paths, types, since, meta)
    flags = {"store.collection": collection, "retrieval.top_k": top_k, "retrieval.expand": expand}
    settings = make_settings(config, store, flags)
    result = service.search(
        settings, query, top_k, retriever, filters, on_export=export_notice, refresh=refresh
    )
    scope = scope_flags(config, store, collection)
    plain = not common.console.is_terminal  # piped: one chunk a line, never cut at 80 columns
    if as_json:
        print_json(result.to_json_dict())
    elif as_jsonl:
        for hit in result.results:
            sys.stdout.write(hit.model_dump_json() + "\n")
    elif files_only:
        sys.stdout.write(str(files_view(result)))
    else:
        common.console.print(search_view(result, plain=plain, scope=scope), soft_wrap=plain)
    if as_json or as_jsonl or files_only or plain:  # stdout is data: the warning goes aside
        for note in stale_notes(result, scope):
            common.errors.print(note, soft_wrap=True)
    if not result.results:
        raise typer.Exit(int(ExitCode.NOT_COVERED))
