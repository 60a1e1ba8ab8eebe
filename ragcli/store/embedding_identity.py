"""Which embedding model and precision built each collection, kept in the store directory
(`embeddings.json`), so a collection is never searched with vectors from another precision:
int8 and fp32 vectors of the same text differ a little (cosine ≈ 0.995), enough to reorder
close results, and mixing them in one collection would do that silently."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ragcli.errors import ConfigError

FILE = "embeddings.json"


def identity(embedder: Any) -> dict[str, str]:
    return {"model": embedder.name, "precision": getattr(embedder, "precision", "fp32")}


def recorded(store_dir: Path) -> dict[str, dict[str, str]]:
    try:
        found = json.loads((Path(store_dir) / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def check(store_dir: Path, collection: str, embedder: Any, has_chunks: bool) -> None:
    """Refuse to use `collection` with an embedder of another precision than it was built
    with. A collection stored before precisions existed was built with fp32."""
    if not has_chunks:  # empty (or emptied by `ragcli rm`): any precision may fill it
        return
    built = recorded(store_dir).get(collection) or {"precision": "fp32"}
    wanted = identity(embedder)["precision"]
    if built.get("precision", "fp32") != wanted:
        raise ConfigError(
            f"collection {collection!r} was built with {built.get('precision', 'fp32')} "
            f"embeddings and embedding.precision is {wanted}: set embedding.precision to "
            f"{built.get('precision', 'fp32')}, or switch by re-ingesting: into a new "
            "collection (--collection NAME) or store (--store DIR), or after `ragcli rm` of "
            "its files"
        )


def record(store_dir: Path, collection: str, embedder: Any) -> None:
    """Remember the embedder that writes `collection` (done before its first write)."""
    found = recorded(store_dir)
    if found.get(collection) == identity(embedder):
        return
    found[collection] = identity(embedder)
    Path(store_dir).mkdir(parents=True, exist_ok=True)
    record_all(store_dir, found)


def record_all(store_dir: Path, found: dict[str, dict[str, str]]) -> None:
    fd, tmp = tempfile.mkstemp(dir=store_dir, prefix=FILE, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(found, out, indent=2)
    os.replace(tmp, Path(store_dir) / FILE)
