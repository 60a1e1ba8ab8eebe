"""`ragcli serve`: an MCP server (official `mcp` SDK) over stdio or streamable HTTP, with
the tools search, ask, sources, trace, list and get (serve/tools.py). The store, the BM25 indexes
and the embedder stay warm between calls (service.Resources)."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from collections.abc import Callable

from ragcli import service
from ragcli.config import Settings

log = logging.getLogger("ragcli")


def run(
    settings: Settings,
    http: bool = False,
    host: str | None = None,
    port: int | None = None,
    announce: Callable[[str], None] | None = None,
    openai: bool = False,
) -> None:
    """`openai`: serve the OpenAI-compatible endpoint at /v1 over HTTP, and with `http`
    the MCP server beside it at /mcp."""
    from ragcli.serve.http import PATH, check_binding, check_port_free, serve_http
    from ragcli.serve.tools import build_server

    host = host or settings.serve.host
    port = port or settings.serve.port
    token = settings.serve.token.get_secret_value() if settings.serve.token else None
    if http or openai:  # before anything loads: a refusal costs nothing
        check_binding(host, token)
        check_port_free(host, port)
    resources = service.Resources(settings)
    # Warm up beside the server, so a client's handshake is answered at once; the first
    # call waits for whatever is still loading.
    threading.Thread(target=_warm_up, args=(resources,), daemon=True).start()
    where = service.store_dir(settings)
    if openai:
        _serve_openai(settings, resources, host, port, token, http, announce)
        return
    server = build_server(settings, resources)
    if http:
        shown = f"[{host}]" if ":" in host else host
        if announce:
            guard = "bearer token required" if token else "this machine only"
            announce(
                f"ragcli MCP server on http://{shown}:{port}{PATH} ({guard}; store {where}); "
                "Ctrl-C stops it"
            )
        serve_http(server, host, port, token)
    else:
        _exit_on_interrupt()
        if announce:
            announce(f"ragcli MCP server on stdio (store {where}); Ctrl-C stops it")
        server.run("stdio")


def _serve_openai(
    settings: Settings,
    resources: service.Resources,
    host: str,
    port: int,
    token: str | None,
    mcp: bool,
    announce: Callable[[str], None] | None,
) -> None:
    from ragcli.serve.http import PATH, serve_http
    from ragcli.serve.openai.app import OpenAIEndpoint
    from ragcli.serve.tools import build_server

    endpoint = OpenAIEndpoint(settings, resources)
    server = build_server(settings, resources) if mcp else None
    if announce:
        shown = f"[{host}]" if ":" in host else host
        guard = "bearer token required" if token else "this machine only"
        also = f", MCP at http://{shown}:{port}{PATH}" if mcp else ""
        announce(
            f"ragcli OpenAI-compatible endpoint on http://{shown}:{port}/v1{also} ({guard}; "
            f"store {service.store_dir(settings)}); models ragcli-MODE; Ctrl-C stops it"
        )
    serve_http(server, host, port, token, routes=endpoint.routes())


def _exit_on_interrupt() -> None:
    """Ctrl-C ends a stdio server at once. Left to the SDK it would wait for the thread
    blocked reading stdin, that is for the next line. Nothing is lost: the server writes
    nothing but trace records, each in one transaction."""

    def stop(signum: int, frame: object) -> None:
        sys.stderr.flush()
        os._exit(130)

    signal.signal(signal.SIGINT, stop)


def _warm_up(resources: service.Resources) -> None:
    try:
        resources.warm_up()
    except Exception as exc:  # a tool call reports the same problem as a tool error
        log.warning("warm-up: %s", exc)
