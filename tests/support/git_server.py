"""Git repositories for the tests: made with the `git` binary, and served over HTTP by
git's own `git http-backend` (run as a CGI program by a small http.server on 127.0.0.1,
as a web server would run it)."""

from __future__ import annotations

import http.server
import os
import shutil
import subprocess
import threading
from pathlib import Path
from urllib.parse import urlsplit

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.org",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.org",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def have_git() -> bool:
    return shutil.which("git") is not None


def git(*args: str, cwd: Path) -> str:
    env = {**os.environ, **GIT_ENV, "HOME": str(cwd)}
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


def make_repo(path: Path, files: dict[str, str]) -> Path:
    """A repository at `path` whose `main` holds `files`, committed once."""
    path.mkdir(parents=True)
    git("init", "-q", "-b", "main", cwd=path)
    commit(path, files, "first")
    return path


def commit(repo: Path, files: dict[str, str | None], message: str) -> str:
    """Write (or with None delete) `files`, commit them all; returns the commit."""
    for name, text in files.items():
        target = repo / name
        if text is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", message, cwd=repo)
    return git("rev-parse", "HEAD", cwd=repo)


class _Backend(http.server.BaseHTTPRequestHandler):
    server: GitHttpServer

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        self._cgi()

    def do_POST(self) -> None:  # noqa: N802
        self._cgi()

    def _cgi(self) -> None:
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        env = {
            **os.environ,
            "GIT_PROJECT_ROOT": str(self.server.root),
            "GIT_HTTP_EXPORT_ALL": "1",
            "REQUEST_METHOD": self.command,
            "PATH_INFO": parts.path,
            "QUERY_STRING": parts.query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(length),
            "REMOTE_ADDR": "127.0.0.1",
            "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
        }
        if self.headers.get("Content-Encoding"):
            env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
        done = subprocess.run(
            ["git", "http-backend"], input=body, env=env, capture_output=True, timeout=60
        )
        head, _, payload = done.stdout.partition(b"\r\n\r\n")
        status = 200
        headers = []
        for line in head.decode("latin-1").split("\r\n"):
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.strip().split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


class GitHttpServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, root: Path):
        self.root = root
        super().__init__(("127.0.0.1", 0), _Backend)
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def __enter__(self) -> GitHttpServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
        self.thread.join(timeout=5)
