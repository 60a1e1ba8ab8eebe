"""Stale sources: the one-line warning under an answer that cites files changed or deleted
since they were ingested, with the command that refreshes them, and the note of a
`--refresh` that did it before answering."""

from __future__ import annotations

import shlex

from rich.text import Text

from ragcli.models import StaleSource
from ragcli.views.format import display_path, plural

STATE_LABELS = {"changed": "changed since ingest", "missing": "file deleted"}
STATE_STYLES = {"changed": "yellow", "missing": "red"}


def _paths(stale: list[StaleSource]) -> str:
    return " ".join(shlex.quote(display_path(s.path)) for s in stale)


def stale_warning(stale: list[StaleSource], scope: str = "", again: str = "ask") -> Text | None:
    """The warning and the commands that refresh the stale files. `scope` holds the
    options that chose the store (--store, --collection, --config), so the commands act
    on the same one; `again` names the command that takes --refresh."""
    if not stale:
        return None
    changed = [s for s in stale if s.state == "changed"]
    missing = [s for s in stale if s.state == "missing"]
    if len(stale) == 1:
        what = display_path(stale[0].path) + (
            " changed since it was ingested" if changed else " no longer exists"
        )
    else:
        counts = [f"{len(changed)} changed"] if changed else []
        counts += [f"{len(missing)} deleted"] if missing else []
        what = f"{plural(len(stale), 'cited file')} are stale ({', '.join(counts)})"
    scope = f" {scope}" if scope else ""
    commands = [f"`ragcli ingest{scope} {_paths(changed)}`"] if changed else []
    commands += [f"`ragcli rm{scope} {_paths(missing)}`"] if missing else []
    return Text(
        f"⚠ {what}: {again} again with --refresh, or run {' and '.join(commands)}",
        style="yellow",
    )


def refreshed_note(refreshed: list[StaleSource], before: str = "answering") -> Text | None:
    if not refreshed:
        return None
    done = ", ".join(
        f"{display_path(s.path)} ({'re-ingested' if s.state == 'changed' else 'removed'})"
        for s in refreshed
    )
    return Text(f"refreshed before {before}: {done}", style="dim")
