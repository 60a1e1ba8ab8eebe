"""`ragcli compare` (and `ask --compare`): every mode on one question, a row each (rows
from compare.summarise), then each mode's answer, or its error, in a panel."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from ragcli.views.answer import answer_panel
from ragcli.views.format import NONE, answer_style, format_cost, versus
from ragcli.views.layout import Cell, Col, FitTable


def _failed(row: dict[str, Any]) -> Panel:
    return Panel(
        Text(row["error"]),
        title=Text.assemble((row["mode"], "bold"), " · failed"),
        title_align="left",
        border_style="red",
    )


def compare_view(question: str, rows: list[dict[str, Any]]) -> RenderableType:
    priced = any("estimated_cost_usd" in row for row in rows)
    columns = [
        Col("mode"),
        Col("answer type"),
        # The route is the long cell: it wraps at words, and keeps a readable width.
        Col("route", kind="flex", min_width=18),
        Col("score", drop=1),
        Col("calls", justify="right"),
        Col("tokens", justify="right", drop=3),
        Col("web", justify="right", drop=2),
        Col("ms", justify="right"),
    ]
    if priced:
        columns.append(Col("cost", justify="right"))
    cells: list[list[Cell]] = []
    below: list[RenderableType] = []
    for row in rows:
        kind = row["answer_type"]
        style = answer_style(kind)
        if row.get("error"):
            cells.append([row["mode"], Text(kind, style="red"), "see below"])
            cells[-1] += [NONE] * (len(columns) - 3)
            below.append(_failed(row))
            continue
        cell: list[Cell] = [
            row["mode"],
            Text(kind, style=style),
            row.get("route") or NONE,
            versus(row.get("score"), row.get("threshold")),
            str(row["llm_calls"]),
            str(row["prompt_tokens"] + row["completion_tokens"]),
            str(row["web_searches"]),
            f"{row['ms']:.0f}",
        ]
        if priced:
            usd = row.get("estimated_cost_usd")
            cell.append(format_cost(usd) if usd is not None else NONE)
        cells.append(cell)
        title = Text.assemble((row["mode"], "bold"), " · ", (kind, style))
        below.append(answer_panel(row["answer"], title, style, subtitle=f"trace {row['trace_id']}"))
    table = FitTable(columns, cells, title=f"Every mode on: {question}")
    return Group(table, *below)
