"""Shell completion of option values: modes, retrievers and the store's collection names.

A shell calls these on every <TAB>, so they must answer in a blink: collections are read
from the manifest with sqlite (never Chroma, never the embedding model), and any problem
(no store yet, a bad config) completes nothing rather than printing an error.
"""

from __future__ import annotations

import os
from pathlib import Path

import typer

from ragcli.pipeline.modes.registry import CHOICES

RETRIEVERS = ("dense", "bm25", "hybrid")  # ragcli.retrieval.retriever.MODES, without its imports


def complete_mode(incomplete: str) -> list[str]:
    return [m for m in CHOICES if m.startswith(incomplete)]


def complete_retriever(incomplete: str) -> list[str]:
    return [r for r in RETRIEVERS if r.startswith(incomplete)]


def complete_collection(ctx: typer.Context, incomplete: str) -> list[str]:
    names = collection_names(_store_dir(ctx))
    return [n for n in names if n.startswith(incomplete)]


def collection_names(store: Path) -> list[str]:
    manifest = store / "manifest.sqlite"
    if not manifest.is_file():
        return []
    import sqlite3  # here, not at the top: `ragcli --help` imports this module

    try:
        db = sqlite3.connect(f"file:{manifest}?mode=ro", uri=True, timeout=1)
        try:
            rows = db.execute("SELECT DISTINCT collection FROM files ORDER BY 1").fetchall()
        finally:
            db.close()
    except sqlite3.Error:
        return []
    return [name for (name,) in rows]


def _store_dir(ctx: typer.Context) -> Path:
    """The store the command would use: --store (typed before the option being completed),
    RAGCLI_STORE, store.path of the configuration, else .ragcli."""
    store = ctx.params.get("store") or os.environ.get("RAGCLI_STORE")
    if store:
        return Path(store).expanduser()
    try:
        from ragcli.config import load_settings

        return Path(load_settings(ctx.params.get("config")).store.path).expanduser()
    except Exception:  # a broken config.yaml: complete from the default place
        return Path(".ragcli")
