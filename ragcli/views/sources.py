"""`ragcli sources`: the ingested files. In a terminal, a table whose file names keep their
width (the hash, time, pages and type give way first); piped, one file per line with
tab-separated fields, so `ragcli sources | grep name.md` and `cut -f` work."""

from __future__ import annotations

import os
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from ragcli.views.format import NONE, display_path, plural, when
from ragcli.views.layout import Cell, Col, FitTable, PlainLines


def _shown_paths(rows: list[dict[str, Any]]) -> tuple[list[str], str]:
    """Each file as shown, and the folder they are shown under ("" for the working one).
    Paths outside the working directory are shown under their common folder, which the
    title names once instead of every row repeating it."""
    shown = [display_path(r["path"]) for r in rows]
    if not any(os.path.isabs(p) for p in shown):
        return shown, ""
    root = os.path.commonpath([os.path.dirname(r["path"]) for r in rows])
    return [os.path.relpath(r["path"], root) for r in rows], root


def _plain(rows: list[dict[str, Any]], collection: str | None) -> PlainLines:
    # Path first, the full hash and the full path: output for grep, cut and scripts.
    lines = []
    for row in rows:
        fields = [display_path(row["path"])]
        if collection is None:
            fields.append(row["collection"])
        fields += [
            row["file_type"],
            str(row["chunk_count"]),
            NONE if row["pages"] is None else str(row["pages"]),
            row["sha256"],
            when(row["ingested_at"]),
        ]
        lines.append("\t".join(fields))
    return PlainLines(lines)


def sources_view(
    rows: list[dict[str, Any]], collection: str | None, plain: bool = False
) -> RenderableType:
    """`plain` (stdout is not a terminal): print with `console.print(view, soft_wrap=True)`
    or write `str(view)`, so no line is cut at the width Rich assumes for a pipe."""
    if plain:
        return _plain(rows, collection)
    shown, root = _shown_paths(rows)
    title = f"Ingested files in '{collection}'" if collection else "Ingested files"
    if root:
        title += f" under {root}"
    columns = [Col("file", kind="key")]
    if collection is None:
        columns.append(Col("collection", drop=1))
    columns += [
        Col("type", drop=2),
        Col("chunks", justify="right"),
        Col("pages", justify="right", drop=3),
        Col("sha256", drop=5),
        Col("ingested", drop=4),
    ]
    cells: list[list[Cell]] = []
    for row, path in zip(rows, shown, strict=True):
        cell: list[Cell] = [path]
        if collection is None:
            cell.append(row["collection"])
        cell += [
            row["file_type"],
            str(row["chunk_count"]),
            NONE if row["pages"] is None else str(row["pages"]),
            row["sha256"][:8],
            when(row["ingested_at"]),
        ]
        cells.append(cell)
    total = sum(r["chunk_count"] for r in rows)
    summary = Text(f"{plural(len(rows), 'file')} · {plural(total, 'chunk')}", style="dim")
    return Group(FitTable(columns, cells, title=title), summary)
