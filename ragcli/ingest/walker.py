"""Which files an ingest looks at: recursive, hidden entries skipped, `.ragignore` honoured."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pathspec

from ragcli.ingest.maildir import is_delivery_folder

IGNORE_FILE = ".ragignore"


def _ignore_spec(root: Path) -> pathspec.PathSpec | None:
    ignore = root / IGNORE_FILE
    if not ignore.is_file():
        return None
    return pathspec.GitIgnoreSpec.from_lines(ignore.read_text(encoding="utf-8").splitlines())


def visible(root: Path, path: Path) -> bool:
    """Whether `walk(root)` would look at `path` (a file or folder under `root`, which
    need not exist any more): no hidden part, nothing `.ragignore` excludes."""
    if not root.is_dir():
        return path == root
    try:
        rel = path.relative_to(root)
    except ValueError:
        return False
    if any(part.startswith(".") for part in rel.parts) or is_delivery_folder(path.parent):
        return False
    spec = _ignore_spec(root)
    if spec is None:
        return True
    # A folder excluded by a `name/` pattern excludes everything under it.
    folders = [Path(*rel.parts[:i]).as_posix() + "/" for i in range(1, len(rel.parts))]
    return not any(spec.match_file(f) for f in [*folders, rel.as_posix()])


def walk(root: Path) -> Iterator[Path]:
    """Files under `root` (or `root` itself when it is a file), in a stable order.

    Symlinked directories are not followed, so a symlink loop cannot recurse forever."""
    if not root.is_dir():
        yield root
        return
    spec = _ignore_spec(root)
    unreadable: list[Path] = []

    def remember(error: OSError) -> None:
        if error.filename:
            unreadable.append(Path(error.filename))

    # A folder that cannot be listed is yielded itself, so the ingest reports it.
    for directory, dirnames, filenames in os.walk(root, onerror=remember, followlinks=False):
        while unreadable:
            yield unreadable.pop()
        rel_dir = Path(directory).relative_to(root)
        kept = []
        for name in sorted(dirnames):
            rel = (rel_dir / name).as_posix() + "/"
            if name.startswith(".") or (spec and spec.match_file(rel)):
                continue
            if is_delivery_folder(Path(directory) / name):
                continue  # a Maildir's deliveries in progress
            kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            rel = (rel_dir / name).as_posix()
            if name.startswith(".") or (spec and spec.match_file(rel)):
                continue
            yield Path(directory) / name
    yield from unreadable
