"""`ragcli ingest PATH --watch`: after the first pass, the store follows the files.

watchfiles reports bursts of changes (gathered until the tree has been quiet for
STEP_MS, at most DEBOUNCE_MS); each burst becomes one write through the Ingestor, with
only the touched files as its source, so the ingest lock is held only while writing and
`ask` keeps working. Editor save patterns (a temp file renamed over the original, delete
then recreate) land in one burst and end as one stored version; a rename finds its
content stored and costs no embedding. A write killed half-way is journaled like any
ingest's, and the next write (or the next `ragcli ingest`) repairs it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ragcli.errors import RagcliError
from ragcli.ingest.files import FileSource, resolved
from ragcli.ingest.items import FileOutcome, Item
from ragcli.ingest.loaders import file_type_of
from ragcli.ingest.qna import QNA_SUFFIXES
from ragcli.ingest.walker import IGNORE_FILE, visible, walk

if TYPE_CHECKING:
    from ragcli.ingest.runner import Ingestor, IngestReport

DEBOUNCE_MS = 1600  # a burst is written after this long at most
STEP_MS = 300  # ... or once the tree has been quiet this long
# The watcher wakes at least this often: to see that it has started, and to retry a write
# that could not run (the store locked by another ingest).
WAKE_MS = 1000


@dataclass
class AppliedChange:
    """One line of the watch log: `changed docs/a.md: 3 chunks replaced`."""

    action: str  # new | changed | removed | moved | copied | failed | skipped | error
    path: str
    chunks: int = 0  # stored (new, changed, moved, copied) or removed
    reused: bool = False  # moved or copied: the stored chunks were reused, not embedded
    old_path: str = ""  # moved: where it was; copied: the file it copies
    reason: str = ""  # failed, skipped, error


@dataclass
class TouchedFiles:
    """One burst's files as an ingest source: those that exist are (re)read, and the
    ingested files at or under a touched path that no longer exists are gone."""

    files: FileSource
    touched: list[Path]
    gone_paths: list[str] = field(default_factory=list)

    def entries(self) -> list[Path]:
        found: dict[Path, Path] = {}
        for path in self.touched:
            if path.is_dir() and not path.is_symlink():  # a folder created or moved in
                candidates: Iterable[Path] = walk(path)
            elif path.exists() or path.is_symlink():
                candidates = [path]
            else:
                self.gone_paths.append(str(resolved(path.parent) / path.name))
                continue
            for candidate in candidates:
                if any(visible(root, candidate) for root in self.files.paths):
                    found.setdefault(resolved(candidate), candidate)
        return list(found.values())

    def prepare(self, entry: Path) -> FileOutcome | Item:
        return self.files.prepare(entry)

    def finish(self, outcome: FileOutcome | Item) -> FileOutcome | Item:
        return self.files.finish(outcome)

    def close(self, stopping: bool = False) -> None:
        self.files.close(stopping)

    def gone(self) -> list[tuple[str, str]]:
        if not self.gone_paths:
            return []
        return [
            (key, reason)
            for key, reason in self.files.gone()
            if any(key == p or key.startswith(p.rstrip("/") + "/") for p in self.gone_paths)
        ]


class Watcher:
    def __init__(
        self,
        ingestor: Ingestor,
        roots: list[Path],
        collection: str,
        on_change: Callable[[AppliedChange], None],
        stop: threading.Event | None = None,
        on_ready: Callable[[], None] | None = None,
        on_wake: Callable[[], None] | None = None,
    ):
        self.ingestor = ingestor
        self.roots = [resolved(root) for root in roots]
        self.collection = collection
        self.on_change = on_change
        self.stop = stop or threading.Event()
        self.writing = threading.Event()  # set while a burst is being written
        self.pending: set[Path] = set()  # touched, not yet written (the store was locked)
        self.on_ready = on_ready  # called once the watch is in place and caught up
        self.catch_up = True  # the whole tree is read again once the watch is in place
        # Called at every wake-up, between bursts: a sync of remote roots when one is due.
        self.on_wake = on_wake

    def wanted(self, _change: object, path: str) -> bool:
        """A change worth a write: under a root, not hidden or ignored, and a file type
        ingest reads (or a folder, or something deleted: it may have been either)."""
        candidate = Path(path)
        if not any(visible(root, candidate) for root in self.roots):
            return candidate.name == IGNORE_FILE  # new rules: the tree is read again
        return (
            file_type_of(candidate) is not None
            or candidate.suffix.lower() in QNA_SUFFIXES
            or candidate.is_dir()
            or not candidate.exists()
        )

    def run(self) -> None:
        """Apply bursts of changes until `stop` is set (Ctrl-C): a burst being written is
        finished first. The first wake-up (the OS watch is in place by then) reads the
        whole tree once more, for what changed between the first pass and the watch."""
        import watchfiles

        # A file given as a root is watched through its folder: an editor that saves by
        # renaming a new file over it would leave a watch on the file itself blind.
        folders = sorted({root if root.is_dir() else root.parent for root in self.roots})
        for changes in watchfiles.watch(
            *folders,
            watch_filter=self.wanted,
            debounce=DEBOUNCE_MS,
            step=STEP_MS,
            stop_event=self.stop,
            rust_timeout=WAKE_MS,
            yield_on_timeout=True,
            raise_interrupt=False,
        ):
            self.pending |= {Path(path) for _, path in changes}
            if self.catch_up or self.pending:
                self.apply()
            if self.on_ready and not self.catch_up:
                self.on_ready()
                self.on_ready = None
            if self.on_wake and not self.stop.is_set():
                self.writing.set()
                try:
                    self.on_wake()
                finally:
                    self.writing.clear()
            if self.stop.is_set():
                return

    def apply(self) -> IngestReport | None:
        touched, self.pending = sorted(self.pending), set()
        self.writing.set()
        try:
            if self.catch_up or any(path.name == IGNORE_FILE for path in touched):
                report = self.ingestor.write(self._full_pass(), self.collection, prune=True)
            else:
                source = TouchedFiles(self._full_pass(), touched)
                report = self.ingestor.write(source, self.collection, prune=True)
        except RagcliError as exc:  # the store is locked by another ingest, ...
            self.pending |= set(touched)
            self.on_change(AppliedChange("error", "", reason=f"{exc} (tried again in a moment)"))
            return None
        finally:
            self.writing.clear()
        self.catch_up = False
        for change in applied_changes(report):
            self.on_change(change)
        return report

    def _full_pass(self) -> FileSource:
        return self.ingestor.file_source(self.roots, self.collection)


def applied_changes(report: IngestReport) -> list[AppliedChange]:
    """What one write changed, a line a file; unchanged files (a save that wrote the same
    bytes) and problems already reported for the same content say nothing."""
    moved_to = {m["to"]: m for m in report.moved}
    changes = []
    for outcome in report.files:
        status, chunks = outcome.status, outcome.chunks
        reused = bool(outcome.copied_from)
        if outcome.path in moved_to:
            old = moved_to.pop(outcome.path)["from"]
            changes.append(AppliedChange("moved", outcome.path, chunks, reused, old))
        elif status in ("new", "changed") and reused:
            copied = AppliedChange("copied", outcome.path, chunks, True, outcome.copied_from)
            changes.append(copied)
        elif status in ("new", "changed", "removed"):
            changes.append(AppliedChange(status, outcome.path, chunks))
        elif status in ("failed", "skipped") and not outcome.repeated:
            changes.append(AppliedChange(status, outcome.path, reason=outcome.reason))
    for moved in moved_to.values():  # its content was stored under the new path already
        changes.append(AppliedChange("moved", moved["to"], moved["chunks"], True, moved["from"]))
    return changes


def watch_until_interrupted(watcher: Watcher, on_stopping: Callable[[bool], None]) -> None:
    """Run `watcher` until Ctrl-C (SIGINT) or SIGTERM: the first one stops it after the
    write in progress (`on_stopping(writing)` says so), a second one stops at once."""
    import signal

    def stop(signum: int, _frame: object) -> None:
        if watcher.stop.is_set():  # asked twice: do not wait for the write
            signal.signal(signal.SIGINT, signal.default_int_handler)
            raise KeyboardInterrupt
        watcher.stop.set()
        on_stopping(watcher.writing.is_set())

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        watcher.run()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
