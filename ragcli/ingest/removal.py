"""`ragcli rm`: turn the paths a user names (files or folders, existing or already deleted)
into the manifest's files, and remove each one's chunks.

Every removal goes through `StoreWriter.remove_file`, the one function that deletes a file's
chunks from every index it is in (vectors, manifest, and any index added beside them), so
`rm` and `ingest --prune` can never drift apart."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ragcli.errors import ExitCode, RagcliError
from ragcli.store.manifest import FileRecord, Manifest


@dataclass
class Removal:
    collection: str
    files: list[dict[str, Any]] = field(default_factory=list)  # path, chunks
    chunks_removed: int = 0
    dry_run: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _under(record_path: str, root: str) -> bool:
    """At or under `root`: a folder's files, a site's pages, a repository's (`REPO#path`)."""
    return (
        record_path == root
        or record_path.startswith(root.rstrip("/") + "/")
        or record_path.startswith(root + "#")
    )


def match(manifest: Manifest, collection: str, paths: list[Path | str]) -> list[FileRecord]:
    """The ingested files at or under each path. A path that matches nothing is an error
    naming it, and nothing is removed (as `git rm` does)."""
    records = manifest.files(collection)
    chosen: dict[str, FileRecord] = {}
    for path in paths:
        # A URL (a site's page or prefix, a repository) is matched as written.
        root = path if isinstance(path, str) else str(path.expanduser().resolve())
        found = [r for r in records if _under(r.path, root)]
        if not found:
            raise RagcliError(
                f"{path}: no ingested file at or under this path in collection {collection!r}",
                ExitCode.USAGE,
            )
        for record in found:
            chosen.setdefault(record.path, record)
    return list(chosen.values())


def remove_paths(
    manifest: Manifest,
    collection: str,
    paths: list[Path | str],
    remove_file: Callable[[str, str], int] | None = None,
) -> Removal:
    """Remove every ingested file at or under `paths` with `remove_file(collection, path)`
    (`StoreWriter.remove_file`); without it, a dry run that only lists them."""
    records = match(manifest, collection, paths)
    removal = Removal(collection, dry_run=remove_file is None)
    for record in records:
        removed = remove_file(collection, record.path) if remove_file else record.chunk_count
        removal.files.append({"path": record.path, "chunks": removed})
        removal.chunks_removed += removed
    return removal
