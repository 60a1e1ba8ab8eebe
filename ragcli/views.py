"""Rich renderables for status, sources, rm, compare and trace search / diff.

Pure like render.py (data in, renderable out), kept apart from it so each command's
view can grow without touching the shared one."""

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
from ragcli.render import ANSWER_STYLES, display_path, fmt


def _when(timestamp: str | None) -> str:
    return timestamp[:16].replace("T", " ") if timestamp else "-"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' * (count != 1)}"


def _pairs(title: str | None, rows: list[tuple[str, str]]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    for label, value in rows:
        table.add_row(label, escape(value))
    return table if title is None else Group(Text(title, style="bold underline"), table)


def status_view(data: dict[str, Any]) -> Group:
    store = data["store"]
    where = store["path"] + ("" if store["exists"] else "  (not created yet)")
    if store["chroma"] != "local":
        where += f"  · chroma server {store['chroma']}"
    llm, web, emb = data["llm"], data["web"], data["embedder"]
    model = llm["model"] + (f" at {llm['base_url']}" if llm["base_url"] else "")
    price = llm.get("price_per_1m_tokens")
    priced = f"${price['input']:g} in, ${price['output']:g} out per 1M tokens" if price else "-"
    traces = data["traces"]
    parts: list[Any] = [
        _pairs(
            None,
            [
                ("store", where),
                ("collection", f"{store['default_collection']} (default for ingest and ask)"),
                ("last ingest", _when(data["last_ingest"])),
                ("embedder", f"{emb['model']} · {emb['backend']} · {emb['device']}"),
                ("retrieval", f"{data['retrieval']['mode']} · top {data['retrieval']['top_k']}"),
                ("model", f"{llm['provider']} · {model} · key {llm['api_key']}"),
                ("price", priced),
                ("web search", f"{web['provider']} · key {web['api_key']}"),
                ("traces", f"{_plural(traces['runs'], 'run')} · last {_when(traces['last_run'])}"),
            ],
        )
    ]
    if store.get("error"):
        parts.append(Text(f"⚠ chunk counts unavailable: {store['error']}", style="yellow"))
    table = Table(title="Collections", title_justify="left")
    table.add_column("collection")
    table.add_column("files", justify="right")
    table.add_column("chunks", justify="right")
    table.add_column("last ingest")
    for item in data["collections"]:
        chunks = "?" if item["chunks"] is None else str(item["chunks"])
        table.add_row(escape(item["name"]), str(item["files"]), chunks, _when(item["last_ingest"]))
    if data["collections"]:
        parts.append(table)
    else:
        parts.append(Text("no collections yet: run `ragcli ingest PATH`", style="yellow"))
    return Group(*parts)


def sources_view(rows: list[dict[str, Any]], collection: str | None) -> Group:
    title = f"Ingested files in '{collection}'" if collection else "Ingested files"
    shown = [display_path(r["path"]) for r in rows]
    root = ""
    if any(os.path.isabs(p) for p in shown):
        # Paths outside the working directory: show them under their common folder.
        root = os.path.commonpath([os.path.dirname(r["path"]) for r in rows])
        shown = [os.path.relpath(r["path"], root) for r in rows]
        title += f" under {root}"
    table = Table(title=escape(title), title_justify="left", expand=True)
    table.add_column("file", overflow="fold", ratio=3, min_width=24)
    if collection is None:
        table.add_column("collection", no_wrap=True)
    for column in ("type", "chunks", "pages", "sha256", "ingested"):
        right = column in ("chunks", "pages")
        table.add_column(column, justify="right" if right else "left", no_wrap=True)
    for row, path in zip(rows, shown, strict=True):
        cells = [escape(path)]
        if collection is None:
            cells.append(escape(row["collection"]))
        cells += [
            row["file_type"],
            str(row["chunk_count"]),
            "-" if row["pages"] is None else str(row["pages"]),
            row["sha256"][:8],
            _when(row["ingested_at"]),
        ]
        table.add_row(*cells)
    total = sum(r["chunk_count"] for r in rows)
    return Group(table, Text(f"{_plural(len(rows), 'file')} · {total} chunks", style="dim"))


def removal_view(data: dict[str, Any]) -> Group:
    verb = "would remove" if data["dry_run"] else "removed"
    table = Table(title=f"{verb.capitalize()} from '{data['collection']}'", title_justify="left")
    table.add_column("file", overflow="fold")
    table.add_column("chunks", justify="right")
    for item in data["files"]:
        table.add_row(escape(display_path(item["path"])), str(item["chunks"]))
    files = len(data["files"])
    summary = f"{verb} {_plural(files, 'file')} · {data['chunks_removed']} chunks"
    return Group(table, Text(summary, style="dim"))


def _score(row: dict[str, Any]) -> str:
    if row.get("score") is None:
        return "-"
    text = f"{row['score']:.2f}"
    return text + (f" vs {row['threshold']:.2f}" if row.get("threshold") is not None else "")


def compare_view(question: str, rows: list[dict[str, Any]]) -> Group:
    priced = any("estimated_cost_usd" in row for row in rows)
    table = Table(
        title=f"Every mode on: {escape(question)}",
        title_justify="left",
        expand=True,
        box=box.SIMPLE_HEAD,
    )
    table.add_column("mode", no_wrap=True)
    table.add_column("answer type", no_wrap=True)
    # The route is the long cell: it wraps at words, and keeps a readable width at 80 columns.
    table.add_column("route", overflow="fold", ratio=1, min_width=18)
    table.add_column("score", overflow="fold", max_width=8)
    for column in ("calls", "tokens", "web", "ms") + (("cost",) if priced else ()):
        table.add_column(column, justify="right", no_wrap=True)
    below: list[Any] = []
    for row in rows:
        kind = row["answer_type"]
        style = ANSWER_STYLES.get(kind, "red")
        if row.get("error"):
            table.add_row(row["mode"], f"[red]{kind}[/]", "see below", *["-"] * (5 + priced))
            below.append(
                Panel(
                    escape(row["error"]),
                    title=f"{escape(row['mode'])} · failed",
                    title_align="left",
                    border_style="red",
                )
            )
            continue
        cells = [
            row["mode"],
            f"[{style}]{escape(kind)}[/]",
            escape(row.get("route") or "-"),
            _score(row),
            str(row["llm_calls"]),
            str(row["prompt_tokens"] + row["completion_tokens"]),
            str(row["web_searches"]),
            f"{row['ms']:.0f}",
        ]
        if priced:
            usd = row.get("estimated_cost_usd")
            cells.append(format_cost(usd) if usd is not None else "-")
        table.add_row(*cells)
        below.append(
            Panel(
                escape(row["answer"]),
                title=f"[bold]{escape(row['mode'])}[/] · [{style}]{escape(kind)}[/]",
                subtitle=f"trace {row['trace_id']}",
                title_align="left",
                subtitle_align="right",
                border_style=style,
            )
        )
    return Group(table, *below)


def search_results(text: str, rows: list[dict[str, Any]]) -> Table:
    table = Table(title=f"Runs matching {text!r}", title_justify="left", expand=True)
    table.add_column("id", no_wrap=True)
    table.add_column("time", no_wrap=True)
    table.add_column("mode", no_wrap=True)
    table.add_column("outcome", no_wrap=True)
    table.add_column("question", overflow="fold", ratio=2, min_width=16)
    table.add_column("answer", overflow="fold", ratio=3, min_width=20)
    for row in rows:
        answer = row.get("answer", "").replace("\n", " ")
        table.add_row(
            row["id"],
            _when(row["created_at"]),
            row["mode"],
            row.get("answer_type") or "",
            escape(row["question"]),
            escape(answer[:160] + ("…" if len(answer) > 160 else "")),
        )
    return table


def _step_cell(side: dict[str, Any] | None) -> str:
    if side is None:
        return "-"
    text = fmt(side["scores"]) if side["scores"] else ""
    if side["threshold"]:
        text += f" vs {fmt(side['threshold'])}"
    if side["decision"]:
        text += f" -> {side['decision']}" if text else side["decision"]
    return text or "-"


def diff_view(data: dict[str, Any]) -> Group:
    header = Table(
        title=f"Runs A {data['a']} and B {data['b']}", title_justify="left", box=box.SIMPLE_HEAD
    )
    header.add_column("")
    header.add_column("A", overflow="fold")
    header.add_column("B", overflow="fold")
    header.add_column("")
    for row in data["summary"]:
        header.add_row(
            row["field"],
            escape(fmt(row["a"])),
            escape(fmt(row["b"])),
            "≠" if row["differs"] else "",
        )
    steps = Table(
        title="Steps side by side (score vs threshold -> decision)",
        title_justify="left",
        expand=True,
        box=box.SIMPLE_HEAD,
    )
    steps.add_column("#", justify="right", no_wrap=True)
    steps.add_column("step", no_wrap=True)
    steps.add_column("A", overflow="fold", ratio=1)
    steps.add_column("B", overflow="fold", ratio=1)
    steps.add_column("ms A/B", justify="right", no_wrap=True)
    steps.add_column("differs", overflow="fold")
    for number, pair in enumerate(data["steps"], start=1):
        a_ms = f"{pair['a']['ms']:.0f}" if pair["a"] else "-"
        b_ms = f"{pair['b']['ms']:.0f}" if pair["b"] else "-"
        names = {side["name"] for side in (pair["a"], pair["b"]) if side}
        steps.add_row(
            str(number),
            escape(" / ".join(sorted(names))),
            escape(_step_cell(pair["a"])),
            escape(_step_cell(pair["b"])),
            f"{a_ms}/{b_ms}",
            escape(", ".join(pair["differs"])) or "-",
            style="yellow" if pair["differs"] else "",
        )
    differing = data["steps_differing"]
    summary = Text(
        f"{differing} of {len(data['steps'])} steps differ"
        if differing
        else "the runs took the same steps with the same scores and routes",
        style="dim",
    )
    answers = [
        Panel(
            escape(data["answers"][side] or "-"), title=f"answer {side.upper()}", title_align="left"
        )
        for side in ("a", "b")
    ]
    return Group(header, steps, summary, *answers)
