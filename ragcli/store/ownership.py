"""Who may ingest into a collection on a shared Chroma server.

The manifest and the ingest journal (what makes ingest incremental and crash-safe) live
in the store directory of the machine that ingests. Two machines with two manifests could
replace each other's chunks without either knowing, so with `store.url` each collection is
claimed by one store directory: its id is recorded on the server at the first ingest, and
an ingest from any other store directory is refused with a message naming the owner.
Asking needs no claim: anyone can ask from anywhere."""

from __future__ import annotations

import socket
import uuid
from datetime import UTC, datetime
from pathlib import Path

from ragcli.atomic import write_text_atomically
from ragcli.errors import ExitCode, RagcliError
from ragcli.store.collections import OWNERS_COLLECTION
from ragcli.store.vectors import VectorStore

STORE_ID_FILE = "store-id"


class NotOwnerError(RagcliError):
    exit_code = ExitCode.USAGE


def store_id(store_dir: Path) -> str:
    path = store_dir / STORE_ID_FILE
    if path.is_file():
        return path.read_text().strip()
    store_dir.mkdir(parents=True, exist_ok=True)
    new = uuid.uuid4().hex
    write_text_atomically(path, new + "\n")
    return new


def claim(store: VectorStore, store_dir: Path, collection: str) -> None:
    """Make sure this store directory owns `collection` on the server (claim it if free)."""
    owners = store.client.get_or_create_collection(OWNERS_COLLECTION, embedding_function=None)
    me = store_id(store_dir)
    owner = _owner(owners, collection)
    if owner is None:
        owners.upsert(
            ids=[collection],
            embeddings=[[0.0]],  # type: ignore[arg-type]  # chromadb's stubs omit lists
            metadatas=[
                {
                    "store_id": me,
                    "host": socket.gethostname(),
                    "path": str(store_dir.resolve()),
                    "claimed_at": datetime.now(UTC).isoformat(timespec="seconds"),
                }
            ],
        )
        owner = _owner(owners, collection)  # read back: two first claims, one winner
    if owner and owner.get("store_id") != me:
        raise NotOwnerError(
            f"collection {collection!r} on {store.location} is ingested from "
            f"{owner.get('host')}:{owner.get('path')}: run `ragcli ingest` there, or copy "
            "that store directory here (see docs/sharing.md)"
        )


def _owner(owners, collection: str) -> dict | None:
    got = owners.get(ids=[collection], include=["metadatas"])
    return dict(got["metadatas"][0]) if got["ids"] else None
