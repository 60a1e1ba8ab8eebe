"""One HTTP client for a crawl: a fixed, honest User-Agent; conditional requests; every
redirect followed by hand so each hop is checked (scheme, address, loops); a size limit
read as the body streams; retries for 5xx, 429 (Retry-After honoured, up to a bound) and
dropped connections; and a pace per host (the crawl delay, the rate limit) shared by the
crawl's threads. Every failure is a FetchError of one line naming the URL.

Credentials come from a netrc file (httpx.NetRCAuth: ~/.netrc, or $NETRC): they go in the
Authorization header of requests to their host and are never printed or stored."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx

from ragcli import __version__
from ragcli.remote.safety import AddressPolicy, Refused

USER_AGENT = f"ragcli/{__version__} (+https://pypi.org/project/ragcli/; a documentation indexer)"
ROBOTS_AGENT = "ragcli"  # the token robots.txt rules name
MAX_REDIRECTS = 10
RETRIES = 3  # tries after the first for 5xx, 429 and dropped connections
BACKOFF_SECONDS = 0.5  # doubled at each retry, unless Retry-After says otherwise
MAX_RETRY_AFTER = 60.0  # a longer Retry-After fails the page instead of stalling the crawl


class FetchError(Exception):
    """A page that could not be fetched: one line naming the URL."""


@dataclass
class Limits:
    max_bytes: int = 20 << 20  # a larger response is not read
    timeout: float = 30.0  # seconds without a byte, or to connect
    rate: float = 8.0  # requests per second per host, at most
    concurrency: int = 4


@dataclass
class Fetched:
    url: str  # asked for
    final: str  # after redirects
    status: int  # 200, 304, 404 …
    body: bytes = b""
    content_type: str = ""
    etag: str | None = None
    last_modified: str | None = None
    redirected: bool = False
    location: str | None = None  # a redirect's target, as the server wrote it


class Pace:
    """At most one request per `interval` to each host, across threads."""

    def __init__(self, interval: float):
        self.interval = interval
        self._next: dict[str, float] = {}
        self._intervals: dict[str, float] = {}  # hosts whose robots.txt asks for more
        self._lock = threading.Lock()

    def slow_to(self, host: str, interval: float) -> None:
        with self._lock:
            self._intervals[host] = max(interval, self.interval)

    def wait(self, host: str, stop: Callable[[], bool]) -> None:
        with self._lock:
            interval = self._intervals.get(host, self.interval)
            now = time.monotonic()
            start = max(now, self._next.get(host, 0.0))
            self._next[host] = start + interval
        while (left := start - time.monotonic()) > 0 and not stop():
            time.sleep(min(left, 0.1))


def _netrc_auth() -> httpx.Auth | None:
    path = Path(os.environ.get("NETRC") or Path.home() / ".netrc")
    if not path.is_file():
        return None
    try:
        return httpx.NetRCAuth(str(path))
    except Exception:  # an unreadable or malformed netrc: no credentials, as curl does
        return None


class Fetcher:
    def __init__(
        self,
        policy: AddressPolicy,
        limits: Limits | None = None,
        stop: Callable[[], bool] = lambda: False,
    ):
        self.policy = policy
        self.limits = limits or Limits()
        self.stop = stop
        self.pace = Pace(1.0 / self.limits.rate if self.limits.rate > 0 else 0.0)
        self.requests = 0  # sent, for the report
        self.conditional = 0  # of them with If-None-Match or If-Modified-Since
        self._count = threading.Lock()
        timeout = httpx.Timeout(self.limits.timeout)
        self.client = httpx.Client(
            headers={"User-Agent": USER_AGENT},
            timeout=timeout,
            follow_redirects=False,
            auth=_netrc_auth(),
            trust_env=False,  # proxies and netrc are chosen here, not by httpx
            limits=httpx.Limits(max_connections=self.limits.concurrency + 1),
        )

    def close(self) -> None:
        self.client.close()

    def get(
        self,
        url: str,
        etag: str | None = None,
        last_modified: str | None = None,
        admit: Callable[[str], str | None] | None = None,
    ) -> Fetched:
        """GET `url`, following redirects; `admit(url)` may refuse a hop (returns why)."""
        seen = [url]
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            try:
                self.policy.check(current)
            except Refused as refused:
                raise FetchError(str(refused)) from None
            if current != url and admit is not None and (why := admit(current)):
                raise FetchError(f"{url}: redirects to {current}, {why}")
            response = self._send(current, etag, last_modified)
            if response.location is not None:
                target = urljoin(current, response.location).split("#", 1)[0]
                if target in seen:
                    raise FetchError(f"{url}: redirect loop ({' → '.join([*seen, target])})")
                seen.append(target)
                current = target
                etag = last_modified = None  # validators are the asked URL's, not the target's
                continue
            response.url = url
            response.redirected = current != url
            return response
        raise FetchError(f"{url}: more than {MAX_REDIRECTS} redirects")

    def _send(self, url: str, etag: str | None, last_modified: str | None) -> Fetched:
        """One request with its retries."""
        headers = {}
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        host = urlsplit(url).netloc
        failure = ""
        for attempt in range(RETRIES + 1):
            if self.stop():
                raise FetchError(f"{url}: stopped")
            self.pace.wait(host, self.stop)
            with self._count:
                self.requests += 1
                self.conditional += bool(headers)
            wait = BACKOFF_SECONDS * (2**attempt)
            try:
                result, retry_after = self._once(url, headers)
            except httpx.TimeoutException as exc:
                failure = f"no answer within {self.limits.timeout:g} s ({type(exc).__name__})"
            except (httpx.TransportError, httpx.DecodingError) as exc:
                failure = f"connection failed ({_reason(exc)})"
            else:
                if result.status not in (429, 500, 502, 503, 504):
                    return result
                failure = f"HTTP {result.status}"
                if retry_after is not None:
                    if retry_after > MAX_RETRY_AFTER:
                        raise FetchError(
                            f"{url}: HTTP {result.status}, Retry-After {retry_after:.0f} s "
                            f"is over {MAX_RETRY_AFTER:.0f} s"
                        )
                    wait = retry_after
            if attempt < RETRIES:
                deadline = time.monotonic() + wait
                while time.monotonic() < deadline and not self.stop():
                    time.sleep(min(0.1, wait))
        tries = RETRIES + 1
        raise FetchError(f"{url}: {failure} ({tries} tries)")

    def _once(self, url: str, headers: dict[str, str]) -> tuple[Fetched, float | None]:
        with self.client.stream("GET", url, headers=headers) as response:
            status = response.status_code
            if status in (301, 302, 303, 307, 308):
                location = response.headers.get("location")
                if location:
                    return Fetched(url, url, status, location=location), None
            retry_after = _retry_after(response.headers.get("retry-after"))
            fetched = Fetched(
                url,
                url,
                status,
                content_type=response.headers.get("content-type", ""),
                etag=response.headers.get("etag"),
                last_modified=response.headers.get("last-modified"),
            )
            if status != 200:
                return fetched, retry_after
            declared = response.headers.get("content-length", "")
            limit = self.limits.max_bytes
            if declared.isdigit() and int(declared) > limit:
                raise FetchError(
                    f"{url}: {_megabytes(int(declared))} is over the limit of "
                    f"{_megabytes(limit)}: not read"
                )
            body = bytearray()
            for piece in response.iter_bytes():
                body += piece
                if len(body) > limit:
                    raise FetchError(f"{url}: over the limit of {_megabytes(limit)}: not read")
                if self.stop():
                    raise FetchError(f"{url}: stopped")
            fetched.body = bytes(body)
            return fetched, retry_after


def _megabytes(size: int) -> str:
    return f"{size / (1 << 20):.0f} MB"


def _reason(exc: Exception) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:120]


def _retry_after(value: str | None) -> float | None:
    """Seconds, from either form RFC 9110 allows (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
