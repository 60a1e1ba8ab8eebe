"""What built each collection's vectors, recorded with the collection in Chroma (its
metadata), so every machine that opens a shared collection sees it: the provider (this
process, or a serving engine), the model, the dimension, whether vectors are normalised and
the precision. A collection is never searched or extended with vectors of another
identity: another model's vectors are meaningless against it, and even int8 and fp32
vectors of one model differ a little (cosine ≈ 0.995), enough to reorder close results.

Two providers that claim the same model may share a collection: a server that serves a
model this machine also has is checked against it once (embedding/probe.py).

Stores written before this recorded the model and precision in `embeddings.json` in the
store directory; it is read when a collection has no record and migrated into the
collection at its next ingest."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from ragcli.errors import ConfigError

FILE = "embeddings.json"  # the record of older stores, read only
PREFIX = "ragcli_embedding_"
BUNDLED_NAMES = {"sentence-transformers/all-MiniLM-L6-v2": "all-MiniLM-L6-v2"}


@dataclass(frozen=True)
class Identity:
    provider: str  # "local" or "openai" (a serving engine)
    model: str
    precision: str = "fp32"
    dimension: int | None = None  # None: not known (a record from an older ragcli)
    normalized: bool = True

    def to_metadata(self) -> dict[str, Any]:
        values = {key: value for key, value in asdict(self).items() if value is not None}
        return {PREFIX + key: value for key, value in values.items()}

    @classmethod
    def from_metadata(cls, metadata: dict[str, Any] | None) -> Identity | None:
        values = {
            key.removeprefix(PREFIX): value
            for key, value in (metadata or {}).items()
            if key.startswith(PREFIX)
        }
        if "model" not in values:
            return None
        return cls(
            provider=str(values.get("provider", "local")),
            model=str(values["model"]),
            precision=str(values.get("precision", "fp32")),
            dimension=int(values["dimension"]) if values.get("dimension") else None,
            normalized=bool(values.get("normalized", True)),
        )

    def describe(self) -> str:
        where = "a server's" if self.provider == "openai" else "local"
        size = f", {self.dimension} dimensions" if self.dimension else ""
        return f"{where} {self.model} ({self.precision}{size})"


def identity(embedder: Any) -> Identity:
    """The identity of `embedder`; its dimension when it has shown it (a server embedder
    knows it from its first answer)."""
    dimension = getattr(embedder, "dimension", None)
    return Identity(
        provider="openai" if getattr(embedder, "backend", "") == "openai" else "local",
        model=BUNDLED_NAMES.get(embedder.name, embedder.name),
        precision=getattr(embedder, "precision", "fp32"),
        dimension=dimension if isinstance(dimension, int) else None,
    )


def built_with(store: Any, store_dir: Path, collection: str) -> Identity | None:
    """The recorded identity of `collection`: its Chroma metadata, else the store
    directory's embeddings.json of older versions, else None."""
    found = store.collection(collection)
    recorded = Identity.from_metadata(found.metadata if found is not None else None)
    if recorded is not None:
        return recorded
    legacy = _legacy(store_dir).get(collection)
    if isinstance(legacy, dict):
        model = str(legacy.get("model") or "all-MiniLM-L6-v2")
        precision = str(legacy.get("precision", "fp32"))
        return Identity("local", BUNDLED_NAMES.get(model, model), precision)
    return None


def check(store: Any, store_dir: Path, collection: str, embedder: Any, has_chunks: bool) -> None:
    """Refuse to use `collection` with an embedder of another identity than built it. A
    collection stored before any record was built with the bundled model at fp32."""
    if not has_chunks:  # empty (or emptied by `ragcli rm`): any embedder may fill it
        return
    built = built_with(store, store_dir, collection)
    now = identity(embedder)
    if built is None:
        if now.precision != "fp32":
            raise ConfigError(_precision_message(collection, "fp32", now.precision))
        return
    if built.precision != now.precision and built.model == now.model:
        raise ConfigError(_precision_message(collection, built.precision, now.precision))
    if built.model != now.model or built.precision != now.precision:
        raise ConfigError(
            f"collection {collection!r} was built with {built.describe()} embeddings and "
            f"the embedder now is {now.describe()}: set embedding.provider, embedding.model "
            f"and embedding.precision to {built.provider}, {built.model} and "
            f"{built.precision}, or switch by re-ingesting: {_switch}"
        )
    # Compared when the embedder has shown its size (no model call for this alone).
    if built.dimension is not None and now.dimension is not None:
        dimension = now.dimension
        if dimension != built.dimension:
            raise ConfigError(
                f"collection {collection!r} holds {built.dimension}-dimensional vectors and "
                f"{now.describe()} gives {dimension}: set the server to the dimension the "
                f"collection was built with, or switch by re-ingesting: {_switch}"
            )


_switch = (
    "into a new collection (--collection NAME) or store (--store DIR), or after `ragcli rm` "
    "of its files"
)


def _precision_message(collection: str, built: str, wanted: str) -> str:
    return (
        f"collection {collection!r} was built with {built} embeddings and "
        f"embedding.precision is {wanted}: set embedding.precision to {built}, or switch "
        f"by re-ingesting: {_switch}"
    )


def record(store: Any, store_dir: Path, collection: str, embedder: Any) -> None:
    """Record the embedder that writes `collection` in its Chroma metadata (done before
    its first write; a record already there is kept, as `check` has passed it). The
    dimension is added by `record_dimension` once the first vectors are at hand."""
    target = store.collection(collection, create=True)
    metadata = dict(target.metadata or {})
    built = Identity.from_metadata(metadata)
    now = identity(embedder)
    if built and (built.model, built.precision) == (now.model, now.precision):
        return
    _write(target, metadata, now)


def record_dimension(store: Any, collection: str, dimension: int) -> None:
    """Complete the record with the size of the vectors written (once per collection)."""
    target = store.collection(collection)
    metadata = dict(target.metadata or {}) if target is not None else {}
    built = Identity.from_metadata(metadata)
    if target is None or built is None or built.dimension == dimension:
        return
    _write(target, metadata, replace(built, dimension=dimension))


def _write(target: Any, metadata: dict[str, Any], built: Identity) -> None:
    from ragcli.store.collections import set_collection_metadata

    set_collection_metadata(target, metadata, built.to_metadata(), drop=PREFIX)


def _legacy(store_dir: Path) -> dict[str, Any]:
    try:
        found = json.loads((Path(store_dir) / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}
