"""Rich renderables from result and trace data: data in, renderable out, no I/O."""

from __future__ import annotations

import os
from typing import Any

from rich import box
from rich.console import Group
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ragcli.cost import format_cost
from ragcli.models import AskResult
from ragcli.trace.recorder import StepRecord, Trace

ANSWER_STYLES = {
    "answer": "green",
    "limited": "yellow",
    "unverified": "yellow",
    "clarification": "cyan",
    "handoff": "red",
    "not_covered": "red",
}


# Step details worth showing with an answer; `ragcli trace` shows them all.
ASK_DETAILS = {"sub_questions"}


def display_path(path: str) -> str:
    """Paths under the working directory are shown relative to it; URLs as they are."""
    if "://" in path:
        return path
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative


def fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, dict):
        return ", ".join(f"{k} {fmt(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(fmt(v) for v in value)
    return str(value)


def _where(meta: dict[str, Any]) -> str:
    if meta.get("page"):
        return f"p. {meta['page']}"
    return meta.get("heading") or meta.get("title") or ""


def sources_table(sources: list[dict[str, Any]], title: str = "Sources") -> Table:
    table = Table(title=title, title_justify="left", expand=True)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("file", overflow="fold", ratio=2)
    table.add_column("page / heading", overflow="fold", ratio=2)
    table.add_column("preview", overflow="fold", ratio=4)
    for rank, source in enumerate(sources, start=1):
        meta = source.get("metadata", source)
        components = source.get("component_scores") or {}
        score = fmt(source.get("score"))
        if len(components) > 1:
            score += "".join(f"\n{k} {v:.2f}" for k, v in components.items())
        preview = (meta.get("content_preview") or source.get("content", "")[:100]).replace(
            "\n", " "
        )
        table.add_row(
            str(rank),
            score,
            escape(display_path(meta.get("source_file", ""))),
            escape(_where(meta)),
            escape(preview),
        )
    return table


def steps_table(steps: list[StepRecord], title: str = "Steps") -> Table:
    table = Table(title=title, title_justify="left", expand=True)
    table.add_column("step", no_wrap=True)
    table.add_column("score vs threshold", overflow="fold", ratio=3)
    table.add_column("decision", overflow="fold", ratio=3)
    table.add_column("ms", justify="right", no_wrap=True)
    table.add_column("llm", justify="right", no_wrap=True)
    table.add_column("tokens", justify="right", no_wrap=True)
    for step in steps:
        scored = fmt(step.scores)
        if step.threshold:
            scored += f" vs {fmt(step.threshold)}"
        decision = step.decision + "".join(f"\n⚠ {n}" for n in step.notes)
        tokens = step.prompt_tokens + step.completion_tokens
        table.add_row(
            step.name,
            escape(scored),
            escape(decision),
            f"{step.ms:.0f}",
            str(step.llm_calls or "-"),
            str(tokens or "-"),
        )
    return table


def details_tables(steps: list[StepRecord], keys: set[str] | None = None) -> list[Table]:
    """Each step's detail lists (grades, web results, rounds ...) as a table of its own;
    only those named in `keys` when it is given."""
    tables = []
    for number, step in enumerate(steps, start=1):
        for key, rows in step.details.items():
            if not rows or not isinstance(rows, list) or not isinstance(rows[0], dict):
                continue
            if keys is not None and key not in keys:
                continue
            table = Table(title=f"{number}. {step.name}: {key}", title_justify="left", expand=True)
            columns = list(dict.fromkeys(k for row in rows for k in row))
            for column in columns:
                table.add_column(column, overflow="fold")
            for row in rows:
                cells = []
                for column in columns:
                    value = row.get(column)
                    text = display_path(value) if column == "source_file" and value else fmt(value)
                    cells.append(escape(text.replace("\n", " ")))
                table.add_row(*cells)
            tables.append(table)
    return tables


def band_table(path: list[dict[str, Any]]) -> Table:
    """The tos waterfall: each stage's best score, the thresholds it met, the outcome."""
    table = Table(title="Bands", title_justify="left", expand=True)
    for column in ("stage", "best score", "compared with", "outcome", "reason"):
        table.add_column(column, overflow="fold")
    for row in path:
        score = fmt(row.get("best_score"))
        if row.get("components"):
            score += "\n" + fmt(row["components"])
        thresholds = ", ".join(f"{k} {fmt(v)}" for k, v in row.get("thresholds", {}).items())
        table.add_row(
            escape(row["stage"]),
            escape(score),
            escape(thresholds),
            escape(row["outcome"]),
            escape(row.get("reason", "")),
        )
    return table


def tos_view(details: dict[str, Any]) -> list[Any]:
    parts: list[Any] = [band_table(details.get("path", []))]
    if details.get("matched_question"):
        parts.append(
            Text(
                f"closest FAQ question ({fmt(details.get('qna_score'))}): "
                f"{details['matched_question']}",
                style="dim",
            )
        )
    verification = details.get("verification") or {}
    status = verification.get("status", "not run")
    style = {"passed": "green", "failed": "yellow"}.get(status, "dim")
    line = f"verification: {status}"
    if verification.get("reason"):
        line += f" ({verification['reason']})"
    if verification.get("downgraded"):
        line += f"; downgraded {verification['downgraded']}"
    parts.append(Text(line, style=style))
    for claim in verification.get("unsupported_claims", []):
        parts.append(Text(f"  unsupported: {claim}", style="yellow"))
    return parts


def backend_line(backend: dict[str, str]) -> Text:
    parts = [f"{k}: {v}" for k, v in backend.items()]
    return Text("backend  " + "  ·  ".join(parts), style="dim")


def ask_result(result: AskResult, trace: Trace | None = None, cost: float | None = None) -> Group:
    style = ANSWER_STYLES.get(result.answer_type, "green")
    badge = result.answer_type
    if result.tos_details:
        badge += f" · {result.tos_details['answer_type']}"
    title = f"[bold]{escape(result.mode)}[/] · [{style}]{escape(badge)}[/]"
    parts: list[Any] = [
        Panel(escape(result.answer), title=title, title_align="left", border_style=style)
    ]
    for note in result.notes:
        parts.append(Text(f"⚠ {note}", style="yellow"))
    if result.tos_details:
        parts.extend(tos_view(result.tos_details))
    sources = [s.model_dump(mode="json") for s in result.sources]
    if sources:
        parts.append(sources_table(sources))
    from ragcli.render_modes import mode_tables

    parts.extend(mode_tables(result.to_json_dict()))
    if trace is not None:
        parts.append(steps_table(trace.steps, title="Routing"))
        parts.extend(details_tables(trace.steps, keys=ASK_DETAILS))
    usage = result.usage
    parts.append(
        Text(
            f"{result.timings_ms.get('total', 0):.0f} ms · {usage.llm_calls} model calls · "
            f"{usage.prompt_tokens + usage.completion_tokens} tokens · "
            f"{usage.web_searches} web searches · "
            + (f"{format_cost(cost)} · " if cost is not None else "")
            + f"trace {result.trace_id}",
            style="dim",
        )
    )
    parts.append(backend_line(result.backend))
    return Group(*parts)


def trace_view(trace: Trace, cost: float | None = None) -> Group:
    header = Table.grid(padding=(0, 2))
    header.add_column(style="bold")
    header.add_column()
    usage = trace.usage()
    for label, value in (
        ("trace", trace.id),
        ("time", trace.created_at),
        ("question", trace.question),
        ("mode", trace.mode),
        ("outcome", trace.answer_type or "answer"),
        ("backend", fmt(trace.backend)),
        (
            "total",
            f"{trace.total_ms:.0f} ms · {usage['llm_calls']} model calls · "
            f"{usage['prompt_tokens']}+{usage['completion_tokens']} tokens · "
            f"{usage['web_searches']} web searches"
            + (f" · {format_cost(cost)}" if cost is not None else ""),
        ),
    ):
        header.add_row(label, escape(str(value)))
    parts: list[Any] = [header, steps_table(trace.steps)]
    parts.extend(details_tables(trace.steps))
    from ragcli.render_modes import rounds_table

    if (trace.result.get("reflection_details") or {}).get("history"):
        parts.append(rounds_table(trace.result["reflection_details"]))
    parts.append(Panel(escape(trace.answer), title="answer", title_align="left"))
    thresholds = Table(title="Thresholds in force", title_justify="left")
    thresholds.add_column("setting")
    thresholds.add_column("value", justify="right")
    for section, values in trace.thresholds.items():
        for key, value in values.items():
            thresholds.add_row(f"{section}.{key}", fmt(value))
    parts.append(thresholds)
    return Group(*parts)


def trace_list(rows: list[dict[str, Any]]) -> Table:
    table = Table(title="Recent runs", title_justify="left", expand=True)
    for column in ("id", "time", "mode", "outcome", "question", "ms"):
        table.add_column(column, overflow="fold", justify="right" if column == "ms" else "left")
    for row in rows:
        table.add_row(
            row["id"],
            row["created_at"][:19].replace("T", " "),
            row["mode"],
            row.get("answer_type") or "",
            escape(row["question"]),
            f"{row['total_ms']:.0f}",
        )
    return table


def ingest_report(report: dict[str, Any]) -> Group:
    summary = Table(
        title=f"Ingest into '{report['collection']}'",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_header=False,
    )
    summary.add_column(style="bold")
    summary.add_column()
    statuses = ("new", "changed", "unchanged", "skipped", "failed", "removed")
    summary.add_row("files", "  ".join(f"{s} {report[f'files_{s}']}" for s in statuses))
    summary.add_row("chunks", f"added {report['chunks_added']}  removed {report['chunks_removed']}")
    summary.add_row("time", f"{report['seconds']:.1f} s")
    if report.get("recovered"):
        summary.add_row(
            "recovered",
            f"{len(report['recovered'])} file(s) left half-written by an interrupted ingest "
            "were repaired",
        )
    parts: list[Any] = [summary]
    noted = [f for f in report["files"] if f["reason"]]
    if noted:
        table = Table(title="Files skipped, failed or noted", title_justify="left", expand=True)
        table.add_column("file", overflow="fold")
        table.add_column("status")
        table.add_column("reason", overflow="fold")
        for item in noted:
            style = {"failed": "red", "skipped": "yellow"}.get(item["status"], "")
            table.add_row(
                escape(display_path(item["path"])),
                f"[{style}]{item['status']}[/]" if style else item["status"],
                escape(item["reason"]),
            )
        parts.append(table)
    return Group(*parts)
