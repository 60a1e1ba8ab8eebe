"""`ragcli ingest` of local paths, sites and repositories together: one Source chaining
each root's (files first, then each remote root in the order given), written by the
Ingestor in one run, one report."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from ragcli.errors import RagcliError
from ragcli.ingest.items import FileOutcome, Item, Source
from ragcli.ingest.reuse import find_stored_copy
from ragcli.ingest.runner import STREAM_BYTES, Ingestor, IngestReport, ProgressFn, chunk_id
from ragcli.remote.fetch import Limits
from ragcli.remote.git import GitSource
from ragcli.remote.roots import GitRoot, Root, WebRoot
from ragcli.remote.state import RemoteState
from ragcli.remote.web import CrawlOptions, WebSource


@dataclass
class RemoteOptions:
    crawl: CrawlOptions = field(default_factory=CrawlOptions)


class ChainedEntries:
    """Each source's entries in turn, tagged with the source's index; a crawl's are found
    as it goes, so the length is the sum of what each knows now."""

    def __init__(self, parts: list[Any]):
        self.parts = parts
        self.activity: Any = None

    def __len__(self) -> int:
        return sum(len(part) for part in self.parts)

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        for index, part in enumerate(self.parts):
            for entry in part:
                yield index, entry

    def follow(self, activity: Any) -> None:
        for part in self.parts:
            if hasattr(part, "follow"):
                part.follow(_Total(activity, self))
        activity.files_total = len(self)


class _Total:
    """Hands a crawl's growing count on to the activity as the chain's total."""

    def __init__(self, activity: Any, chain: ChainedEntries):
        self._activity, self._chain = activity, chain

    @property
    def files_total(self) -> int:
        return self._activity.files_total

    @files_total.setter
    def files_total(self, _value: int) -> None:
        self._activity.files_total = len(self._chain)


class Chain:
    """Several sources as one. Entries are listed lazily: a repository is fetched, and a
    site's sitemaps read, when the run reaches them."""

    def __init__(self, sources: list[Any]):
        self.sources = sources

    def entries(self) -> ChainedEntries:
        return ChainedEntries([_Lazy(source) for source in self.sources])

    def prepare(self, entry: tuple[int, Any]) -> FileOutcome | Item:
        index, inner = entry
        return self.sources[index].prepare(inner)

    def finish(self, outcome: FileOutcome | Item) -> FileOutcome | Item:
        for source in self.sources:
            finish = getattr(source, "finish", None)
            if finish is not None and isinstance(outcome, Item) and outcome.parsing:
                return finish(outcome)
        return outcome

    def gone(self) -> list[tuple[str, str]]:
        return [pair for source in self.sources for pair in source.gone()]

    def moved(self) -> list[tuple[str, str]]:
        return [p for s in self.sources if hasattr(s, "moved") for p in s.moved()]

    def close(self, stopping: bool = False) -> None:
        for source in self.sources:
            close = getattr(source, "close", None)
            if close is not None:
                close(stopping)

    def summaries(self) -> list[dict[str, Any]]:
        return [s.summary() for s in self.sources if hasattr(s, "summary")]


class _Lazy:
    """A source's entries, listed when first iterated (or measured)."""

    def __init__(self, source: Any):
        self.source = source
        self._entries: Any = None
        self._activity: Any = None

    def _list(self) -> Any:
        if self._entries is None:
            self._entries = self.source.entries()
            if self._activity is not None and hasattr(self._entries, "follow"):
                self._entries.follow(self._activity)
        return self._entries

    def __len__(self) -> int:
        return 0 if self._entries is None else len(self._entries)

    def __iter__(self) -> Iterator[Any]:
        entries = self._list()
        if self._activity is not None:
            self._activity.files_total = self._activity.files_total  # the chain's new total
        return iter(entries)

    def follow(self, activity: Any) -> None:
        self._activity = activity


def ingest_roots(
    ingestor: Ingestor,
    roots: list[Root],
    collection: str,
    prune: bool = False,
    progress: ProgressFn | None = None,
    options: RemoteOptions | None = None,
) -> IngestReport:
    """Ingest every root into `collection`: what `ragcli ingest` runs."""
    options = options or RemoteOptions()
    paths = [root for root in roots if isinstance(root, Path)]
    if len(paths) == len(roots):
        return ingestor.run(paths, collection, prune=prune, progress=progress)
    for path in paths:
        if not path.exists() and not path.is_symlink():
            raise RagcliError(f"{path}: no such file or directory")
    state = RemoteState(ingestor.manifest.path)
    sources: list[Any] = [ingestor.file_source(paths, collection)] if paths else []
    for root in roots:
        if isinstance(root, WebRoot):
            sources.append(
                WebSource(
                    root,
                    collection,
                    ingestor.manifest,
                    state,
                    ingestor.chunker,
                    options.crawl,
                    ingestor.stop,
                )
            )
        elif isinstance(root, GitRoot):
            sources.append(_git_source(ingestor, root, collection, state))
    chain = Chain(sources)
    try:
        # A Source whose entries are sized and iterated, not indexed (a crawl's grow).
        report = ingestor.write(cast(Source[Any], chain), collection, prune, progress)
    finally:
        state.close()
    report.roots = [str(r) if isinstance(r, Path) else r.shown for r in roots]
    report.remote = chain.summaries()
    return report


def _git_source(ingestor: Ingestor, root: GitRoot, collection: str, state: RemoteState) -> Any:
    from ragcli.ingest import loaders
    from ragcli.ingest.parse_pool import ParsePool

    def find_copy(key: str, sha256: str, file_type: str):
        return find_stored_copy(ingestor.manifest, collection, key, sha256, file_type, chunk_id)

    parser = ParsePool(ingestor.chunker, loaders.current_options(), ingestor.workers)
    return GitSource(
        root,
        state,
        collection,
        ingestor.manifest,
        ingestor.chunker,
        ingestor.qna_collection,
        STREAM_BYTES,
        find_copy,
        parser,
    )


__all__ = ["Limits", "RemoteOptions", "ingest_roots"]
