"""A document's metadata (front matter's tags, a Word or PDF file's properties): how it is
cleaned, stored with each chunk, and the forms a `--meta` filter matches.

Keys are lower-case words joined by `_` ("Last-Modified" is `last_modified`); a value is a
string or a list of strings. Each chunk stores, beside its own fields:

- `doc_metadata`: the metadata as read, JSON, shown with search hits and sources;
- `doc.KEY`: an array of the forms a filter matches: each value casefolded with its spaces
  collapsed, and a date's year, month and day as well (`2024-05-01T10:00` also matches
  `2024`, `2024-05` and `2024-05-01`); Chroma filters arrays with `$contains`;
- `doc_day.KEY`: a date's day as a number (20240501; a year alone is 20240000), for ranges.

The manifest keeps each file's metadata as read (the union over its sections), which
`status` counts and a filter is first resolved against (retrieval/metadata_filter.py).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

Metadata = dict[str, str | list[str]]

STORED = "doc_metadata"
MATCH_PREFIX = "doc."
DAY_PREFIX = "doc_day."
# A keywords list of hundreds, or a value of pages, says nothing a filter can use.
MAX_VALUES = 50
MAX_CHARS = 300

DATE = re.compile(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?(?:[T ]\d.*)?$")


def clean_key(key: object) -> str:
    """`Last-Modified`, `last modified` and `last_modified` are one key."""
    return re.sub(r"[^0-9a-z]+", "_", str(key).casefold()).strip("_")


def clean(metadata: Mapping[Any, Any]) -> Metadata:
    """Keys made one form, values stripped, empty ones and duplicates left out, a list of
    one a string."""
    found: dict[str, list[str]] = {}
    for raw_key, raw in metadata.items():
        key = clean_key(raw_key)
        items = raw if isinstance(raw, list | tuple) else [raw]
        values = found.setdefault(key, []) if key else []
        for item in items:
            text = " ".join(str(item).split())[:MAX_CHARS] if item is not None else ""
            if text and text not in values and len(values) < MAX_VALUES:
                values.append(text)
    return _collapsed({key: values for key, values in found.items() if values})


def key_forms(key: str) -> set[str]:
    """A key's singular and plural: tag, tags; category, categories."""
    forms = {key, f"{key}s"}
    if key.endswith("ies"):
        forms.add(f"{key[:-3]}y")
    elif key.endswith("s"):
        forms.add(key[:-1])
    if key.endswith("y"):
        forms.add(f"{key[:-1]}ies")
    return forms


def values_of(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def union(many: Iterable[Metadata]) -> Metadata:
    """Every key of any of them with all its values, in the order met: a file's metadata
    from its sections'."""
    found: dict[str, list[str]] = {}
    for metadata in many:
        for key, value in metadata.items():
            values = found.setdefault(key, [])
            values.extend(v for v in values_of(value) if v not in values)
    return _collapsed(found)


def _collapsed(found: dict[str, list[str]]) -> Metadata:
    return {key: values[0] if len(values) == 1 else values for key, values in found.items()}


def date_parts(value: str) -> tuple[int, int | None, int | None] | None:
    """(year, month, day) of a value that starts as an ISO date: 2024, 2024-05, 2024-05-01,
    2024-05-01T10:00:00+02:00; None for anything else."""
    match = DATE.match(value.strip())
    if not match:
        return None
    year, month, day = (int(g) if g else None for g in match.groups())
    assert year is not None
    try:
        date(year, month or 1, day or 1)
    except ValueError:
        return None
    return year, month, day


def day_number(parts: tuple[int, int | None, int | None]) -> int:
    """20240501; a month alone is its day 00, a year alone its month 00."""
    year, month, day = parts
    return year * 10000 + (month or 0) * 100 + (day or 0)


def fold(value: str) -> str:
    """A value as filters compare it: casefolded, its spaces collapsed."""
    return " ".join(value.casefold().split())


def match_forms(value: str) -> list[str]:
    """What a filter's value is compared with: the value folded, and for a date each
    coarser form of it."""
    forms = [fold(value)]
    parts = date_parts(value)
    if parts is not None:
        year, month, day = parts
        forms.append(f"{year:04d}")
        if month:
            forms.append(f"{year:04d}-{month:02d}")
            if day:
                forms.append(f"{year:04d}-{month:02d}-{day:02d}")
    return list(dict.fromkeys(forms))


def chroma_fields(metadata: Metadata) -> dict[str, Any]:
    """What a chunk stores of its document's metadata (see the module's docstring)."""
    if not metadata:
        return {}
    fields: dict[str, Any] = {STORED: json.dumps(metadata, ensure_ascii=False)}
    for key, value in metadata.items():
        values = values_of(value)
        fields[MATCH_PREFIX + key] = list(dict.fromkeys(f for v in values for f in match_forms(v)))
        days = [parts for v in values if (parts := date_parts(v)) is not None]
        if days:
            fields[DAY_PREFIX + key] = day_number(days[0])
    return fields


def from_chroma(stored: Mapping[str, Any]) -> Metadata | None:
    """The metadata a chunk's stored fields hold, as read; None when it has none."""
    text = stored.get(STORED)
    if not isinstance(text, str):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


@dataclass(frozen=True)
class KeySummary:
    key: str
    files: int  # documents holding it
    values: int  # its distinct values
    examples: list[str]  # the commonest


def key_summary(documents: Iterable[Metadata], examples: int = 3) -> list[KeySummary]:
    """Each key the documents hold: how many hold it, how many values it has and the
    commonest, the most held first (`status`, and a filter that matched nothing)."""
    holders: Counter[str] = Counter()
    values: dict[str, Counter[str]] = {}
    for metadata in documents:
        for key, value in metadata.items():
            holders[key] += 1
            values.setdefault(key, Counter()).update(set(values_of(value)))
    return [
        KeySummary(key, count, len(values[key]), [v for v, _ in values[key].most_common(examples)])
        for key, count in sorted(holders.items(), key=lambda item: (-item[1], item[0]))
    ]


def is_stored_field(key: str) -> bool:
    """A chunk's field that only serves metadata filters (never shown)."""
    return key == STORED or key.startswith((MATCH_PREFIX, DAY_PREFIX))
