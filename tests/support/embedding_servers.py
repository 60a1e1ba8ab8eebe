"""Real embedding servers for the tests: Infinity (infinity-emb, in its own virtual
environment, .venv-infinity, made by scripts/install_infinity.sh) serving the bundled
all-MiniLM-L6-v2 folder on 127.0.0.1, and a fault-injecting proxy in front of it that
answers 413 to large batches, 429 in bursts, drops connections and delays replies on
request, so every branch of the server embedder meets a real engine's answers."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INFINITY = ROOT / ".venv-infinity" / "bin" / "infinity_emb"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_listening(process: subprocess.Popen, port: int, seconds: float) -> None:
    """Returns once something listens on 127.0.0.1:`port`; an AssertionError with the
    server's stderr if it exits first, or after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            stderr = process.stderr.read() if process.stderr else ""
            raise AssertionError(f"server exited: {stderr}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.2)
    raise AssertionError("server did not start listening")


def start_infinity(
    model_dir: Path, log: Path, name: str = "all-MiniLM-L6-v2"
) -> tuple[subprocess.Popen, str]:
    """Infinity serving `model_dir` under `name`; (process, base url). What it serves
    follows the folder's config: an encoder embeds, a one-label classifier reranks."""
    port = free_port()
    out = log.open("wb")
    process = subprocess.Popen(
        [
            str(INFINITY),
            "v2",
            "--model-id",
            str(model_dir),
            "--served-model-name",
            name,
            "--engine",
            "torch",
            "--device",
            "cpu",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--batch-size",
            "32",
            "--no-bettertransformer",
        ],
        stdout=out,
        stderr=subprocess.STDOUT,
        env={"HF_HUB_OFFLINE": "1", "INFINITY_ANONYMOUS_USAGE_STATS": "0", "PATH": "/usr/bin:/bin"},
    )
    url = f"http://127.0.0.1:{port}"
    wait_until_healthy(process, f"{url}/health", "infinity", 180, log)
    return process, url


def wait_until_healthy(
    process: subprocess.Popen, health_url: str, name: str, seconds: float, log: Path
) -> None:
    """Returns once `health_url` answers 200; raises with the log's tail if the server
    exits first, or kills it and raises after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(health_url, timeout=1) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited: {log.read_text()[-2000:]}")
        if time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"{name} did not answer in {seconds:g} s: {log.read_text()[-2000:]}")
        time.sleep(0.5)


@dataclass
class Faults:
    """What the proxy does to the next requests. Counters go down as faults are served."""

    max_inputs: int | None = None  # 413 for a batch of more inputs than this
    too_many_requests: int = 0  # answer this many requests with 429
    retry_after: str | None = "0.1"
    drop: int = 0  # close this many connections without an answer
    slow: int = 0  # delay this many replies by `delay` seconds
    delay: float = 0.0
    fail_always: int | None = None  # answer every request with this status
    fail_after: int | None = None  # answer this many requests, then fail every one with 503
    scale: float = 1.0  # multiply every vector (an engine that does not normalise)
    shuffle: bool = False  # permute the components (another model under the same name)
    received: int = 0  # requests that reached the proxy
    seen: list[int] = field(default_factory=list)  # batch sizes forwarded to the engine
    statuses: list[int] = field(default_factory=list)  # statuses sent back


class FaultProxy:
    """An HTTP proxy on 127.0.0.1 in front of `upstream`, injecting `faults`."""

    def __init__(self, upstream: str):
        self.upstream = upstream
        self.faults = Faults()
        self.lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                proxy.handle(self, body)

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _take(self, name: str) -> bool:
        with self.lock:
            left = getattr(self.faults, name)
            if left > 0:
                setattr(self.faults, name, left - 1)
                return True
            return False

    def handle(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        faults = self.faults
        inputs = json.loads(body).get("input", [])
        with self.lock:
            faults.received += 1
        if faults.fail_after is not None:
            with self.lock:
                faults.fail_after -= 1
                if faults.fail_after < 0:
                    faults.fail_always = 503
        if faults.fail_always is not None:
            return self._reply(handler, faults.fail_always, b'{"error": "overloaded"}')
        if self._take("drop"):
            handler.close_connection = True
            handler.connection.shutdown(socket.SHUT_RDWR)
            return None
        if self._take("too_many_requests"):
            headers = {"Retry-After": faults.retry_after} if faults.retry_after else {}
            return self._reply(handler, 429, b'{"error": "slow down"}', headers)
        if faults.max_inputs is not None and len(inputs) > faults.max_inputs:
            message = f'{{"error": "batch size {len(inputs)} > {faults.max_inputs}"}}'
            return self._reply(handler, 413, message.encode())
        if self._take("slow"):
            time.sleep(faults.delay)
        request = urllib.request.Request(
            self.upstream + handler.path,
            data=body,
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=120) as reply:
            answer = reply.read()
        with self.lock:
            faults.seen.append(len(inputs))
        if faults.scale != 1.0 or faults.shuffle:
            answer = self._distort(answer)
        return self._reply(handler, 200, answer)

    def _distort(self, answer: bytes) -> bytes:
        data = json.loads(answer)
        for row in data["data"]:
            vector = [value * self.faults.scale for value in row["embedding"]]
            row["embedding"] = vector[1:] + vector[:1] if self.faults.shuffle else vector
        return json.dumps(data).encode()

    def _reply(
        self, handler: BaseHTTPRequestHandler, status: int, body: bytes, headers=None
    ) -> None:
        with self.lock:
            self.faults.statuses.append(status)
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(body)
        except OSError:
            pass  # the client gave up (a timeout test): nothing to tell it
