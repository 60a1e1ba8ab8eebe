"""Which ingested files a search may draw on: `--path GLOB`, `--type`, `--since DATE`, and
`--meta KEY=VALUE` on their metadata (retrieval/metadata_filter.py).

A filter is resolved against the manifest into the files it admits (a `Scope`); both
retrievers then search only those files' chunks: Chroma through a `where` on
`source_file` (and on the chunks' metadata fields), the BM25 index through the admitted
chunk ids. So a filter that admits few
chunks still returns the best of them, and one that admits none is said to, never
widened to everything.

Paths are matched with the patterns `.ragignore` uses (gitignore style, via pathspec):
`*.md` and `handbook/` match at any depth, `docs/*.md` from the top, `!drafts/` excludes.
A file's path is tried relative to the working directory and to the folder holding the
store (the server's working directory may be anywhere), and as an absolute path.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ragcli.errors import ConfigError
from ragcli.metadata import KeySummary, key_summary
from ragcli.models import SearchFilters
from ragcli.retrieval.metadata_filter import MetaFilter, parse_condition
from ragcli.store.manifest import FileRecord

AGE = re.compile(r"^\s*(\d+)\s*(h|d|w)\s*$", re.IGNORECASE)
AGE_UNITS = {"h": "hours", "d": "days", "w": "weeks"}
# Above this many admitted files, Chroma is given the (smaller) list of files left out.
WHERE_LIST_LIMIT = 500
KEYS_SHOWN = 6  # metadata keys a "nothing matched" message names


def make_filters(
    paths: Iterable[str] | None = None,
    types: Iterable[str] | None = None,
    since: str | datetime | None = None,
    now: datetime | None = None,
    meta: Iterable[str] | None = None,
) -> SearchFilters:
    """Filters from what a user typed; a bad value is a ConfigError naming it."""
    cleaned_paths = [p.strip() for p in paths or []]
    for pattern in cleaned_paths:
        if not pattern or pattern == "!":
            raise ConfigError(f"--path {pattern!r}: give a file pattern such as 'docs/*.md'")
    cleaned_types = []
    for value in types or []:
        name = value.strip().lower().lstrip(".")
        if not name or not re.fullmatch(r"[a-z0-9_+-]+", name):
            raise ConfigError(f"--type {value!r}: give a file type such as pdf, md or txt")
        cleaned_types.append(name)
    when = parse_since(since, now) if isinstance(since, str) else since
    conditions = [str(parse_condition(text)) for text in meta or []]
    return SearchFilters(
        paths=list(dict.fromkeys(cleaned_paths)),
        types=list(dict.fromkeys(cleaned_types)),
        since=when,
        meta=list(dict.fromkeys(conditions)),
    )


def parse_since(text: str, now: datetime | None = None) -> datetime:
    """A date (2024-05-01), a date and time (2024-05-01T14:30, local unless it names a zone)
    or an age (36h, 7d, 2w) as an aware datetime."""
    now = now or datetime.now().astimezone()
    age = AGE.match(text)
    if age:
        return now - timedelta(**{AGE_UNITS[age.group(2).lower()]: int(age.group(1))})
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ConfigError(
            f"--since {text!r}: give a date (2024-05-01), a date and time "
            "(2024-05-01T14:30) or an age (36h, 7d, 2w)"
        ) from None
    return when if when.tzinfo else when.astimezone()  # naive: local time


@dataclass
class Scope:
    """The files a filter admits in one collection, and how each retriever is told."""

    filters: SearchFilters
    collection: str
    admitted: list[FileRecord]
    catalogue: list[FileRecord]  # every file of the collection
    # The files --path, --type and --since admit, before --meta (None: the same as
    # admitted): what the `where` on source_file names, the metadata having its own clause.
    by_file: list[FileRecord] | None = None
    meta: MetaFilter | None = None

    @property
    def files(self) -> list[str]:
        """The admitted files' paths, as chunks store them (source_file)."""
        return [record.path for record in self.admitted]

    @property
    def empty(self) -> bool:
        return not self.admitted

    @property
    def everything(self) -> bool:
        return len(self.admitted) == len(self.catalogue) and self.meta is None

    def where(self) -> dict[str, Any] | None:
        """Chroma's metadata filter: None when every file is admitted; the files left out
        when those are fewer than the files let in (a shorter query); and the chunks'
        metadata clause for --meta, as a section's metadata may differ from its file's."""
        clauses = [c for c in (self._files_clause(), self.meta and self.meta.where()) if c]
        if not clauses:
            return None
        return clauses[0] if len(clauses) == 1 else {"$and": clauses}

    def _files_clause(self) -> dict[str, Any] | None:
        records = self.admitted if self.by_file is None else self.by_file
        if len(records) == len(self.catalogue):
            return None
        files = [record.path for record in records]
        if len(files) > WHERE_LIST_LIMIT:
            admitted = set(files)
            excluded = [r.path for r in self.catalogue if r.path not in admitted]
            if len(excluded) < len(files):
                return {"source_file": {"$nin": excluded}}
        return {"source_file": {"$in": files}}

    def nothing_matched(self) -> str:
        """Why no file was admitted, with what the collection does hold."""
        where = f"collection {self.collection!r}"
        if not self.catalogue:
            return f"{where} holds no files: run `ragcli ingest PATH` first"
        if self.meta is not None and self.by_file:  # the files were there: not their metadata
            return self._no_metadata_matched(where)
        types = sorted({f.file_type for f in self.catalogue})
        count = len(self.catalogue)
        hint = ""
        if self.filters.paths:
            example = _shown(self.catalogue[0].path)
            hint = (
                f"; paths read like {example!r}: a pattern with a slash matches from "
                "their start, '**/docs/*' at any depth"
            )
        return (
            f"no ingested file in {where} matches {self.filters.describe()} "
            f"({count} file{'s' if count != 1 else ''} there, of types {', '.join(types)}; "
            f"`ragcli sources` lists them{hint})"
        )

    def _no_metadata_matched(self, where: str) -> str:
        """The key the collection lacks, with the keys it holds; or the values the keys
        asked about do hold."""
        assert self.meta is not None
        held = key_summary(record.metadata for record in self.catalogue)
        if not held:
            return (
                f"no file in {where} holds metadata (front matter, document properties): "
                "files stored before ragcli kept it gain it when they are read again"
            )
        missing = self.meta.missing
        if missing:
            keys = ", ".join(f"{item.key} ({item.files})" for item in held[:KEYS_SHOWN])
            more = f" and {len(held) - KEYS_SHOWN} more" if len(held) > KEYS_SHOWN else ""
            asked = " or ".join(repr(key) for key in missing)
            return (
                f"no file in {where} has metadata {asked} (keys there, with the files holding "
                f"each: {keys}{more}; `ragcli status` lists their values)"
            )
        named = {form for forms in self.meta.keys.values() for form in forms}
        values = "; ".join(_listed(item) for item in held if item.key in named)
        return (
            f"no ingested file in {where} matches {self.filters.describe()} (values there: "
            f"{values}; `ragcli status` lists them)"
        )


