"""Files as an ingest source: the walker finds them, and each is skipped, found unchanged
(size and mtime, then content hash) or loaded and chunked into an Item."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path

from ragcli.ingest.chunker import Chunk, Chunker
from ragcli.ingest.items import FileOutcome, Item
from ragcli.ingest.loaders import (
    LoadError,
    NothingOfItsOwn,
    current_options,
    file_type_of,
    iter_sections,
    reading_of,
)
from ragcli.ingest.parse_pool import ParsePool
from ragcli.ingest.qna import NotQnaFile, qna_chunks, qna_format
from ragcli.ingest.reuse import StoredCopy
from ragcli.ingest.textstream import scan_text
from ragcli.ingest.walker import walk
from ragcli.store.manifest import Manifest, ProblemRecord


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def resolved(path: Path) -> Path:
    """The absolute path without symlinks; a symlink loop stays as it is (and fails later
    with a one-line reason)."""
    try:
        return path.resolve()
    except (RuntimeError, OSError):  # Python 3.11 raises RuntimeError on a loop
        return path.absolute()


class Resolver:
    """resolved() with each folder resolved once: a file that is not itself a link is its
    folder's resolved path plus its name (one lstat, where resolve() takes one for every
    component of the path: the largest cost of an unchanged re-ingest of many files)."""

    def __init__(self) -> None:
        self._folders: dict[Path, Path] = {}

    def __call__(self, path: Path) -> Path:
        try:
            if path.is_symlink():
                return resolved(path)
        except OSError:
            return resolved(path)
        folder = self._folders.get(path.parent)
        if folder is None:
            folder = self._folders[path.parent] = resolved(path.parent)
        return folder / path.name


class FileSource:
    """The files under `paths`, keyed in the manifest by their resolved absolute path."""

    def __init__(
        self,
        paths: list[Path],
        collection: str,
        manifest: Manifest,
        chunker: Chunker,
        qna_collection: str | None,
        stream_bytes: int,
        find_copy: Callable[[str, str, str], StoredCopy | None] | None = None,
        parser: ParsePool | None = None,
    ):
        self.paths = paths
        self.collection = collection
        self.manifest = manifest
        self.chunker = chunker
        self.qna_collection = qna_collection  # Markdown ingested here is read as Q:/A: pairs
        self.stream_bytes = stream_bytes  # text above this size is streamed, not read whole
        # (key, sha256, file type) -> the same content stored under another path, if any
        self.find_copy = find_copy
        # Parses in worker processes once there are enough files; by default (and with one
        # worker) in the calling thread.
        self.parser = parser or ParsePool(chunker, current_options(), workers=1)
        # Each entry's key: its resolved path, found by entries() (a repository's: REPO#path).
        self._keys: dict[Path, Path | str] = {}

    def entries(self) -> list[Path]:
        resolve = Resolver()
        seen: set[Path] = set()
        found = []
        for root in self.paths:
            for path in walk(root):
                key = resolve(path)
                if key not in seen:
                    seen.add(key)
                    found.append(path)
                    self._keys[path] = key
        return found

    def prepare(self, path: Path, find_copy: bool = True) -> FileOutcome | Item:
        """What to do with `path`; with `find_copy`, content stored under another path is
        taken from there, unread. A file to parse comes back still parsing (in the pool):
        `finish` waits for it."""
        known = self._keys.get(path)
        key = str(known if known is not None else resolved(path))
        try:
            outcome = self._prepare(path, key, find_copy)
        except (LoadError, OSError) as exc:
            outcome = _failure(path, key, exc)
        if isinstance(outcome, Item) and outcome.parsing is not None:
            return outcome
        return self._settled(path, outcome)

    def finish(self, outcome: FileOutcome | Item) -> FileOutcome | Item:
        """`outcome` with its parse done: an Item with its chunks, or the file's failure."""
        if not isinstance(outcome, Item) or outcome.parsing is None:
            return outcome
        path, result = outcome.parsing
        outcome.parsing = None
        try:
            parsed = result()
        except (LoadError, OSError) as exc:
            return self._settled(path, _failure(path, outcome.key, exc))
        except Exception as exc:  # a reader's bug on this file: the others are still read
            said = " ".join(str(exc).split())[:200]  # one line in the report
            reason = f"ragcli could not read it ({type(exc).__name__}: {said}); please report it"
            return self._settled(path, FileOutcome(outcome.key, "failed", reason))
        outcome.file_type, outcome.pages = parsed.file_type, parsed.pages
        outcome.chunks, outcome.notes = parsed.chunks, outcome.notes + parsed.notes
        outcome.ocr_pages = parsed.ocr_pages
        return self._settled(path, outcome)

    def close(self, stopping: bool = False) -> None:
        self.parser.close(stopping)

    def _settled(self, path: Path, outcome: FileOutcome | Item) -> FileOutcome | Item:
        if isinstance(outcome, FileOutcome) and outcome.status in ("skipped", "failed"):
            self._recall(path, outcome)
        elif isinstance(outcome, Item):
            self.manifest.forget_problem(self.collection, outcome.key)
        return outcome

    def _recall(self, path: Path, outcome: FileOutcome) -> None:
        """Mark a problem the last run already reported for this very content (size and
        time, else the content hash), and remember a new one for the next run."""
        try:
            # A broken or looping link is recognised by the link itself.
            stat = path.stat() if path.exists() else path.lstat()
        except OSError:
            return  # vanished: nothing to recognise it by
        known = self.manifest.problem(self.collection, outcome.path)
        same_verdict = known is not None and (known.status, known.reason) == (
            outcome.status,
            outcome.reason,
        )
        if (
            known
            and same_verdict
            and (known.size, known.mtime_ns)
            == (
                stat.st_size,
                stat.st_mtime_ns,
            )
        ):
            outcome.repeated = True
            return
        try:
            sha = sha256_of(path) if path.is_file() else ""
        except OSError:
            return
        outcome.repeated = bool(known and same_verdict and known.sha256 == sha)
        self.manifest.remember_problem(
            ProblemRecord(
                self.collection,
                outcome.path,
                sha,
                stat.st_size,
                stat.st_mtime_ns,
                outcome.status,
                outcome.reason,
            )
        )

    def _prepare(self, path: Path, key: str, find_copy: bool) -> FileOutcome | Item:
        if path.is_dir() and not path.is_symlink():
            return FileOutcome(key, "failed", "cannot read this folder (permission denied)")
        collection = self.collection
        stat = path.stat()
        known = self.manifest.get(collection, key)
        # A file read by an older version of its format's reading is read again.
        current = known is not None and known.reading >= reading_of(known.file_type)
        # A stored file with its size and time is unchanged, whatever its type: found before
        # its QnA sniffing, which reads the file (a workbook: all of it).
        unchanged = known and known.size == stat.st_size and known.mtime_ns == stat.st_mtime_ns
        if unchanged and known and current and path.is_file():
            return FileOutcome(key, "unchanged", chunks=known.chunk_count)
        qna = qna_format(path, collection, self.qna_collection)
        file_type = "qna" if qna else file_type_of(path)
        if file_type is None:
            return FileOutcome(key, "skipped", f"unsupported file type {path.suffix or '(none)'}")
        if not path.is_file():
            return FileOutcome(key, "skipped", "not a regular file")
        sha = sha256_of(path)
        if known and known.sha256 == sha and current:
            # Touched, not changed: remember its size and time now. Its row can hold the
            # size of an edit that was overwritten between the stat and the read that
            # stored it (a watcher amid a burst of edits).
            known.size, known.mtime_ns = stat.st_size, stat.st_mtime_ns
            self.manifest.put(known)
            return FileOutcome(key, "unchanged", chunks=known.chunk_count)
        item = Item(key, sha, stat.st_size, stat.st_mtime_ns, "changed" if known else "new", "", [])
        if known and known.sha256 == sha:
            item.notes.append(f"read again: the reading of .{known.file_type} files changed")
        copied = self.find_copy(key, sha, file_type) if self.find_copy and find_copy else None
        if copied is not None and copied.origin.reading < reading_of(file_type):
            copied = None  # stored by an older reading: read it with the current one
        if copied is not None:  # renamed, moved or copied: nothing to read or embed
            item.copied, item.file_type, item.pages = copied, file_type, copied.origin.pages
            # Should the stored chunks prove incomplete when they are read, the file is read.
            item.reread = lambda: self.finish(self.prepare(path, find_copy=False))
            return item
        if qna:
            strict = collection == self.qna_collection
            try:
                item.chunks, item.notes = qna_chunks(path, qna, self.chunker.counter, strict)
            except NotQnaFile as exc:
                return FileOutcome(key, "skipped", str(exc))
            item.file_type = "qna"
            return item
        if file_type in ("txt", "md") and stat.st_size > self.stream_bytes:
            encoding, notes = scan_text(path)
            item.notes.extend(notes)
            item.file_type = file_type

            def stream() -> Iterator[Chunk]:
                return self.chunker.iter_chunks(iter_sections(path, file_type, encoding))

            item.stream = stream
            return item
        item.parsing = (path, self.parser.submit(path))
        return item

    def gone(self) -> list[tuple[str, str]]:
        """Files ingested from under these paths that no longer exist."""
        roots = [str(p.resolve()) for p in self.paths]
        return [
            (record.path, "file no longer exists")
            for record in self.manifest.files(self.collection)
            if any(_under(record.path, r) for r in roots) and not Path(record.path).exists()
        ]


def _failure(path: Path, key: str, exc: Exception) -> FileOutcome:
    if isinstance(exc, NothingOfItsOwn):
        return FileOutcome(key, "skipped", str(exc))
    if isinstance(exc, LoadError):
        return FileOutcome(key, "failed", str(exc))
    if isinstance(exc, PermissionError):
        return FileOutcome(key, "failed", "permission denied")
    assert isinstance(exc, OSError)
    # A broken or looping symlink is named by the link, not by where it points.
    shown = str(path.absolute()) if path.is_symlink() else key
    return FileOutcome(shown, "failed", exc.strerror or str(exc))


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")
