"""The BM25 indexes beside the Chroma collections, kept in step with them.

Each collection has its own LexicalIndex in STORE/lexical/NAME. Ingest mirrors every chunk
it stores or deletes into the index and saves it at the end of the run. A writer marks the
index UNSAVED before its first change and clears the mark when it saves, so a run killed in
between (the manifest and Chroma moved on, the index did not) is caught up at the next
ingest by comparing the two id sets; a run that ended well costs no such listing.

On a shared Chroma server each machine has its own index. Writers append what they changed
to the server's change log (bm25/change_log.py); a reader applies the records it has not
seen and saves the result, so only the first ask on a machine reads the whole collection
and later ones read the changes alone. A query that still finds the index out of step
repairs it and warns, rather than silently ranking an incomplete index.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragcli.atomic import write_text_atomically
from ragcli.bm25 import build as lexical_build
from ragcli.bm25 import change_log as lexical_log
from ragcli.bm25.index import LexicalIndex
from ragcli.store.lock import StoreBusyError, StoreLock

log = logging.getLogger("ragcli")
logging.getLogger("bm25s").setLevel(logging.WARNING)  # its index() logs chatter at debug

FETCH_BATCH = 1000  # chunk texts read from Chroma per call while repairing
UNSAVED = "UNSAVED"  # a writer changed the index and has not saved it yet
SYNC_STATE = "sync.json"  # which change-log records of which server the saved index holds
UNPUBLISHED = "unpublished.json"  # a writer's changes the server's log could not take yet


@dataclass
class Reconciled:
    added: int = 0
    removed: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed)


@dataclass
class SyncState:
    """What of a server's change log the saved index has applied."""

    server: str
    head: str | None = None
    applied: set[str] = field(default_factory=set)

    @classmethod
    def load(cls, path: Path) -> SyncState | None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(data["server"], data.get("head"), set(data.get("applied", [])))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def save(self, path: Path) -> None:
        data = {"server": self.server, "head": self.head, "applied": sorted(self.applied)}
        write_text_atomically(path, json.dumps(data))


@dataclass
class Pending:
    """A writer's net change since its last save, to be published in the change log."""

    added: set[str] = field(default_factory=set)
    removed: set[str] = field(default_factory=set)

    def add(self, ids: list[str]) -> None:
        self.added.update(ids)
        self.removed.difference_update(ids)

    def remove(self, ids: list[str]) -> None:
        self.removed.update(ids)
        self.added.difference_update(ids)

    def merged(self, later: Pending) -> Pending:
        both = Pending(set(self.added), set(self.removed))
        both.remove(sorted(later.removed))
        both.add(sorted(later.added))
        return both


def lexical_dir(store_dir: Path, collection: str) -> Path:
    return Path(store_dir) / "lexical" / collection


def server_key(store: Any) -> str:
    server = store.server
    return f"{server.url}|{server.tenant}|{server.database}"


def lexical_indexes(store_dir: Path, shared: bool) -> LexicalIndexes:
    """The indexes of a store, kept in step the way its Chroma calls for: a local store
    by counting, a shared server by its change log. Chosen once, here."""
    return SharedIndexes(store_dir) if shared else LocalIndexes(store_dir)


