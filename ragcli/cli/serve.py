"""`ragcli serve`: the store to agents over MCP."""

from typing import Annotated

import typer

from ragcli.cli.common import export_notice, make_settings, start_logging
from ragcli.cli.options import CollectionOpt, ConfigOpt, StoreOpt, VerboseOpt
from ragcli.errors import ExitCode, RagcliError


def serve(
    http: Annotated[
        bool, typer.Option("--http", help="Serve streamable HTTP instead of stdio.")
    ] = False,
    openai: Annotated[
        bool,
        typer.Option(
            "--openai",
            help="Serve an OpenAI-compatible chat endpoint at /v1 (a model per mode) for chat "
            "front ends; with --http, MCP too on the same port.",
        ),
    ] = False,
    host: Annotated[
        str | None,
        typer.Option(
            "--host",
            metavar="HOST",
            help="With --http or --openai: the address to bind (default 127.0.0.1; others "
            "need a token).",
        ),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(
            "--port",
            metavar="PORT",
            min=1,
            max=65535,
            help="With --http or --openai: the port (default 8765).",
        ),
    ] = None,
    collection: CollectionOpt = None,
    store: StoreOpt = None,
    config: ConfigOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Serve the store to agents over MCP (tools search, ask, sources, trace, list, get),
    or to chat front ends as OpenAI-compatible models (--openai).

    stdio by default (what desktop clients launch); --http serves http://HOST:PORT/mcp;
    --openai serves http://HOST:PORT/v1 (models ragcli-standard ... ragcli-auto).
    Read-only: nothing is ingested or deleted. Ctrl-C stops it."""
    from ragcli import serve as server

    start_logging(verbose)
    if (host or port) and not (http or openai):
        raise RagcliError("--host and --port go with --http or --openai", ExitCode.USAGE)
    settings = make_settings(
        config,
        store,
        {"store.collection": collection, "serve.host": host, "serve.port": port},
    )
    try:
        server.run(settings, http=http, host=host, port=port, announce=export_notice, openai=openai)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
