"""`ragcli serve --http`: the MCP server over streamable HTTP (uvicorn), at /mcp.

Bound to 127.0.0.1 by default. Any other address needs a bearer token (serve.token or
RAGCLI_SERVE_TOKEN): without one the server does not start; with one, every request
without `Authorization: Bearer TOKEN` is answered 401."""

from __future__ import annotations

import hmac
from typing import Any

from ragcli.errors import ConfigError

LOOPBACK = {"127.0.0.1", "localhost", "::1"}
PATH = "/mcp"


class BearerToken:
    """ASGI middleware: HTTP requests must carry the token; lifespan events pass."""

    def __init__(self, app: Any, token: str):
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not self._authorised(scope):
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"text/plain; charset=utf-8"),
                        (b"www-authenticate", b'Bearer realm="ragcli"'),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": b"bearer token required\n"})
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


def serve_http(server: Any, host: str, port: int, token: str | None) -> None:
    """Run until Ctrl-C (uvicorn stops on SIGINT and SIGTERM)."""
    import uvicorn

    check_binding(host, token)
    app: Any = server.streamable_http_app(streamable_http_path=PATH, host=host)
    if token:
        app = BearerToken(app, token)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    uvicorn.Server(config).run()
