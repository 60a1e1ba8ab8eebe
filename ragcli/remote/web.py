"""A website as an ingest source: its pages under the root's prefix, found from the root
page, the site's sitemaps and the pages stored before, fetched with the validators stored
with them (a 304 costs nothing), each read into chunks keyed by its canonical URL."""

from __future__ import annotations

import hashlib
import re
import tempfile
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

from ragcli.ingest.chunker import Chunker
from ragcli.ingest.items import FileOutcome, Item
from ragcli.ingest.loaders import FORMATS, LoadError, NothingOfItsOwn, reading_of
from ragcli.remote.crawl import Frontier, Scope, Target, is_document, is_page, suffix_of
from ragcli.remote.fetch import Fetched, Fetcher, FetchError, Limits
from ragcli.remote.roots import WebRoot, canonical_url
from ragcli.remote.safety import AddressPolicy
from ragcli.remote.site import Robots, origin, read_robots, sitemap_urls
from ragcli.remote.state import PageState, RemoteState, RootSync
from ragcli.store.manifest import Manifest, ProblemRecord

HTML_TYPES = ("text/html", "application/xhtml+xml")
# Content types read as a file of this suffix when the URL's own suffix says nothing.
TYPE_SUFFIXES = {
    "application/pdf": ".pdf",
    "text/markdown": ".md",
    "text/x-markdown": ".md",
    "text/x-rst": ".rst",
    "text/plain": ".txt",
    "text/csv": ".csv",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
    "application/epub+zip": ".epub",
}
MAX_ERRORS_KEPT = 10  # a root's errors `status` shows


@dataclass
class CrawlOptions:
    allow_hosts: frozenset[str] = frozenset()
    depth: int | None = None
    max_pages: int = 10_000
    main_content: bool = True
    allow_private: bool = False
    limits: Limits = field(default_factory=Limits)


