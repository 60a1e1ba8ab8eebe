"""`--meta KEY=VALUE`: only the chunks whose document's metadata holds a value
(ragcli/metadata.py says what is stored).

A condition is `KEY=VALUE`, or a date range: `KEY>=DATE`, `KEY>DATE`, `KEY<=DATE`,
`KEY<DATE` (DATE: 2024, 2024-05 or 2024-05-01). Values compare casefolded; a date equals
each coarser form of itself (2024-05-01 is 2024-05 and 2024). The same key given again
widens the filter (any of its values), another key narrows it (every key must hold), and
a range always narrows (`date>=2024 date<2025` is the year 2024). A key is its singular
and its plural alike: `tag` finds `tags`, `category` finds `categories`.

A filter is first resolved against the manifest, where each file keeps its metadata (the
union of its sections'), and then applied to chunks in Chroma through the same `where`
both retrievers see (a section's own metadata may differ from its file's)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ragcli.errors import ConfigError
from ragcli.metadata import (
    DAY_PREFIX,
    MATCH_PREFIX,
    Metadata,
    clean_key,
    date_parts,
    day_number,
    fold,
    key_forms,
    match_forms,
    values_of,
)

CONDITION = re.compile(r"^\s*([^=<>]+?)\s*(>=|<=|=|>|<)\s*(.*?)\s*$")
CHROMA_OPERATORS = {">=": "$gte", ">": "$gt", "<=": "$lte", "<": "$lt"}
EXAMPLE = "give KEY=VALUE (tag=security, author='Jane Doe') or a date range (date>=2024-05)"


@dataclass(frozen=True)
class Condition:
    key: str  # as clean_key makes it
    operator: str  # = >= > <= <
    value: str

    def __str__(self) -> str:
        return f"{self.key}{self.operator}{self.value}"

    @property
    def bound(self) -> int:
        """A range's day number: from the first day of a month or year it names (>=, <),
        after its last (>, <=)."""
        parts = date_parts(self.value)
        assert parts is not None  # parse_condition checked it
        year, month, day = parts
        if self.operator in (">", "<="):
            return day_number((year, month or 99, day or 99))
        return day_number(parts)

    def holds_for_day(self, day: int) -> bool:
        bound = self.bound
        return {
            ">=": day >= bound,
            ">": day > bound,
            "<=": day <= bound,
            "<": day < bound,
        }[self.operator]


def parse_condition(text: str) -> Condition:
    """A condition from what a user typed; a bad one is a ConfigError naming it."""
    match = CONDITION.match(text)
    key = clean_key(match.group(1)) if match else ""
    if not match or not key or not match.group(3):
        raise ConfigError(f"--meta {text!r}: {EXAMPLE}")
    operator, value = match.group(2), match.group(3)
    if len(value) > 1 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]  # quoted inside the shell's quotes: 'author="Jane Doe"'
    if operator != "=" and date_parts(value) is None:
        raise ConfigError(
            f"--meta {text!r}: {operator} compares dates: give one as 2024, 2024-05 or 2024-05-01"
        )
    return Condition(key, operator, value)


class MetaFilter:
    """Conditions grouped by key, each key read as the forms of it a collection holds."""

    def __init__(self, conditions: list[Condition], held: set[str]):
        self.groups: dict[str, list[Condition]] = {}
        for condition in conditions:
            self.groups.setdefault(condition.key, []).append(condition)
        self.keys = {key: sorted(key_forms(key) & held) for key in self.groups}

    @property
    def missing(self) -> list[str]:
        """Keys no file of the collection holds in any form."""
        return [key for key, found in self.keys.items() if not found]

    def admits(self, metadata: Metadata) -> bool:
        """Whether a file's metadata can hold a chunk the filter admits: every key's
        values (any of its `=`), and some date of it in every range."""
        for key, conditions in self.groups.items():
            values = [v for k in self.keys[key] if k in metadata for v in values_of(metadata[k])]
            forms = {form for value in values for form in match_forms(value)}
            equal = [c for c in conditions if c.operator == "="]
            if equal and not any(fold(c.value) in forms for c in equal):
                return False
            ranges = [c for c in conditions if c.operator != "="]
            days = [day_number(p) for v in values if (p := date_parts(v)) is not None]
            if ranges and not any(all(c.holds_for_day(day) for c in ranges) for day in days):
                return False
        return True

    def where(self) -> dict[str, Any]:
        """Chroma's clause for a chunk's stored fields (metadata.chroma_fields)."""
        clauses = []
        for key, conditions in self.groups.items():
            keys = self.keys[key] or [key]  # none held: a clause that matches nothing
            equal = [c for c in conditions if c.operator == "="]
            if equal:
                clauses.append(
                    _any(
                        [
                            {MATCH_PREFIX + k: {"$contains": fold(c.value)}}
                            for c in equal
                            for k in keys
                        ]
                    )
                )
            for c in conditions:
                if c.operator != "=":
                    operator = CHROMA_OPERATORS[c.operator]
                    clauses.append(_any([{DAY_PREFIX + k: {operator: c.bound}} for k in keys]))
        return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def _any(clauses: list[dict[str, Any]]) -> dict[str, Any]:
    return clauses[0] if len(clauses) == 1 else {"$or": clauses}
