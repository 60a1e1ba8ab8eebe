"""Chroma collections: cosine space, telemetry off, embeddings always passed explicitly
(Chroma's default embedding function would download a model at run time)."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from ragcli.config import StoreSettings
from ragcli.errors import ConfigError, RagcliError
from ragcli.models import ChunkMetadata, RetrievedChunk
from ragcli.store.collections import check_collection_name, is_internal

# Embeddings a long-lived reader keeps by chunk id (1.5 KB each at 384 dimensions).
EMBEDDINGS_KEPT = 20_000
# How long a server collection's count is trusted: another machine's ingest shows within it.
SERVER_COUNT_SECONDS = 30.0


@dataclass(frozen=True)
class ChromaServer:
    """Where a shared store lives: a Chroma server (or Chroma Cloud, which speaks the same
    API), its tenant and database, and the header a guarding proxy wants."""

    url: str
    headers: dict[str, str] = field(default_factory=dict)
    tenant: str = "default_tenant"
    database: str = "default_database"

    @classmethod
    def of(cls, settings: StoreSettings) -> ChromaServer | None:
        if not settings.url:
            return None
        headers = {}
        if settings.token is not None:
            token = settings.token.get_secret_value()
            bearer = settings.token_header.lower() == "authorization"
            headers[settings.token_header] = f"Bearer {token}" if bearer else token
        return cls(settings.url, headers, settings.tenant, settings.database)


class VectorStore:
    def __init__(self, store_dir: Path, server: ChromaServer | str | None = None):
        self.store_dir = Path(store_dir)
        self.server = ChromaServer(server) if isinstance(server, str) else server
        self.url = self.server.url if self.server else None
        self._signature: tuple[int, int] | None = None
        self._lock = threading.Lock()
        self._reopening = threading.Lock()  # one reopen at a time (the server's threads)
        self._open()

    def _open(self) -> None:
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        store_dir, server = self.store_dir, self.server
        chroma_settings = ChromaSettings(anonymized_telemetry=False)
        if server:
            url = server.url
            parsed = urlparse(url)
            if not parsed.hostname:
                raise ConfigError(f"store.url: {url!r} is not an http://HOST:PORT address")
            https = parsed.scheme == "https"
            try:
                self.client = chromadb.HttpClient(
                    host=parsed.hostname,
                    port=parsed.port or (443 if https else 8000),
                    ssl=https,
                    headers=server.headers,
                    settings=chroma_settings,
                    tenant=server.tenant,
                    database=server.database,
                )
            except Exception as exc:  # refused, unresolvable, not Chroma, no such tenant ...
                raise RagcliError(_server_problem(server, exc)) from None
            self.location = url
        else:
            self.client = chromadb.PersistentClient(
                path=str(store_dir / "chroma"), settings=chroma_settings
            )
            # Taken after opening: opening a client writes to the database itself.
            self._signature = self._disk_signature()
            self.location = str(store_dir)
        self._collections: dict[str, Any] = {}
        self._forget()

    def _forget(self) -> None:
        """Drop what was read from the store: it is reopened, or this process wrote to it."""
        # Counts by collection: a local one with the disk signature it holds for, a
        # server's with the time it expires.
        self._counts: dict[str, tuple[tuple[int, int], int]] = {}
        self._server_counts: dict[str, tuple[float, int]] = {}
        # Embeddings by chunk id: an id names one version of a file's chunk, so its vector
        # only changes with a write (which reopens the store or goes through this object).
        self._embeddings: OrderedDict[tuple[str, str], Any] = OrderedDict()
        # Heading paths by chunk id, for the same reason ("" for a chunk without one).
        self._headings: OrderedDict[tuple[str, str], str] = OrderedDict()

    def _disk_signature(self) -> tuple[int, int] | None:
        try:
            stat = (self.store_dir / "chroma" / "chroma.sqlite3").stat()
        except OSError:
            return None
        return stat.st_mtime_ns, stat.st_size

    def refresh(self, force: bool = False) -> bool:
        """Reopen a local store another process wrote to since it was opened. A Chroma
        client keeps the vector index it loaded: a long-lived reader (the MCP server)
        would otherwise miss what an ingest added, or fail to find what it removed.
        `force` reopens even when the database file looks untouched (a read that failed
        mid-write may have loaded index files written before the database). Searches
        already running keep the client they started with. True when reopened."""
        if self.url:
            return False
        from chromadb.api.client import SharedSystemClient

        with self._reopening:
            if not force and self._disk_signature() == self._signature:
                return False
            # Chroma shares one client per path in a process; a new one must not be the old.
            SharedSystemClient.clear_system_cache()
            self._open()
            return True

    def collection(self, name: str, create: bool = False):
        if name not in self._collections:
            check_collection_name(name)
            if create:
                self._collections[name] = self.client.get_or_create_collection(
                    name, embedding_function=None, metadata={"hnsw:space": "cosine"}
                )
            else:
                try:
                    self._collections[name] = self.client.get_collection(
                        name, embedding_function=None
                    )
                except Exception:
                    return None
        return self._collections[name]

    def collection_names(self) -> list[str]:
        """The collections of chunks (not the store's own, such as a server's change log)."""
        names = (c if isinstance(c, str) else c.name for c in self.client.list_collections())
        return sorted(name for name in names if not is_internal(name))

    def count(self, name: str, fresh: bool = False) -> int:
        """Chunks in the collection. A local store's count is kept while its database file
        is untouched; a server's for SERVER_COUNT_SECONDS unless `fresh` (counting a
        million chunks takes a server 0.2-0.3 s, and one ask counted three times). This
        object's own writes forget both at once."""
        signature = None
        if self.url:
            until, counted = self._server_counts.get(name, (0.0, 0))
            if not fresh and time.monotonic() < until:
                return counted
        else:
            signature = self._disk_signature()
            kept = self._counts.get(name)
            if signature is not None and kept is not None and kept[0] == signature:
                return kept[1]
        collection = self.collection(name)
        count = collection.count() if collection is not None else 0
        if self.url and count:  # not an empty one: the first ingest must show at once
            self._server_counts[name] = (time.monotonic() + SERVER_COUNT_SECONDS, count)
        elif signature is not None:
            self._counts[name] = (signature, count)
        return count

    def embeddings(self, name: str, ids: list[str]) -> dict[str, Any]:
        """The stored embeddings of these chunks (float32 arrays) by id; ids not stored are
        left out. A local store's are kept for the next call, the oldest dropped first."""
        import numpy as np

        def read(missing: list[str]) -> dict[str, Any]:
            got = self.collection(name).get(ids=missing, include=["embeddings"])
            vectors = np.asarray(got["embeddings"], dtype=np.float32)
            return dict(zip(got["ids"], vectors, strict=True))

        return self._read_through(self._embeddings, name, ids, read)

    def _read_through(
        self,
        kept: OrderedDict[tuple[str, str], Any],
        name: str,
        ids: list[str],
        read: Callable[[list[str]], dict[str, Any]],
    ) -> dict[str, Any]:
        """By id, what `kept` holds of these chunks and what `read` gives for the rest. A
        local store keeps what was read for the next call (at most EMBEDDINGS_KEPT, the
        oldest dropped first); a server's may change under it, so it keeps nothing."""
        with self._lock:
            found = {i: kept[(name, i)] for i in ids if (name, i) in kept}
        missing = [i for i in ids if i not in found]
        if not missing or self.collection(name) is None:
            return found
        fresh = read(missing)
        found.update(fresh)
        if not self.url:
            with self._lock:
                kept.update(((name, i), value) for i, value in fresh.items())
                while len(kept) > EMBEDDINGS_KEPT:
                    kept.popitem(last=False)
        return found

    def upsert(
        self,
        name: str,
        ids: list[str],
        texts: list[str],
        embeddings: Any,
        metadatas: list[dict[str, Any]],
    ) -> None:
        self._forget()
        collection = self.collection(name, create=True)
        # Chroma rejects None values: absent fields are simply left out.
        clean = [{k: v for k, v in m.items() if v is not None} for m in metadatas]
        for part in self._batches(len(ids)):
            collection.upsert(
                ids=ids[part],
                documents=texts[part],
                embeddings=embeddings[part],
                metadatas=clean[part],
            )

    def _batches(self, count: int) -> Iterator[slice]:
        """Slices of `count` records, each no larger than Chroma takes in one call."""
        step = max(1, self.client.get_max_batch_size())
        return (slice(start, start + step) for start in range(0, count, step))

    def update_metadata(self, name: str, ids: list[str], values: dict[str, Any]) -> None:
        """Set the same metadata fields on many chunks (Chroma merges them in)."""
        self._forget()
        collection = self.collection(name)
        for part in self._batches(len(ids)):
            collection.update(ids=ids[part], metadatas=[dict(values) for _ in ids[part]])

    def delete(self, name: str, where: dict[str, Any] | None = None, ids: list[str] | None = None):
        collection = self.collection(name)
        if collection is None:
            return
        if ids is not None and not ids:
            return
        self._forget()
        collection.delete(where=where, ids=ids)

    def ids_where(self, name: str, where: dict[str, Any]) -> list[str]:
        collection = self.collection(name)
        if collection is None:
            return []
        return collection.get(where=where, include=[])["ids"]

    def headings(self, name: str, ids: list[str]) -> dict[str, str]:
        """The heading path of each of these chunks that has one, by id. A local store's
        are kept for the next call, as embeddings are."""

        def read(missing: list[str]) -> dict[str, str]:
            collection = self.collection(name)
            found: dict[str, str] = {}
            for part in self._batches(len(missing)):
                got = collection.get(ids=missing[part], include=["metadatas"])
                for chunk_id, meta in zip(got["ids"], got["metadatas"], strict=True):
                    found[chunk_id] = str((meta or {}).get("heading") or "")  # "": none
            return found

        known = self._read_through(self._headings, name, ids, read)
        return {chunk_id: heading for chunk_id, heading in known.items() if heading}

    def chunks_by_id(self, name: str, ids: list[str]) -> dict[str, tuple[str, Any, dict]]:
        """Text, embedding and metadata of each of these chunks that is stored, by id."""
        collection = self.collection(name)
        if collection is None or not ids:
            return {}
        found: dict[str, tuple[str, Any, dict]] = {}
        for part in self._batches(len(ids)):
            result = collection.get(ids=ids[part], include=["documents", "embeddings", "metadatas"])
            rows = zip(
                result["ids"],
                result["documents"],
                result["embeddings"],
                result["metadatas"],
                strict=True,
            )
            found.update((i, (text, vector, meta)) for i, text, vector, meta in rows)
        return found

    def query(
        self, name: str, embedding: Any, top_k: int, where: dict[str, Any] | None = None
    ) -> list[RetrievedChunk]:
        """The top_k nearest chunks; with `where`, the nearest of the chunks it admits."""
        result = self._query(name, embedding, top_k, where, ["documents", "metadatas"])
        if result is None:
            return []
        chunks = []
        for text, meta, distance in zip(
            result["documents"][0], result["metadatas"][0], result["distances"][0], strict=True
        ):
            similarity = round(1.0 - float(distance), 4)
            chunks.append(
                RetrievedChunk(
                    content=text,
                    score=similarity,
                    metadata=ChunkMetadata(**meta),
                    component_scores={"dense": similarity},
                )
            )
        return chunks

    def nearest(
        self, name: str, embedding: Any, top_k: int, where: dict[str, Any] | None = None
    ) -> dict[str, float]:
        """The top_k nearest chunks' ids and cosine similarities, best first, without their
        text: Chroma reads documents and metadata from SQLite, which costs ~15 × the
        search itself for hybrid's 100 candidates."""
        result = self._query(name, embedding, top_k, where, [])
        if result is None:
            return {}
        return {
            chunk_id: round(1.0 - float(distance), 4)
            for chunk_id, distance in zip(result["ids"][0], result["distances"][0], strict=True)
        }

    def _query(
        self,
        name: str,
        embedding: Any,
        top_k: int,
        where: dict[str, Any] | None,
        include: list[str],
    ) -> Any:
        from chromadb.errors import InternalError

        collection = self.collection(name)
        if collection is None:
            return None
        try:
            return collection.query(
                query_embeddings=[embedding],
                n_results=top_k,
                where=where,
                include=[*include, "distances"],
            )
        except InternalError:
            raise  # read mid-write by another process: the retriever tries again
        except Exception as exc:  # a damaged index or an unreachable server
            raise RagcliError(f"vector store {self.location}: query failed: {exc}") from None

    def file_chunks(self, name: str, source_files: list[str]) -> list[tuple[str, dict]]:
        """Text and metadata of every chunk of these files (`ragcli show`, whole-document
        answers), in no particular order: the caller sorts by chunk_index."""
        collection = self.collection(name)
        if collection is None or not source_files:
            return []
        where = (
            {"source_file": source_files[0]}
            if len(source_files) == 1
            else {"source_file": {"$in": source_files}}
        )
        got = collection.get(where=where, include=["documents", "metadatas"])
        return [
            (text, dict(meta or {}))
            for text, meta in zip(got["documents"], got["metadatas"], strict=True)
        ]

    def first_chunks(self, name: str, source_files: list[str]) -> dict[str, dict]:
        """Each file's first chunk's metadata (its title, heading, the document's own
        keys), by path: what a listing of documents shows."""
        collection = self.collection(name)
        if collection is None or not source_files:
            return {}
        where = {"$and": [{"source_file": {"$in": source_files}}, {"chunk_index": 0}]}
        got = collection.get(where=where, include=["metadatas"])
        return {str(meta["source_file"]): dict(meta) for meta in got["metadatas"] if meta}

    def get(self, name: str, ids: list[str]) -> list[RetrievedChunk]:
        collection = self.collection(name)
        if collection is None or not ids:
            return []
        result = collection.get(ids=ids, include=["documents", "metadatas"])
        by_id = {
            i: RetrievedChunk(content=t, score=0.0, metadata=ChunkMetadata(**m))
            for i, t, m in zip(result["ids"], result["documents"], result["metadatas"], strict=True)
        }
        return [by_id[i] for i in ids if i in by_id]


def _server_problem(server: ChromaServer, exc: Exception) -> str:
    """One line for a Chroma server that cannot be used, from what the client raised."""
    chain: list[BaseException] = []
    link: BaseException | None = exc
    while link is not None and len(chain) < 10:  # chromadb wraps the HTTP error it met
        chain.append(link)
        link = link.__cause__ or link.__context__
    statuses = {getattr(getattr(e, "response", None), "status_code", None) for e in chain}
    text = " ".join(" ".join(str(e) for e in chain).split())
    lowered = text.lower()
    if statuses & {401, 403} or "unauthori" in lowered or "forbidden" in lowered:
        hint = "set RAGCLI_STORE_TOKEN (and store.token_header) to what it wants"
        return f"store.url {server.url}: the server refused the credentials ({hint})"
    if "tenant" in lowered or "database" in lowered:
        return (
            f"store.url {server.url}: no tenant {server.tenant!r} with database "
            f"{server.database!r} there (store.tenant, store.database)"
        )
    return (
        f"store.url {server.url}: no Chroma server answers there "
        "(start one with `chroma run --path DIR --port PORT`)"
    )