class WebSource:
    """The pages of one site root, in the order the crawl finds them."""

    def __init__(
        self,
        root: WebRoot,
        collection: str,
        manifest: Manifest,
        state: RemoteState,
        chunker: Chunker,
        options: CrawlOptions,
        stop: Any,
    ):
        self.root = root
        self.collection = collection
        self.manifest = manifest
        self.state = state
        self.chunker = chunker
        self.options = options
        self.stop = stop
        policy = AddressPolicy(allow_private=options.allow_private)
        policy.trust_root(root.url)
        self.fetcher = Fetcher(policy, options.limits, stop=stop.is_set)
        self.scope = Scope(root.url, options.allow_hosts, options.depth)
        self.frontier = Frontier(
            self.scope, self._fetch, options.limits.concurrency, options.max_pages, stop.is_set
        )
        self._robots: dict[str, Robots] = {}
        self._robots_lock = threading.Lock()
        self.notes: list[str] = []  # the crawl's own (robots, sitemaps, limits)
        self.errors: list[str] = []
        self.not_modified = 0
        self._missing: list[tuple[str, str]] = []  # stored pages now 404/410
        self._moved: list[tuple[str, str]] = []  # stored URL -> the URL it redirects to
        self._keys: set[str] = set()  # pages read this run, by canonical URL
        self._by_sha: dict[str, str] = {}  # content read this run -> the page holding it

    # -- the Source protocol ---------------------------------------------------------------

    def entries(self) -> Frontier:
        self.frontier.add(self.root.url, 0)
        robots = self._robots_of(self.root.url)
        if robots.unreachable:
            self.notes.append(f"robots.txt unreadable, nothing crawled: {robots.unreachable}")
        sitemaps = robots.sitemaps or [f"{origin(self.root.url)}/sitemap.xml"]
        for url in sitemap_urls(self._get_plain, sitemaps, self.notes):
            self.frontier.add(url, 1, from_sitemap=True)
        for url in self.state.pages(self.collection, self.root.url):  # stored before
            if self.manifest.get(self.collection, url) is not None:
                self.frontier.add(url, 1)
        return self.frontier

    def prepare(self, entry: tuple[Target, Fetched | FetchError | str]) -> FileOutcome | Item:
        outcome = self._prepare(*entry)
        self._recall(outcome)
        return outcome

    def _recall(self, outcome: FileOutcome | Item) -> None:
        """A page skipped or failing as in the last run is said once, in summary, as a
        file is (a broken link, a page robots.txt disallows); one read again is forgotten."""
        if isinstance(outcome, Item):
            self.manifest.forget_problem(self.collection, outcome.key)
            return
        if outcome.status not in ("skipped", "failed"):
            self.manifest.forget_problem(self.collection, outcome.path)
            return
        known = self.manifest.problem(self.collection, outcome.path)
        said = (outcome.status, outcome.reason)
        outcome.repeated = known is not None and (known.status, known.reason) == said
        if not outcome.repeated:
            problem = ProblemRecord(self.collection, outcome.path, "", 0, 0, *said)
            self.manifest.remember_problem(problem)

    def _prepare(self, target: Target, result: Fetched | FetchError | str) -> FileOutcome | Item:
        url = target.url
        stored = self.manifest.get(self.collection, url)
        if isinstance(result, FetchError):
            self._error(str(result))
            return FileOutcome(url, "failed", _without(url, str(result)))
        if isinstance(result, str):  # refused before any request (robots.txt)
            return FileOutcome(url, "skipped", result)
        if result.status == 304 and stored is not None:
            self.not_modified += 1
            self._by_sha.setdefault(stored.sha256, url)
            known = self.state.page(self.collection, url)
            self._follow(known.links if known else [], target)
            return FileOutcome(url, "unchanged", chunks=stored.chunk_count)
        if result.status in (404, 410):
            if stored is not None:
                self._missing.append((url, f"HTTP {result.status}"))
                # Not "skipped", which drops a stored document at once: --prune decides.
                return FileOutcome(url, "gone", f"HTTP {result.status}: gone from the site")
            return FileOutcome(url, "skipped", f"HTTP {result.status} (a broken link)")
        if result.status != 200:
            self._error(f"{url}: HTTP {result.status}")
            return FileOutcome(url, "failed", f"HTTP {result.status}")
        return self._read(target, result, stored)

    def gone(self) -> list[tuple[str, str]]:
        return list(self._missing)

    def moved(self) -> list[tuple[str, str]]:
        return list(self._moved)

    def close(self, stopping: bool = False) -> None:
        self.frontier.close()
        self.fetcher.close()
        if not stopping:
            self._save_sync()

    # -- reading a page ----------------------------------------------------------------------

    def _read(self, target: Target, fetched: Fetched, stored: Any) -> FileOutcome | Item:
        url = target.url
        key = canonical_url(fetched.final)
        if fetched.redirected:
            if key != url and self.manifest.get(self.collection, url) is not None:
                self._moved.append((url, key))
            if key in self._keys or (key != url and key in self.frontier.seen):
                moved = stored is not None  # a stored page moved: it leaves as a move does
                status = "moved" if moved else "skipped"
                return FileOutcome(url, status, f"redirects to {key}, read there")
            self.frontier.seen.add(key)
            stored = self.manifest.get(self.collection, key)
        self._keys.add(key)
        body = fetched.body
        sha = hashlib.sha256(body).hexdigest()
        twin = self._by_sha.setdefault(sha, key)
        if twin != key:  # `/guide/` and `/guide/index.html`: one page, read once
            return FileOutcome(key, "skipped", f"same page as {twin}")
        kind = _kind(fetched)
        if kind is None:
            return FileOutcome(key, "skipped", f"not a page or a document ({fetched.content_type})")
        page_state = PageState(key, self.root.url, sha, fetched.etag, fetched.last_modified)
        current = stored is not None and stored.reading >= reading_of(stored.file_type)
        if kind == ".html" and b"\0" in body[:8192]:
            self._error(f"{key}: served as text/html but holds binary data")
            return FileOutcome(key, "failed", "served as text/html but holds binary data")
        item = Item(key, sha, len(body), _mtime_ns(fetched), "changed" if stored else "new", "", [])
        try:
            if kind == ".html":
                links = self._read_html(item, body, fetched, target)
                page_state.links = links
            else:
                self._read_document(item, body, kind)
        except LoadError as exc:  # a document with no text of its own is skipped, not failed
            self.state.put_page(self.collection, page_state)
            status = "skipped" if isinstance(exc, NothingOfItsOwn) else "failed"
            return FileOutcome(key, status, str(exc))
        self.state.put_page(self.collection, page_state)
        if stored is not None and stored.sha256 == sha and current:
            return FileOutcome(key, "unchanged", chunks=stored.chunk_count)
        if not item.chunks:
            return FileOutcome(key, "skipped", "no text found")
        return item

    def _read_html(self, item: Item, body: bytes, fetched: Fetched, target: Target) -> list[str]:
        from bs4 import UnicodeDammit

        from ragcli.remote.extract import read_page

        charset = _charset(fetched.content_type)
        text = UnicodeDammit(body, [charset] if charset else []).unicode_markup or ""
        page = read_page(text, item.key, self.options.main_content)
        links = [u for u in page.links if is_page(u)] + [
            u for u in page.content_links if is_document(u)
        ]
        links = list(dict.fromkeys(links))
        self._follow(links, target)
        item.file_type = "html"
        item.chunks = self.chunker.chunk(page.sections)
        for chunk in item.chunks:
            anchor = _anchor_of(chunk.heading, page.anchors)
            chunk.extra["url"] = f"{item.key}#{anchor}" if anchor else item.key
        if page.title:
            item.metadata["title"] = page.title
        return links

    def _read_document(self, item: Item, body: bytes, suffix: str) -> None:
        """A PDF, Office file or Markdown page: read from a temporary file of its type by
        the loader its suffix names."""
        from ragcli.ingest.parse_pool import parse

        with tempfile.TemporaryDirectory(prefix="ragcli-page-") as folder:
            path = Path(folder) / f"page{suffix}"
            path.write_bytes(body)
            parsed = parse(path, self.chunker)
        item.file_type, item.pages, item.chunks = parsed.file_type, parsed.pages, parsed.chunks
        item.notes += [n.replace(str(path), item.key) for n in parsed.notes]
        item.ocr_pages = parsed.ocr_pages
        for chunk in item.chunks:
            chunk.extra["url"] = item.key

    def _follow(self, links: list[str], target: Target) -> None:
        for link in links:
            self.frontier.add(link, target.depth + 1)

    # -- fetching (in the frontier's threads) ------------------------------------------------

    def _fetch(self, target: Target) -> Fetched | FetchError | str:
        robots = self._robots_of(target.url)
        if not robots.allows(target.url):
            return "robots.txt disallows it"
        stored = self.manifest.get(self.collection, target.url)
        known = self.state.page(self.collection, target.url)
        etag = last_modified = None
        if stored is not None and known is not None and known.sha256 == stored.sha256:
            etag, last_modified = known.etag, known.last_modified
        try:
            return self.fetcher.get(target.url, etag, last_modified, admit=self._admit)
        except FetchError as failed:
            return failed

    def _admit(self, url: str) -> str | None:
        if not self.scope.admits(canonical_url(url)):
            return "outside the crawl's scope"
        if not self._robots_of(url).allows(url):
            return "which robots.txt disallows"
        return None

    def _get_plain(self, url: str) -> Fetched:
        return self.fetcher.get(url)

    def _robots_of(self, url: str) -> Robots:
        site = origin(url)
        with self._robots_lock:
            robots = self._robots.get(site)
            if robots is None:
                robots = self._robots[site] = read_robots(self._get_plain, site)
                if robots.delay():
                    host = site.split("://", 1)[1]
                    self.fetcher.pace.slow_to(host, robots.delay())
        return robots

    def _error(self, line: str) -> None:
        self.errors.append(line)

    def _save_sync(self) -> None:
        stored = [
            url
            for url in self.state.pages(self.collection, self.root.url)
            if self.manifest.get(self.collection, url) is not None
        ]
        if self.frontier.over_limit:
            self.notes.append(
                f"stopped at {self.options.max_pages:,} pages (--max-pages); "
                f"{self.frontier.over_limit:,} more found"
            )
        self.state.put_root(
            RootSync(
                self.collection,
                self.root.url,
                "site",
                datetime.now(UTC).isoformat(timespec="seconds"),
                "",
                len(stored),
                len(self.errors),
                (self.notes + self.errors)[:MAX_ERRORS_KEPT],
                self.fetcher.requests,
                self.not_modified,
            )
        )

    def summary(self) -> dict[str, Any]:
        """What the report says of this root beside the counts."""
        return {
            "root": self.root.url,
            "kind": "site",
            "requests": self.fetcher.requests,
            "conditional": self.fetcher.conditional,
            "not_modified": self.not_modified,
            "found": self.frontier.found,
            "notes": list(self.notes),
        }


