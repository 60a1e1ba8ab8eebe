"""A run's steps (score against threshold, decision, cost) and the tables of rows each step
recorded in its details: shared by `ask` (its Routing table) and `trace`."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from ragcli.trace.recorder import StepRecord
from ragcli.views.format import LABEL_STYLES, display_path, fmt, one_line, styled
from ragcli.views.layout import Cell, Col, FitTable

# Step details are free-form rows; their keys say what kind of column they make.
_NAMES = {"source_file", "url", "path", "file"}
_HASHES = {"chunk_id", "sha256"}
_PREVIEWS = {"preview", "content_preview", "content"}
# Headings are scanned for like file names: they shrink last and keep a readable width.
_HEADINGS = {"heading", "title"}
_ORDINALS = {"#", "rank", "sub", "n", "iteration"}
_LABELS = {"label", "relevance_label", "status", "action"}


def steps_table(steps: list[StepRecord], title: str = "Steps") -> FitTable:
    columns = [
        Col("step", kind="key"),
        Col("score vs threshold", kind="flex", min_width=18),
        Col("decision", kind="flex", min_width=16),
        Col("ms", justify="right"),
        Col("llm", justify="right", drop=1),
        Col("tokens", justify="right", drop=2),
    ]
    rows: list[list[Cell]] = []
    for step in steps:
        scored = fmt(step.scores) if step.scores else ""
        if step.threshold:
            scored += f" vs {fmt(step.threshold)}"
        decision = Text(step.decision)
        for note in step.notes:
            decision.append(f"\n⚠ {note}", style="yellow")
        tokens = step.prompt_tokens + step.completion_tokens
        rows.append(
            [
                step.name,
                scored,
                decision,
                f"{step.ms:.0f}",
                str(step.llm_calls or "-"),
                str(tokens or "-"),
            ]
        )
    return FitTable(columns, rows, title=title)


def _column(key: str, values: list[Any]) -> Col:
    if key in _NAMES:
        return Col(key, kind="key")
    if key in _ORDINALS:
        return Col(key, justify="right")
    if key in _HASHES:
        return Col(key, drop=4)
    if key in _PREVIEWS:
        return Col(key, kind="flex", wrap=False, drop=3)
    if key in _HEADINGS:
        return Col(key, kind="flex", min_width=22)
    if all(v is None or isinstance(v, int | float) for v in values):
        return Col(key, justify="right", drop=1)
    if any(isinstance(v, dict | list) for v in values):
        return Col(key, kind="flex", drop=2)
    return Col(key, kind="flex", drop=1)


def _cell(key: str, value: Any) -> Cell:
    if key in _NAMES and isinstance(value, str) and value:
        return display_path(value)
    if key == "ms" and isinstance(value, int | float):
        return f"{value:.0f}"
    if key in _LABELS and isinstance(value, str) and value in LABEL_STYLES:
        return styled(value)
    return one_line(fmt(value))


def details_tables(steps: list[StepRecord], keys: set[str] | None = None) -> list[FitTable]:
    """Each step's detail rows (grades, web results, rounds ...) as a table of its own,
    titled `N. step: key`; only the details named in `keys` when it is given."""
    tables = []
    for number, step in enumerate(steps, start=1):
        for key, rows in step.details.items():
            if not rows or not isinstance(rows, list) or not isinstance(rows[0], dict):
                continue
            if keys is not None and key not in keys:
                continue
            names = list(dict.fromkeys(k for row in rows for k in row))
            columns = [_column(name, [row.get(name) for row in rows]) for name in names]
            cells = [[_cell(name, row.get(name)) for name in names] for row in rows]
            tables.append(FitTable(columns, cells, title=f"{number}. {step.name}: {key}"))
    return tables
