"""`ragcli serve --http`: the MCP server over streamable HTTP (uvicorn), at /mcp; with
`--openai`, the OpenAI-compatible endpoint at /v1 (serve/openai/), alone or beside it.

Bound to 127.0.0.1 by default. Any other address needs a bearer token (serve.token or
RAGCLI_SERVE_TOKEN): without one the server does not start; with one, every request
without `Authorization: Bearer TOKEN` is answered 401."""

from __future__ import annotations

import hmac
from typing import Any

from ragcli.errors import ConfigError

LOOPBACK = {"127.0.0.1", "localhost", "::1"}
PATH = "/mcp"
GRACE_SECONDS = 3


# What a request without the token gets at /v1: OpenAI's error object, which its clients
# read and show ("Incorrect API key").
OPENAI_UNAUTHORISED = (
    b'{"error": {"message": "a bearer token is required: set the API key to the server\'s '
    b'serve.token", "type": "authentication_error", "param": null, "code": "invalid_api_key"}}'
)


class BearerToken:
    """ASGI middleware: HTTP requests must carry the token; lifespan events pass."""

    def __init__(self, app: Any, token: str):
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not self._authorised(scope):
            openai = str(scope.get("path", "")).startswith("/v1")
            kind = b"application/json" if openai else b"text/plain; charset=utf-8"
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", kind),
                        (b"www-authenticate", b'Bearer realm="ragcli"'),
                    ],
                }
            )
            body = OPENAI_UNAUTHORISED if openai else b"bearer token required\n"
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

    def _authorised(self, scope: dict) -> bool:
        given = dict(scope.get("headers") or []).get(b"authorization", b"")
        return hmac.compare_digest(given, self.expected)  # constant time: no timing oracle


def check_binding(host: str, token: str | None) -> None:
    if host not in LOOPBACK and not token:
        raise ConfigError(
            f"--host {host}: serving beyond this machine needs a bearer token "
            "(set serve.token in config.yaml or RAGCLI_SERVE_TOKEN)"
        )


def check_port_free(host: str, port: int) -> None:
    """A port in use is one line naming it, before uvicorn's log lines say so."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise ConfigError(
                f"--port {port}: cannot listen on {host} ({exc.strerror}); choose another port"
            ) from None


def serve_http(
    server: Any, host: str, port: int, token: str | None, routes: list | None = None
) -> None:
    """Run until Ctrl-C (uvicorn stops on SIGINT and SIGTERM). `server`: the MCP server,
    or None to serve only `routes` (the OpenAI endpoint's), which are otherwise added
    beside /mcp."""
    import uvicorn

    check_binding(host, token)
    if server is None:
        from starlette.applications import Starlette

        app: Any = Starlette(routes=routes or [])
    else:
        app = server.streamable_http_app(streamable_http_path=PATH, host=host)
        app.router.routes.extend(routes or [])
    if token:
        app = BearerToken(app, token)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        lifespan="on",
        # Ctrl-C: streams in flight get this long to end, then the server stops anyway.
        timeout_graceful_shutdown=GRACE_SECONDS,
    )
    uvicorn.Server(config).run()
