"""Where a part of a document sits, read back from the locator its chunk was stored with
("lines 12–40", "page 3 (OCR)", "slide 4", "Sheet1, rows 20–45", "cell 7"), and a
`PATH:START-END` request read into a path and a range of those units."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Unit = Literal["line", "page", "slide", "row", "cell"]

# "lines 12–40", "line 7", "page 3 (OCR)", "slide 4", "cell 7", "Sheet1, rows 20–45",
# "rows 3, 7": the unit, then a number or a range (a list is read first to last).
_PLACE = re.compile(
    r"(?:^|,\s*)(?P<unit>lines?|pages?|slides?|rows?|cells?)\s+"
    r"(?P<first>\d+)(?:\s*[-–]\s*(?P<last>\d+))?(?P<more>(?:,\s*\d+(?:\s*[-–]\s*\d+)?)*)"
)
_NUMBER = re.compile(r"\d+")
# A request's range: PATH:12-40, PATH:12–40 (as citations print it), PATH:12.
_RANGE = re.compile(r"^(?P<path>.+?):(?P<first>\d+)(?:\s*[-–]\s*(?P<last>\d+))?$")


@dataclass(frozen=True)
class Span:
    """Units `first` to `last` (inclusive) of one kind: lines of the file, pages ..."""

    unit: Unit
    first: int
    last: int

    def meets(self, first: int, last: int) -> bool:
        return self.first <= last and first <= self.last


def span_of(locator: str | None, page: int | None = None) -> Span | None:
    """The span a locator names; a page number alone when there is no locator."""
    if locator:
        found = _PLACE.search(locator)
        if found:
            unit: Unit = found["unit"].rstrip("s")  # type: ignore[assignment]
            numbers = [int(found["first"])]
            numbers.append(int(found["last"] or found["first"]))
            numbers.extend(int(n) for n in _NUMBER.findall(found["more"] or ""))
            return Span(unit, min(numbers), max(numbers))
    if page:
        return Span("page", page, page)
    return None


@dataclass(frozen=True)
class Request:
    """`ragcli show PATH[:START-END]`: the path, and the range asked for (None: whole)."""

    path: str
    first: int | None = None
    last: int | None = None

    @property
    def whole(self) -> bool:
        return self.first is None

    def shown(self) -> str:
        if self.first is None:
            return self.path
        return f"{self.path}:{self.first}" + (f"-{self.last}" if self.last != self.first else "")


def parse_request(spec: str, known: frozenset[str] = frozenset()) -> Request:
    """`PATH`, `PATH:START-END` or `PATH:LINE`. A path that is itself stored (one holding
    a colon and digits, a URL with a port) is taken whole. A range whose end comes before
    its start is a ValueError."""
    spec = spec.strip()
    found = _RANGE.match(spec)
    if found is None or spec in known or _is_port(found["path"]):
        return Request(spec)
    first = int(found["first"])
    last = int(found["last"]) if found["last"] else first
    if last < first:
        raise ValueError(f"{spec}: the range ends ({last}) before it starts ({first})")
    if first < 1:
        raise ValueError(f"{spec}: ranges count from 1")
    return Request(found["path"], first, last)


def _is_port(before: str) -> bool:
    """`http://host:8080`: the number after a URL's host is its port, not a range."""
    scheme, sep, rest = before.partition("://")
    return bool(sep) and "/" not in rest
