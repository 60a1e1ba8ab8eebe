"""`ragcli trace`: one run in full, the list of recent runs, a search through them, and
two runs side by side (`trace diff`)."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from ragcli.models import SearchFilters
from ragcli.trace.recorder import Trace
from ragcli.views.answer import answer_panel
from ragcli.views.format import answer_style, fmt, format_cost, one_line, plural, when
from ragcli.views.layout import Cell, Col, FitTable, pairs
from ragcli.views.reflect import rounds_table, stored_reflection
from ragcli.views.steps import details_tables, steps_table


def trace_view(trace: Trace, cost: float | None = None, full: bool = False) -> RenderableType:
    """A run's steps and decisions; `full` adds the thresholds in force (`trace --all`)."""
    usage = trace.usage()
    total = (
        f"{trace.total_ms:.0f} ms · {plural(usage['llm_calls'], 'model call')} · "
        f"{usage['prompt_tokens']}+{usage['completion_tokens']} tokens · "
        f"{plural(usage['web_searches'], 'web search', 'web searches')}"
    )
    if cost is not None:
        total += f" · {format_cost(cost)}"
    outcome = trace.answer_type or "answer"
    rows: list[tuple[str, Cell]] = [
        ("trace", trace.id),
        ("time", when(trace.created_at, seconds=True)),
        ("question", trace.question),
    ]
    turn = (trace.result or {}).get("conversation")
    if turn and turn.get("rewritten"):
        rows.append(("searched as", turn["standalone"]))
    if trace.conversation_id:
        why = f" · {turn['reason']}" if turn and turn.get("reason") else ""
        rows.append(("conversation", f"{trace.conversation_id} · turn {trace.turn}{why}"))
    rows.append(("mode", trace.mode))
    if trace.filters:
        rows.append(("filters", SearchFilters.model_validate(trace.filters).describe()))
    rows += [
        ("outcome", Text(outcome, style=answer_style(outcome))),
        ("backend", fmt(trace.backend)),
        ("total", total),
    ]
    header = pairs(rows)
    parts: list[RenderableType] = [header, steps_table(trace.steps)]
    parts += details_tables(trace.steps)
    reflection = stored_reflection(trace.result)
    if reflection is not None and reflection.history:
        parts.append(rounds_table(reflection))
    parts.append(answer_panel(trace.answer, "answer"))
    if not full:
        parts.append(Text("every threshold in force: ragcli trace --all", style="dim"))
        return Group(*parts)
    settings = [
        [f"{section}.{key}", fmt(value)]
        for section, values in trace.thresholds.items()
        for key, value in values.items()
    ]
    columns = [Col("setting", kind="key"), Col("value", justify="right")]
    parts.append(FitTable(columns, settings, title="Thresholds in force"))
    return Group(*parts)


def _run_row(row: dict[str, Any]) -> list[Cell]:
    kind = row.get("answer_type") or ""
    return [
        row["id"],
        when(row["created_at"]),
        row["mode"],
        Text(kind, style=answer_style(kind) if kind else ""),
        one_line(row["question"]),
    ]


_RUN_COLUMNS = [
    Col("id"),
    Col("time", drop=2),
    Col("mode"),
    Col("outcome", drop=1),
    # One line per run: a long question is cut with "…" (`ragcli trace ID` shows it whole).
    Col("question", kind="flex", wrap=False, min_width=16),
]


def trace_list(rows: list[dict[str, Any]]) -> RenderableType:
    columns = [*_RUN_COLUMNS, Col("ms", justify="right", drop=3)]
    cells = [[*_run_row(row), f"{row['total_ms']:.0f}"] for row in rows]
    return FitTable(columns, cells, title="Recent runs")


def trace_search_view(text: str, rows: list[dict[str, Any]]) -> RenderableType:
    columns = [*_RUN_COLUMNS, Col("answer", kind="flex", wrap=False, min_width=20)]
    cells = [[*_run_row(row), one_line(row.get("answer", ""))] for row in rows]
    return FitTable(columns, cells, title=f"Runs matching {text!r}")


def _step_cell(side: dict[str, Any] | None) -> str:
    if side is None:
        return "-"
    text = fmt(side["scores"]) if side["scores"] else ""
    if side["threshold"]:
        text += f" vs {fmt(side['threshold'])}"
    if side["decision"]:
        text += f" -> {side['decision']}" if text else side["decision"]
    return text or "-"


def trace_diff_view(data: dict[str, Any]) -> RenderableType:
    """Runs A and B (from trace/diff.py): the summary fields, the steps aligned by name
    with what differs marked, then both answers."""
    summary = FitTable(
        [
            Col("field"),
            Col("A", kind="flex"),
            Col("B", kind="flex"),
            Col(""),
        ],
        [
            [row["field"], fmt(row["a"]), fmt(row["b"]), "≠" if row["differs"] else ""]
            for row in data["summary"]
        ],
        title=f"Runs A {data['a']} and B {data['b']}",
    )
    rows: list[list[Cell]] = []
    for number, pair in enumerate(data["steps"], start=1):
        a_ms = f"{pair['a']['ms']:.0f}" if pair["a"] else "-"
        b_ms = f"{pair['b']['ms']:.0f}" if pair["b"] else "-"
        names = sorted({side["name"] for side in (pair["a"], pair["b"]) if side})
        style = "yellow" if pair["differs"] else ""
        rows.append(
            [
                str(number),
                " / ".join(names),
                _step_cell(pair["a"]),
                _step_cell(pair["b"]),
                f"{a_ms}/{b_ms}",
                Text(", ".join(pair["differs"]) or "-", style=style),
            ]
        )
    steps = FitTable(
        [
            Col("#", justify="right"),
            Col("step"),
            Col("A", kind="flex", min_width=16),
            Col("B", kind="flex", min_width=16),
            Col("ms A/B", justify="right", drop=1),
            Col("differs", kind="flex", min_width=8),
        ],
        rows,
        title="Steps side by side (score vs threshold -> decision)",
    )
    differing = data["steps_differing"]
    verdict = Text(
        f"{differing} of {len(data['steps'])} steps differ"
        if differing
        else "the runs took the same steps with the same scores and routes",
        style="dim",
    )
    answers = [
        answer_panel(data["answers"][side] or "-", f"answer {side.upper()}") for side in ("a", "b")
    ]
    return Group(summary, steps, verdict, *answers)


def turn_row(trace: Trace) -> dict[str, Any]:
    """One turn of a conversation, for `trace --conversation ID --json`."""
    return {
        "turn": trace.turn,
        "id": trace.id,
        "created_at": trace.created_at,
        "mode": trace.mode,
        "answer_type": trace.answer_type,
        "question": trace.question,
        "standalone": trace.standalone or trace.question,
        "reason": (trace.result or {}).get("conversation", {}).get("reason", ""),
        "answer": trace.answer,
    }


def conversation_view(conversation_id: str, turns: list[Trace]) -> RenderableType:
    columns = [
        Col("turn", justify="right"),
        Col("id"),
        Col("mode", drop=2),
        Col("outcome", drop=1),
        Col("question", kind="flex", min_width=16),
        Col("searched as", kind="flex", min_width=16, drop=3),
    ]
    rows: list[list[Cell]] = []
    for trace in turns:
        kind = trace.answer_type or ""
        rows.append(
            [
                str(trace.turn),
                trace.id,
                trace.mode,
                Text(kind, style=answer_style(kind) if kind else ""),
                trace.question,
                trace.standalone or Text("as asked", style="dim"),
            ]
        )
    return FitTable(columns, rows, title=f"Conversation {conversation_id}")