def _listed(item: KeySummary) -> str:
    """`author: Jane Doe, Bob Stone and 4 more`."""
    more = item.values - len(item.examples)
    return f"{item.key}: {', '.join(item.examples)}" + (f" and {more} more" if more > 0 else "")


def resolve(
    filters: SearchFilters,
    collection: str,
    files: list[FileRecord],
    bases: Iterable[Path] = (),
) -> Scope:
    """The files of `collection` the filters admit. `bases` are the folders a relative
    pattern may be read from (the working directory is always one)."""
    matcher = _path_matcher(filters.paths, [Path.cwd(), *bases])
    since_ns = int(filters.since.timestamp() * 1e9) if filters.since else None
    types = set(filters.types)
    admitted = [
        record
        for record in files
        if (not types or record.file_type in types)
        and (since_ns is None or record.mtime_ns >= since_ns)
        and (matcher is None or matcher(record.path))
    ]
    if not filters.meta:
        return Scope(filters, collection, admitted, list(files))
    held = {key for record in files for key in record.metadata}
    meta = MetaFilter([parse_condition(text) for text in filters.meta], held)
    with_metadata = [record for record in admitted if meta.admits(record.metadata)]
    return Scope(filters, collection, with_metadata, list(files), admitted, meta)


def _shown(path: str) -> str:
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _path_matcher(patterns: list[str], bases: list[Path]):
    """A file is admitted when one of its path forms matches a pattern (or there are only
    `!` patterns) and none matches a `!pattern`."""
    if not patterns:
        return None
    import pathspec

    wanted = [p for p in patterns if not p.startswith("!")]
    unwanted = [p[1:] for p in patterns if p.startswith("!")]
    include = pathspec.GitIgnoreSpec.from_lines(wanted) if wanted else None
    exclude = pathspec.GitIgnoreSpec.from_lines(unwanted) if unwanted else None
    roots = list(dict.fromkeys(str(b.resolve()) for b in bases))

    def matches(path: str) -> bool:
        forms = [path]
        for root in roots:
            relative = os.path.relpath(path, root)
            if not relative.startswith(".."):
                forms.append(relative)
        if exclude is not None and any(exclude.match_file(form) for form in forms):
            return False
        return include is None or any(include.match_file(form) for form in forms)

    return matches