class LexicalIndexes:
    """The BM25 index of every collection in one store directory: what a writer and a
    reader do alike. How the index catches up with Chroma is the subclass's job."""

    def __init__(self, store_dir: Path) -> None:
        self.store_dir = Path(store_dir)
        self._indexes: dict[str, LexicalIndex] = {}
        self._pending: dict[str, Pending] = {}
        self._building: set[str] = set()  # collections whose last search found no index yet
        self._lock = threading.Lock()  # a server's threads share one index per collection

    def index(self, collection: str) -> LexicalIndex:
        with self._lock:
            if collection not in self._indexes:
                self._indexes[collection] = LexicalIndex(lexical_dir(self.store_dir, collection))
            return self._indexes[collection]

    # ---- the writer's side (the ingest lock held) ---------------------------------------------

    def begin(self, collection: str) -> None:
        """Mark the index as about to change: called before a run's first write."""
        directory = lexical_dir(self.store_dir, collection)
        directory.mkdir(parents=True, exist_ok=True)
        (directory / UNSAVED).touch()

    def upsert(
        self, collection: str, ids: list[str], texts: list[str], languages: list[str] | None = None
    ) -> None:
        self.index(collection).upsert(ids, texts, languages)
        self._changes(collection).add(ids)

    def copy(self, collection: str, ids: list[str], sources: list[str], texts: list[str]) -> None:
        self.index(collection).copy(ids, sources, texts)
        self._changes(collection).add(ids)

    def delete(self, collection: str, ids: list[str]) -> None:
        if ids:
            self.index(collection).delete(ids)
            self._changes(collection).remove(ids)

    def save(self, collection: str, store: Any) -> None:
        """Persist the index; the run that changed it is over."""
        self.index(collection).save()
        self._saved(collection, store, self._pending.pop(collection, Pending()))
        (lexical_dir(self.store_dir, collection) / UNSAVED).unlink(missing_ok=True)

    def _saved(self, collection: str, store: Any, changes: Pending) -> None:
        """What else a saved index calls for, before the run's mark is cleared."""

    def catch_up(self, collection: str, vectors: Any, stored: int) -> Reconciled:
        """Before a run writes: take in what the index missed. `stored`: the chunks the
        manifest says the collection holds, so that a local store in step is not read."""
        raise NotImplementedError

    def _killed(self, collection: str) -> bool:
        """A run of this machine was killed between its first write and its save."""
        return (lexical_dir(self.store_dir, collection) / UNSAVED).exists()

    def verify(self, collection: str, vectors: Any) -> None:
        """After a run that changed the index: compare it with Chroma (loaded by the
        writes, so counting is cheap) and repair what a damaged store left, such as a chunk
        deleted behind ragcli's back. A run that changed nothing reads nothing."""
        if collection in self._pending and len(self.index(collection)) != vectors.count(
            collection, fresh=True
        ):
            self.reconcile(collection, vectors, publish=True)

    # ---- the reader's side --------------------------------------------------------------------

    def building(self, collection: str) -> bool:
        """Whether the last search of `collection` found its index still being built."""
        return collection in self._building

    def searchable(self, collection: str, vectors: Any) -> LexicalIndex | None:
        """The index, in step with Chroma; a long-lived reader first moves to the
        generation an ingest saved since. None while it is still being built."""
        raise NotImplementedError

    def reconcile(self, collection: str, vectors: Any, publish: bool = False) -> Reconciled:
        """Make the index hold exactly the chunks Chroma holds: index what it lacks (texts
        read back from Chroma), drop what Chroma no longer has. `publish`: a writer's
        repair, which other machines learn from its next log record."""
        chroma = vectors.collection(collection)
        stored = set(chroma.get(include=[])["ids"]) if chroma is not None else set()
        index = self.index(collection)
        indexed = set(index.ids())
        missing = sorted(stored - indexed)
        extra = sorted(indexed - stored)
        self._index_texts(index, vectors, collection, missing)
        index.delete(extra)
        if publish:
            self._changes(collection).add(missing)
            self._changes(collection).remove(extra)
        return Reconciled(len(missing), len(extra))

    # ---- internals ------------------------------------------------------------------------------

    def _changes(self, collection: str) -> Pending:
        if collection not in self._pending:
            self.begin(collection)  # a writer that did not say so (a removal) is marked too
            self._pending[collection] = Pending()
        return self._pending[collection]

    def _index_texts(
        self, index: LexicalIndex, vectors: Any, collection: str, ids: list[str]
    ) -> int:
        """Index the texts Chroma holds for `ids` (ids it no longer has are skipped)."""
        chroma = vectors.collection(collection)
        found = 0
        for start in range(0, len(ids), FETCH_BATCH):
            got = chroma.get(
                ids=ids[start : start + FETCH_BATCH], include=["documents", "metadatas"]
            )
            languages = [str((meta or {}).get("language") or "") for meta in got["metadatas"]]
            index.upsert(got["ids"], [text or "" for text in got["documents"]], languages)
            found += len(got["ids"])
        return found


