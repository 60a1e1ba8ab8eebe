"""A machine new to a large shared collection builds its BM25 index in the background.

Building reads every chunk's text from the server and tokenizes it: about a minute per
100k chunks here (docs/sharing.md, "Scaling out"). An ask should not wait that long, so above
FOREGROUND_CHUNKS a first ask answers from the dense retriever alone, says so, and leaves
a detached `ragcli sync` process building and saving the index; the asks after it ends
are hybrid again. One builder per collection: it holds `build.lock` beside the index.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from ragcli.store.lock import FileLock

# Chunks a first ask indexes itself: a few seconds here (scripts/scale.py measures the rate).
FOREGROUND_CHUNKS = 10_000
BUILD_LOCK = "build.lock"
BUILD_LOG = "build.log"


class Building(Exception):
    """The collection's BM25 index is being built by a background process."""

    def __init__(self, collection: str, chunks: int) -> None:
        super().__init__(
            f"the keyword (BM25) index of collection {collection!r} is being built on this "
            f"machine in the background ({chunks:,} chunks; `ragcli sync` shows it finish)"
        )
        self.collection = collection
        self.chunks = chunks


class BuildLock(FileLock):
    """Held by the one process building a collection's index."""

    def __init__(self, directory: Path) -> None:
        super().__init__(directory / BUILD_LOCK)

    def wait(self) -> None:
        self.acquire()  # no timeout: a second builder waits for the first


def running(directory: Path) -> bool:
    lock = BuildLock(directory)
    try:
        if lock.try_acquire():
            return False
        return True
    finally:
        lock.close()


def start(directory: Path, store_dir: Path, collection: str, server: Any) -> None:
    """Start `ragcli sync` for `collection`, detached from this process (it outlives a
    one-shot ask), unless a build is running. The server settings go in its environment,
    so it reaches the same store whatever configuration file this process read."""
    if running(directory):
        return
    env = dict(os.environ)
    env.update(
        {
            "RAGCLI_STORE__URL": server.url,
            "RAGCLI_STORE__TENANT": server.tenant,
            "RAGCLI_STORE__DATABASE": server.database,
        }
    )
    for header, value in server.headers.items():
        env["RAGCLI_STORE__TOKEN_HEADER"] = header
        env["RAGCLI_STORE_TOKEN"] = value.removeprefix("Bearer ")
    command = [
        sys.executable,
        "-m",
        "ragcli",
        "sync",
        "--collection",
        collection,
        "--store",
        str(store_dir),
    ]
    with open(directory / BUILD_LOG, "ab") as log:
        subprocess.Popen(
            command,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,  # Ctrl-C on the ask does not reach it
        )
