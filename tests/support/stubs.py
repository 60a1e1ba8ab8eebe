"""Servers that tests start on 127.0.0.1 in place of external services.

OpenAIStub speaks the OpenAI chat-completions protocol well enough for the real `openai`
client: replies are queued with `enqueue` (text, a JSON-able object, or a Fault), every
request body is kept in `requests`, and usage is deterministic (word counts)."""

from __future__ import annotations

import json
import re
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
                if not isinstance(payload, str):  # server-sent events, written as they come
                    self.end_headers()
                    for event in payload:
                        self.wfile.write(event.encode())
                        self.wfile.flush()
                    return
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

    def handle(self, path: str, body: dict, headers: dict) -> tuple[int, dict, Any]:
        """(status, headers, payload): a str, or an iterable of str written one by one."""
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
        # Streaming (stream=True): servers differ in how they report usage.
        self.stream_usage = True  # send a usage chunk when stream_options.include_usage asks
        self.reject_stream_options = False  # answer 400 to stream_options, as some servers do
        self.stream_delay = 0.0  # seconds between events
        # A stream that stops after `hold_after` pieces until `release` is set (at most a
        # minute), so a test acts at a known moment of the answer; `held` says it stopped.
        self.hold_after: int | None = None
        self.held = threading.Event()
        self.release = threading.Event()
        # When each request arrived and was answered (perf_counter), to tell calls that
        # overlapped from calls made one after another.
        self.intervals: list[tuple[float, float]] = []

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def enqueue(self, *replies: Reply) -> None:
        self.queue.extend(replies)

    def prompts(self) -> list[str]:
        """The user message of each request, in order."""
        return [r["messages"][-1]["content"] for r in self.requests]

    def handle(self, path: str, body: dict, headers: dict) -> tuple[int, dict, str]:
        started = time.perf_counter()
        try:
            return self._reply(body, headers)
        finally:
            with self._lock:
                self.intervals.append((started, time.perf_counter()))

    def round_trips(self) -> int:
        """How many calls ran one after another: overlapping calls count once."""
        rounds, busy_until = 0, float("-inf")
        for start, end in sorted(self.intervals):
            if start >= busy_until:
                rounds += 1
            busy_until = max(busy_until, end)
        return rounds

    def _reply(self, body: dict, headers: dict) -> tuple[int, dict, str]:
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
        if body.get("stream"):
            return self._stream(body, content, prompt_words)
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

    def _stream(self, body: dict, content: str, prompt_words: int) -> tuple[int, dict, Any]:
        """The reply as server-sent chat.completion.chunk events, a word at a time."""
        if self.reject_stream_options and "stream_options" in body:
            error = {"error": {"message": "Unrecognized request argument: stream_options"}}
            return 400, {"Content-Type": "application/json"}, json.dumps(error)
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        model = body.get("model", "stub")

        def chunk(choices: list[dict], usage: dict | None = None) -> str:
            data = {
                "id": "chatcmpl-stub",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": model,
                "choices": choices,
            }
            if usage is not None:
                data["usage"] = usage
            return f"data: {json.dumps(data)}\n\n"

        def events():
            yield chunk([{"index": 0, "delta": {"role": "assistant", "content": ""}}])
            for n, piece in enumerate(re.findall(r"\s*\S+", content)):
                if n == self.hold_after:
                    self.held.set()
                    self.release.wait(60)
                time.sleep(self.stream_delay)
                yield chunk([{"index": 0, "delta": {"content": piece}, "finish_reason": None}])
            yield chunk([{"index": 0, "delta": {}, "finish_reason": "stop"}])
            if include_usage and self.stream_usage:
                completion = len(content.split())
                usage = {
                    "prompt_tokens": prompt_words,
                    "completion_tokens": completion,
                    "total_tokens": prompt_words + completion,
                }
                yield chunk([], usage)
            yield "data: [DONE]\n\n"

        return 200, {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}, events()


@dataclass
class WebHit:
    """One Tavily search result."""

    title: str
    url: str
    content: str
    score: float = 0.8


class TavilyStub(StubServer):
    """Speaks Tavily's POST /search well enough for the real `tavily-python` client.

    Replies are queued with `enqueue`: a list of WebHit (or dicts), a full response dict,
    or a Fault; `default` answers when the queue is empty. Requests and headers are kept."""

    def __init__(self, default: list[WebHit] | dict | Fault | None = None) -> None:
        super().__init__()
        self.queue: deque[list[WebHit] | dict | Fault] = deque()
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.paths: list[str] = []
        self.default = default if default is not None else []
        self._lock = threading.Lock()

    def enqueue(self, *replies: list[WebHit] | dict | Fault) -> None:
        self.queue.extend(replies)

    def handle(self, path: str, body: dict, headers: dict) -> tuple[int, dict, str]:
        with self._lock:
            self.paths.append(path)
            self.requests.append(body)
            self.headers.append({k.lower(): v for k, v in headers.items()})
            reply = self.queue.popleft() if self.queue else self.default
        if isinstance(reply, Fault):
            time.sleep(reply.delay)
            return reply.status, {"Content-Type": "application/json", **reply.headers}, reply.body
        if isinstance(reply, list):
            hits = [h if isinstance(h, dict) else h.__dict__ for h in reply]
            reply = {
                "query": body.get("query", ""),
                "answer": None,
                "images": [],
                "results": [dict(h, raw_content=None) for h in hits],
                "response_time": 0.01,
            }
        return 200, {"Content-Type": "application/json"}, json.dumps(reply)
