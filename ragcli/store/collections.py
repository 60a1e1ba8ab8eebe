"""Chroma collection names and metadata: the rules every collection the store opens
follows, the user's collections and the store's own."""

from __future__ import annotations

import re
from typing import Any

from ragcli.errors import ConfigError

COLLECTION_NAME = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9._-]{1,510}[a-zA-Z0-9]$")
# The store's own collections (the BM25 change log) are named with this prefix: they are
# never listed as collections of chunks, and no user collection may take it (an ingest
# into the change log would corrupt every machine's BM25 index).
INTERNAL_PREFIX = "ragcli."
# The one store collection named before the prefix was reserved; servers hold it under
# this name, so it keeps it.
OWNERS_COLLECTION = "ragcli-ingest-owners"


def is_internal(name: str) -> bool:
    return name.startswith(INTERNAL_PREFIX) or name == OWNERS_COLLECTION


def check_collection_name(name: str) -> str:
    """A user's collection name; the store opens its own collections without this."""
    if not COLLECTION_NAME.match(name):
        raise ConfigError(
            f"collection {name!r}: use 3-512 characters from a-z A-Z 0-9 . _ -, "
            "starting and ending with a letter or digit"
        )
    if is_internal(name):
        raise ConfigError(
            f"collection {name!r}: names starting with {INTERNAL_PREFIX!r} (and "
            f"{OWNERS_COLLECTION!r}) are reserved for the store's own collections"
        )
    return name


def set_collection_metadata(
    target: Any, metadata: dict[str, Any], values: dict[str, Any], drop: str = ""
) -> None:
    """Write `values` into a Chroma collection's `metadata`, keeping its other keys (those
    starting with `drop`, when given, go). Chroma refuses a metadata that names the
    distance (hnsw:*) again; it keeps it anyway."""
    prefixes = ("hnsw:", drop) if drop else ("hnsw:",)
    kept = {k: v for k, v in metadata.items() if not k.startswith(prefixes)}
    target.modify(metadata={**kept, **values})
