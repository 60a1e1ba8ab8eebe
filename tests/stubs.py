"""Servers that tests start on 127.0.0.1 in place of external services.

OpenAIStub speaks the OpenAI chat-completions protocol well enough for the real `openai`
client: replies are queued with `enqueue` (text, a JSON-able object, or a Fault), every
request body is kept in `requests`, and usage is deterministic (word counts)."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Fault:
    status: int = 500
    body: str = '{"error": {"message": "stub fault"}}'
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering (timeouts)


Reply = str | dict | list | Fault | Callable[[dict], Any]


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out and hung up is what fault tests provoke: not an error.
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class StubServer:
    """Base: a threaded HTTP server on 127.0.0.1 with a random free port."""

    def __init__(self) -> None:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                status, headers, payload = stub.handle(self.path, body, dict(self.headers))
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                data = payload.encode()
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def handle(self, path: str, body: dict, headers: dict) -> tuple[int, dict, str]:
        raise NotImplementedError

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


class OpenAIStub(StubServer):
    def __init__(self, default: Reply | None = None, delay: float = 0.0) -> None:
        super().__init__()
        self.queue: deque[Reply] = deque()
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.default = default if default is not None else "stub answer [1]"
        self.delay = delay
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def enqueue(self, *replies: Reply) -> None:
        self.queue.extend(replies)

    def prompts(self) -> list[str]:
        """The user message of each request, in order."""
        return [r["messages"][-1]["content"] for r in self.requests]

    def handle(self, path: str, body: dict, headers: dict) -> tuple[int, dict, str]:
        with self._lock:
            self.requests.append(body)
            self.headers.append({k.lower(): v for k, v in headers.items()})
            reply = self.queue.popleft() if self.queue else self.default
        if callable(reply) and not isinstance(reply, Fault):
            reply = reply(body)
        if isinstance(reply, Fault):
            time.sleep(reply.delay)
            return reply.status, {"Content-Type": "application/json", **reply.headers}, reply.body
        time.sleep(self.delay)
        content = reply if isinstance(reply, str) else json.dumps(reply)
        prompt_words = sum(len(str(m.get("content", "")).split()) for m in body["messages"])
        payload = {
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "stub"),
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": content},
                }
            ],
            "usage": {
                "prompt_tokens": prompt_words,
                "completion_tokens": len(content.split()),
                "total_tokens": prompt_words + len(content.split()),
            },
        }
        return 200, {"Content-Type": "application/json"}, json.dumps(payload)
