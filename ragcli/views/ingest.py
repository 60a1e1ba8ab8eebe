"""`ragcli ingest`: what changed in the collection, and every file skipped, failed or noted."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from ragcli.views.format import display_path, plural
from ragcli.views.layout import Cell, Col, FitTable, pairs

STATUSES = ("new", "changed", "unchanged", "skipped", "failed", "removed")
STATUS_STYLES = {"failed": "red", "skipped": "yellow"}


def ingest_view(report: dict[str, Any]) -> RenderableType:
    lines: list[tuple[str, Cell]] = [
        ("files", "  ".join(f"{s} {report[f'files_{s}']}" for s in STATUSES)),
        ("chunks", f"added {report['chunks_added']}  removed {report['chunks_removed']}"),
        ("time", f"{report['seconds']:.1f} s"),
    ]
    if report.get("recovered"):
        repaired = plural(len(report["recovered"]), "file")
        lines.append(
            ("recovered", f"{repaired} left half-written by an interrupted ingest were repaired")
        )
    parts: list[RenderableType] = [
        Text(f"Ingest into '{report['collection']}'", style="bold"),
        pairs(lines),
    ]
    noted = [f for f in report["files"] if f["reason"]]
    if noted:
        # The reason sits under its file: it wraps there rather than pushing the name apart.
        rows: list[list[Cell]] = []
        for item in noted:
            where = Text(display_path(item["path"]))
            where.append("\n" + item["reason"], style="dim")
            status = Text(item["status"], style=STATUS_STYLES.get(item["status"], ""))
            rows.append([where, status])
        columns = [Col("file", kind="key"), Col("status")]
        parts.append(FitTable(columns, rows, title="Files skipped, failed or noted"))
    return Group(*parts)
