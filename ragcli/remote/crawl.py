"""The crawl's frontier: which URLs a crawl admits (its scope), and the URLs it has found,
fetched up to `concurrency` at a time ahead of the one being read, handed out in the
order they were found (breadth first). Reading a page adds the links it finds, so the
crawl ends when every URL found has been handed out."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from ragcli.ingest.loaders import FORMATS
from ragcli.remote.roots import canonical_url

PAGE_SUFFIXES = ("", ".html", ".htm", ".xhtml", ".shtml", ".php", ".asp", ".aspx", ".jsp")
# Files a crawl follows links to, besides pages: documents, not images or source code.
DOCUMENT_TYPES = frozenset(
    "pdf docx pptx xlsx xls ods odt epub md rst txt csv tsv ipynb rtf".split()
)


def suffix_of(url: str) -> str:
    return PurePosixPath(urlsplit(url).path).suffix.lower()


def is_page(url: str) -> bool:
    return suffix_of(url) in PAGE_SUFFIXES


def is_document(url: str) -> bool:
    found = FORMATS.get(suffix_of(url))
    return found is not None and found.file_type in DOCUMENT_TYPES


@dataclass
class Scope:
    """Under the root's scheme, host and path prefix, as `wget --no-parent` would; other
    hosts `--allow-host` names admit any path; `--depth` counts links from the root."""

    root: str
    hosts: frozenset[str] = frozenset()
    depth: int | None = None
    prefix: str = field(init=False)

    def __post_init__(self) -> None:
        path = urlsplit(self.root).path or "/"
        if not path.endswith("/") and "." in path.rsplit("/", 1)[-1]:
            path = path.rsplit("/", 1)[0] + "/"  # a page's folder: /guide/index.html
        parts = urlsplit(self.root)
        self.prefix = f"{parts.scheme}://{parts.netloc}{path}"

    def admits(self, url: str, depth: int = 0) -> bool:
        if self.depth is not None and depth > self.depth:
            return False
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            return False
        if (parts.hostname or "").lower() in self.hosts:
            return True
        if url == self.prefix.rstrip("/"):
            return True
        return url.startswith(self.prefix if self.prefix.endswith("/") else self.prefix + "/")


@dataclass
class Target:
    url: str
    depth: int
    from_sitemap: bool = False


class Frontier:
    """The URLs found so far, fetched ahead. `fetch` runs in `concurrency` threads."""

    def __init__(
        self,
        scope: Scope,
        fetch: Callable[[Target], Any],
        concurrency: int,
        max_pages: int,
        stop: Callable[[], bool],
    ):
        self.scope = scope
        self.fetch = fetch
        self.concurrency = max(1, concurrency)
        self.max_pages = max_pages
        self.stop = stop
        self.queue: deque[Target] = deque()
        self.seen: set[str] = set()
        self.found = 0  # URLs admitted: the crawl's length so far
        self.over_limit = 0  # URLs left out by max_pages
        self.activity: Any = None  # the progress display's totals follow the crawl
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="ragcli-crawl")

    def add(self, url: str, depth: int, from_sitemap: bool = False) -> bool:
        url = canonical_url(url)
        with self._lock:
            if url in self.seen or not self.scope.admits(url, depth):
                return False
            self.seen.add(url)
            if self.found >= self.max_pages:
                self.over_limit += 1
                return False
            self.found += 1
            self.queue.append(Target(url, depth, from_sitemap))
        if self.activity is not None:
            self.activity.files_total = self.found
        return True

    def follow(self, activity: Any) -> None:
        """Keep `activity.files_total` at the number of URLs found."""
        self.activity = activity
        activity.files_total = self.found

    def __len__(self) -> int:
        return self.found

    def __iter__(self) -> Iterator[tuple[Target, Any]]:
        inflight: deque[tuple[Target, Future[Any]]] = deque()
        while True:
            while self.queue and len(inflight) < self.concurrency and not self.stop():
                target = self.queue.popleft()
                inflight.append((target, self._pool.submit(self.fetch, target)))
            if not inflight or self.stop():
                return
            target, future = inflight.popleft()
            while not self.stop():
                try:
                    result = future.result(timeout=0.1)
                    break
                except TimeoutError:
                    continue
            else:
                return
            yield target, result

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
