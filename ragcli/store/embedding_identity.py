"""What built each collection's vectors, recorded with the collection in Chroma (its
metadata), so every machine that opens a shared collection sees it: the provider (this
process, or a serving engine), the model, the dimension, whether vectors are normalised and
the precision. A collection is never searched or extended with vectors of another
identity: another model's vectors are meaningless against it, and even int8 and fp32
vectors of one model differ a little (cosine ≈ 0.995), enough to reorder close results.

Two providers that claim the same model may share a collection: a server that serves a
model this machine also has is checked against it once (store/embedding_probe.py).

Stores written before this recorded the model and precision in `embeddings.json` in the
store directory; it is read when a collection has no record and migrated into the
collection at its next ingest."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
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


def identity(embedder: Any, with_dimension: bool = False) -> Identity:
    """The identity of `embedder`; its dimension is measured (one short text embedded) only
    when asked for, since it costs a model call."""
    dimension = getattr(embedder, "dimension", None) if with_dimension else None
    if with_dimension and not isinstance(dimension, int):
        dimension = int(embedder.embed(["dimension"]).shape[1])
    return Identity(
        provider="openai" if getattr(embedder, "backend", "") == "openai" else "local",
        model=BUNDLED_NAMES.get(embedder.name, embedder.name),
        precision=getattr(embedder, "precision", "fp32"),
        dimension=dimension,
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
    if built.dimension is not None:
        dimension = identity(embedder, with_dimension=True).dimension
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
    its first write; a record already there is kept, as `check` has passed it)."""
    target = store.collection(collection, create=True)
    metadata = dict(target.metadata or {})
    built = Identity.from_metadata(metadata)
    now = identity(embedder)
    if built and built.dimension and (built.model, built.precision) == (now.model, now.precision):
        return
    now = identity(embedder, with_dimension=True)
    # Chroma refuses a metadata that names the distance (hnsw:*) again; it keeps it anyway.
    kept = {k: v for k, v in metadata.items() if not k.startswith(("hnsw:", PREFIX))}
    target.modify(metadata={**kept, **now.to_metadata()})


def _legacy(store_dir: Path) -> dict[str, Any]:
    try:
        found = json.loads((Path(store_dir) / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}
