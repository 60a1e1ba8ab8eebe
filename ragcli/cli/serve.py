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

    start_logging(verbose)
    if (host or port) and not http:
        raise RagcliError("--host and --port go with --http", ExitCode.USAGE)
    settings = make_settings(
        config,
        store,
        {"store.collection": collection, "serve.host": host, "serve.port": port},
    )
    try:
        server.run(settings, http=http, host=host, port=port, announce=export_notice)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
