"""`ragcli rm`: the files removed (or, with --dry-run, that would be) and their chunks."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from ragcli.views.format import display_path, plural
from ragcli.views.layout import Col, FitTable


def removal_view(data: dict[str, Any]) -> RenderableType:
    verb = "would remove" if data["dry_run"] else "removed"
    table = FitTable(
        [Col("file", kind="key"), Col("chunks", justify="right")],
        [[display_path(item["path"]), str(item["chunks"])] for item in data["files"]],
        title=f"{verb.capitalize()} from '{data['collection']}'",
    )
    summary = (
        f"{verb} {plural(len(data['files']), 'file')} · {plural(data['chunks_removed'], 'chunk')}"
    )
    return Group(table, Text(summary, style="dim"))