class LocalIndexes(LexicalIndexes):
    """A local store: this machine is the only writer, so a count tells whether the index
    is in step, and only a run killed before its save needs a repair."""

    def catch_up(self, collection: str, vectors: Any, stored: int) -> Reconciled:
        if self._killed(collection) or len(self.index(collection)) != stored:
            return self.reconcile(collection, vectors)
        return Reconciled()

    def searchable(self, collection: str, vectors: Any) -> LexicalIndex | None:
        index = self.index(collection)
        index.refresh()
        if len(index) != vectors.count(collection):
            fixed = self.reconcile(collection, vectors)
            if fixed.changed:
                log.warning(
                    "BM25 index of collection %r was out of step with the vector store "
                    "(%d chunks missing, %d extra); repaired for this run, and "
                    "`ragcli ingest` will save the repair",
                    collection,
                    fixed.added,
                    fixed.removed,
                )
        return index


class SharedIndexes(LexicalIndexes):
    """A shared Chroma server: each machine has its own index. Writers append what they
    changed to the server's change log; a reader applies the records it has not seen."""

    def __init__(self, store_dir: Path) -> None:
        super().__init__(store_dir)
        self._states: dict[str, SyncState] = {}  # what each index applied of a server's log
        self._said_building: set[str] = set()
        self._started: set[str] = set()  # collections whose builder this process started

    def save(self, collection: str, store: Any) -> None:
        """Persist the index and publish this writer's changes in the server's log."""
        if collection not in self._states:
            self._sync(collection, store, publish=False)  # others' records first: not news
        super().save(collection, store)

    def _saved(self, collection: str, store: Any, changes: Pending) -> None:
        self._publish(collection, store, changes)

    def catch_up(self, collection: str, vectors: Any, stored: int) -> Reconciled:
        """What other machines logged, and what a killed run of this machine left
        unindexed (published with this run's changes)."""
        return self._sync(collection, vectors, publish=self._killed(collection))

    def searchable(self, collection: str, vectors: Any) -> LexicalIndex | None:
        """The changes other machines logged are applied (and saved, so the next ask
        starts from them). None while a machine new to a large shared collection builds
        the index in the background (said once)."""
        index = self.index(collection)
        index.refresh()
        try:
            fixed = self._sync(collection, vectors, publish=False, background=True)
        except lexical_build.Building as building:
            self._building.add(collection)
            if collection not in self._said_building:
                self._said_building.add(collection)
                log.warning("%s; until then answers use the dense retriever alone", building)
            return None
        self._building.discard(collection)
        if fixed.changed:
            self._save_as_reader(collection)
        return index

    def sync_now(self, collection: str, vectors: Any, lock_timeout: float) -> Reconciled:
        """`ragcli sync`: bring the index in step with a server and save it, whatever it
        costs; one builder per collection at a time (a second one waits for the first)."""
        building = lexical_build.BuildLock(lexical_dir(self.store_dir, collection))
        try:
            building.wait()
            self.index(collection).refresh()
            fixed = self._sync(collection, vectors, publish=False)
            with StoreLock(self.store_dir, lock_timeout):  # not in the middle of an ingest
                self.index(collection).save()
                self._write_state(collection)
            return fixed
        finally:
            building.close()

    def _state_path(self, collection: str) -> Path:
        return lexical_dir(self.store_dir, collection) / SYNC_STATE

    def _sync(
        self, collection: str, vectors: Any, publish: bool, background: bool = False
    ) -> Reconciled:
        """Apply the server's change-log records this index has not seen; the whole
        collection is listed only by a machine new to the server, or when the log and
        the collection disagree (a writer killed before it logged)."""
        saved = SyncState.load(self._state_path(collection))
        state = self._states.get(collection, saved)
        key = server_key(vectors)
        marks = lexical_log.marks(vectors, collection)
        head = marks.head
        index = self.index(collection)
        if state is not None and state.server == key and state.head == head and not publish:
            if len(index) == vectors.count(collection):
                return Reconciled()
        records = lexical_log.record_ids(vectors, collection)  # before the collection is read
        # Records this index has not applied were trimmed from the log: like a new machine.
        behind = state is not None and marks.floor is not None and marks.floor > (state.head or "")
        if state is None or state.server != key or behind:  # everything is news
            directory = lexical_dir(self.store_dir, collection)
            chunks = vectors.count(collection)
            if background and chunks - len(index) > lexical_build.FOREGROUND_CHUNKS:
                if collection not in self._started:  # once: a builder takes a while to lock
                    lexical_build.start(directory, self.store_dir, collection, vectors.server)
                    self._started.add(collection)
                raise lexical_build.Building(collection, chunks)
            fixed = self.reconcile(collection, vectors)
        else:
            unseen = [r for r in records if r not in state.applied]
            fixed = self._apply(collection, vectors, lexical_log.read(vectors, unseen))
            if len(index) != vectors.count(collection, fresh=True):  # the head moved
                more = self.reconcile(collection, vectors, publish=publish)
                fixed = Reconciled(fixed.added + more.added, fixed.removed + more.removed)
        self._states[collection] = SyncState(key, head, set(records))
        return fixed

    def _save_as_reader(self, collection: str) -> None:
        """Save what a reader applied, unless an ingest holds the store (it saves its own
        view when it ends; this process keeps searching its copy in memory)."""
        lock = StoreLock(self.store_dir, timeout=0)
        try:
            lock.acquire()
        except (StoreBusyError, OSError):
            return
        try:
            self.index(collection).save()
            self._write_state(collection)
        finally:
            lock.release()

    def _write_state(self, collection: str, own: tuple[str, ...] = ()) -> None:
        state = self._states.get(collection)
        if state is None:
            return
        state.applied.update(own)  # a writer's own records hold nothing it lacks
        state.save(self._state_path(collection))

    def _publish(self, collection: str, store: Any, changes: Pending) -> None:
        """Log this writer's changes on the server; when the server cannot take them, they
        wait in a file beside the index for the next save."""
        waiting = lexical_dir(self.store_dir, collection) / UNPUBLISHED
        try:
            earlier = json.loads(waiting.read_text(encoding="utf-8"))
            changes = Pending(set(earlier["added"]), set(earlier["removed"])).merged(changes)
        except (OSError, ValueError, KeyError, TypeError):
            pass
        try:
            own = lexical_log.append(store, collection, changes.added, changes.removed)
            keep = max(store.count(collection), lexical_log.IDS_PER_RECORD)
            lexical_log.trim(store, collection, keep_ids=keep)
        except Exception as error:  # noqa: BLE001 - any failure of the server is reported alike
            log.warning(
                "could not log the change of collection %r on %s (%s); it is logged at the "
                "next ingest, and until then other machines see it only when chunk counts differ",
                collection,
                store.url,
                str(error).splitlines()[0] if str(error) else type(error).__name__,
            )
            data = {"added": sorted(changes.added), "removed": sorted(changes.removed)}
            write_text_atomically(waiting, json.dumps(data))
            return
        waiting.unlink(missing_ok=True)
        self._write_state(collection, tuple(own))

    def _apply(self, collection: str, vectors: Any, changes: list) -> Reconciled:
        index = self.index(collection)
        removed = [i for change in changes for i in change.removed]
        added = list(dict.fromkeys(i for change in changes for i in change.added))
        index.delete(removed)
        added_count = self._index_texts(index, vectors, collection, added)
        return Reconciled(added_count, len(removed))
