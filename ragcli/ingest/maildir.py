"""Maildir folders: a folder holding `cur/`, `new/` and `tmp/`, one message per file.

Each message file (in cur/ or new/) is read as a message of its own, as a user adding mail
expects: a new message is one new file to read, and a message whose flags change is a
rename (`…:2,S` → `…:2,RS`), which costs no embedding. `tmp/` holds deliveries in
progress: the walker passes over it."""

from __future__ import annotations

from pathlib import Path

PARTS = ("cur", "new", "tmp")


def is_maildir(folder: Path) -> bool:
    return all((folder / part).is_dir() for part in PARTS)


def in_maildir(path: Path) -> bool:
    """Whether `path` is a message file of a Maildir (in its cur/ or new/)."""
    return path.parent.name in ("cur", "new") and is_maildir(path.parent.parent)


def is_delivery_folder(folder: Path) -> bool:
    """Whether `folder` is a Maildir's tmp/, whose files are not messages yet."""
    return folder.name == "tmp" and is_maildir(folder.parent)