def _kind(fetched: Fetched) -> str | None:
    """The suffix the body is read as: ".html" for a page, a document's own, or None."""
    content_type = fetched.content_type.split(";", 1)[0].strip().lower()
    suffix = suffix_of(fetched.final)
    if content_type in HTML_TYPES:
        return ".html"
    if suffix in FORMATS and is_document(fetched.final):
        return suffix
    found = TYPE_SUFFIXES.get(content_type)
    if found:
        return found
    return ".html" if not content_type and is_page(fetched.final) else None


def _charset(content_type: str) -> str | None:
    match = re.search(r"charset=[\"']?([\w.:-]+)", content_type, re.I)
    return match.group(1) if match else None


def _mtime_ns(fetched: Fetched) -> int:
    if not fetched.last_modified:
        return 0
    try:
        return int(parsedate_to_datetime(fetched.last_modified).timestamp() * 1e9)
    except (TypeError, ValueError):
        return 0


NOT_WORD = re.compile(r"\W+")


def _normal(title: str) -> str:
    return NOT_WORD.sub("", title.lower())


def _anchor_of(heading: str | None, anchors: dict[str, str]) -> str | None:
    """The anchor of the deepest heading of `heading`'s path that has one."""
    if not heading or not anchors:
        return None
    normal = {_normal(title): anchor for title, anchor in anchors.items()}
    for title in reversed(heading.split(" > ")):
        if (anchor := normal.get(_normal(title))) is not None:
            return anchor
    return None


def _without(url: str, reason: str) -> str:
    """The reason without its leading URL: the report names the page already."""
    return reason[len(url) + 2 :] if reason.startswith(url + ": ") else reason
