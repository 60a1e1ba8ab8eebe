"""Real HTTP servers on 127.0.0.1 for the crawl's tests, each in a thread of the test:

- `StaticSite`: a folder served by http.server with what real static hosts add (an ETag,
  Last-Modified, 304 on If-None-Match and If-Modified-Since), a robots.txt and a
  sitemap.xml of the folder's pages unless the folder has its own; it counts requests.
- routes for faults (`/faults/...`): slow, 5xx, 429 with Retry-After, a dropped
  connection, a redirect loop, a huge page, a binary served as text/html, a moved page.

Python's HTML documentation comes from Debian's python3-doc (scripts/install_python_docs.sh);
`python_docs()` finds it through dpkg, or returns None (the tests then skip, saying why)."""

from __future__ import annotations

import hashlib
import http.server
import shutil
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit


def python_docs() -> Path | None:
    """The html folder python3-doc installed, if it is installed."""
    for package in ("python3-doc", "python3.11-doc", "python3.13-doc", "python3.12-doc"):
        try:
            listed = subprocess.run(
                ["dpkg-query", "-L", package], capture_output=True, text=True, timeout=30
            ).stdout.splitlines()
        except (OSError, subprocess.TimeoutExpired):
            return None
        for line in listed:
            path = Path(line)
            if path.name == "html" and (path / "faq" / "index.html").is_file():
                return path.resolve()
    return None


def copy_docs(source: Path, target: Path, pages: list[str]) -> Path:
    """A subset of a documentation build: `pages` (paths under `source`) and its _static."""
    for page in pages:
        (target / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / page, target / page)
    return target


class Handler(http.server.SimpleHTTPRequestHandler):
    server: SiteServer

    def log_message(self, *args: object) -> None:  # quiet: the test reads the counters
        pass

    def do_GET(self) -> None:  # noqa: N802
        path = urlsplit(self.path).path
        with self.server.lock:
            self.server.requests[path] += 1
            if self.headers.get("If-None-Match") or self.headers.get("If-Modified-Since"):
                self.server.conditional[path] += 1
            self.server.agents.add(self.headers.get("User-Agent", ""))
        if path.startswith("/faults/"):
            return self.fault(path.removeprefix("/faults/"))
        if path in self.server.redirects:
            return self.redirect(self.server.redirects[path])
        folder = Path(self.server.folder)
        if path == "/robots.txt" and not (folder / "robots.txt").exists():
            return self.send_text(self.server.robots, "text/plain")
        if path == "/sitemap.xml" and not (folder / "sitemap.xml").exists():
            return self.send_text(self.server.sitemap(), "application/xml")
        super().do_GET()

    def send_head(self):  # type: ignore[no-untyped-def]
        """http.server's, with a strong ETag from the file's size and time, and 304 for a
        matching If-None-Match (it handles If-Modified-Since itself)."""
        local = Path(self.translate_path(self.path))
        if local.is_dir():
            local = local / "index.html"
        if local.is_file():
            stat = local.stat()
            version = f"{stat.st_size}-{stat.st_mtime_ns}".encode()
            etag = '"' + hashlib.sha1(version).hexdigest()[:16] + '"'
            self._etag = etag
            if self.headers.get("If-None-Match") == etag:
                self.send_response(304)
                self.send_header("ETag", etag)
                self.end_headers()
                with self.server.lock:
                    self.server.not_modified += 1
                return None
        else:
            self._etag = None
        return super().send_head()

    def end_headers(self) -> None:
        etag = getattr(self, "_etag", None)
        if etag and not self._headers_buffer_has("ETag"):
            self.send_header("ETag", etag)
        super().end_headers()

    def _headers_buffer_has(self, name: str) -> bool:
        return any(line.lower().startswith(name.lower().encode()) for line in self._headers_buffer)

    def send_text(self, text: str, content_type: str, status: int = 200) -> None:
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", f"{content_type}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def redirect(self, target: str, status: int = 301) -> None:
        self.send_response(status)
        self.send_header("Location", target)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def fault(self, name: str) -> None:
        page = (
            "<html><head><title>{0}</title></head><body><main><h1>{0}</h1><p>The {0} page "
            "says hello at last.</p></main></body></html>"
        )
        server = self.server
        if name == "slow.html":
            time.sleep(server.slow_seconds)
            return self.send_text(page.format("slow"), "text/html")
        if name == "error.html":
            return self.send_text("oops", "text/plain", 503)
        if name == "busy.html":  # 429 with Retry-After once, then the page
            with server.lock:
                server.busy_left -= 1
                busy = server.busy_left >= 0
            if busy:
                self.send_response(429)
                self.send_header("Retry-After", "1")
                self.send_header("Content-Length", "0")
                return self.end_headers()
            return self.send_text(page.format("busy"), "text/html")
        if name == "drop.html":
            self.connection.shutdown(2)  # the connection dropped before any answer
            self.close_connection = True
            return None
        if name == "loop-a.html":
            return self.redirect("/faults/loop-b.html", 302)
        if name == "loop-b.html":
            return self.redirect("/faults/loop-a.html", 302)
        if name == "huge.html":
            size = 50 << 20
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(size))
            self.end_headers()
            chunk = b"<p>" + b"x" * 65530 + b"</p>"
            try:
                for _ in range(size // len(chunk)):
                    self.wfile.write(chunk)
            except OSError:
                pass  # the crawler stopped reading: what it should do
            return None
        if name == "binary.html":
            body = bytes(range(256)) * 64
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return None
        if name == "index.html":
            links = "".join(
                f'<li><a href="{n}">{n}</a></li>'
                for n in (
                    "slow.html",
                    "error.html",
                    "busy.html",
                    "drop.html",
                    "loop-a.html",
                    "huge.html",
                    "binary.html",
                    "fine.html",
                    "gone.html",
                )
            )
            return self.send_text(
                f"<html><head><title>Faults</title></head><body><main><h1>Faults</h1>"
                f"<ul>{links}</ul></main></body></html>",
                "text/html",
            )
        if name == "fine.html":
            return self.send_text(page.format("fine"), "text/html")
        return self.send_text("not here", "text/plain", 404)


class SiteServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client that hung up (the crawler gave up on a slow page): expected here

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.lock = threading.Lock()
        self.requests: Counter[str] = Counter()
        self.conditional: Counter[str] = Counter()
        self.not_modified = 0
        self.agents: set[str] = set()
        self.redirects: dict[str, str] = {}
        self.robots = "User-agent: *\nDisallow: /private/\n"
        self.slow_seconds = 3.0
        self.busy_left = 1
        super().__init__(("127.0.0.1", 0), lambda *a: Handler(*a, directory=str(self.folder)))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def sitemap(self) -> str:
        pages = sorted(p.relative_to(self.folder).as_posix() for p in self.folder.rglob("*.html"))
        urls = "".join(f"<url><loc>{self.url}/{page}</loc></url>" for page in pages)
        return (
            '<?xml version="1.0" encoding="UTF-8"?>'
            f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
        )

    def reset_counts(self) -> None:
        with self.lock:
            self.requests.clear()
            self.conditional.clear()
            self.not_modified = 0


class StaticSite:
    """`with StaticSite(folder) as site:` serves `folder` at `site.url` until the block ends."""

    def __init__(self, folder: Path):
        self.server = SiteServer(folder)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> SiteServer:
        self.thread.start()
        return self.server

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


__all__ = ["StaticSite", "copy_docs", "python_docs"]
