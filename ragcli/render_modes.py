"""Tables for the crag / reflect / both blocks of a result: per-chunk grades, the routing
decision against both thresholds, web results and reflection rounds. Pure: data in."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.table import Table

from ragcli.render import display_path

LABEL_STYLES = {
    "correct": "green",
    "relevant": "green",
    "ambiguous": "yellow",
    "incorrect": "red",
    "irrelevant": "red",
    "approved": "green",
}


def _num(value: Any) -> str:
    return "-" if value is None else f"{value:.2f}"


def _styled(label: str) -> str:
    style = LABEL_STYLES.get(label)
    return f"[{style}]{escape(label)}[/]" if style else escape(label)


def _table(title: str, *columns: str) -> Table:
    table = Table(title=title, title_justify="left", expand=True)
    for column in columns:
        numeric = column in ("#", "score", "grade", "round")
        table.add_column(
            column,
            justify="right" if numeric else "left",
            overflow="fold",
            no_wrap=column in ("score vs min", "relevance"),  # a verdict reads on one line
        )
    return table


def grades_table(grades: list[dict[str, Any]], title: str = "Chunk grades") -> Table:
    table = _table(title, "#", "source", "score", "label", "rationale")
    for row in grades:
        table.add_row(
            str(row.get("rank", "")),
            escape(display_path(str(row.get("source_file", "")))),
            _num(row.get("score")),
            _styled(str(row.get("label", ""))),
            escape(str(row.get("rationale", ""))),
        )
    return table


def routing_table(crag: dict[str, Any]) -> Table:
    table = _table(
        "CRAG routing", "relevance", "relevant at", "ambiguous at", "label", "route", "web"
    )
    evaluation = crag.get("evaluation", {})
    thresholds = crag.get("thresholds", {})
    web = crag.get("web_search") or {}
    table.add_row(
        _num(evaluation.get("relevance_score")),
        _num(thresholds.get("relevant")),
        _num(thresholds.get("ambiguous")),
        _styled(str(evaluation.get("relevance_label", ""))),
        escape(str(crag.get("route", ""))),
        escape(
            web.get("status", "not needed") + (f": {web['message']}" if web.get("message") else "")
        ),
    )
    for rewrite in crag.get("rewrites", []):
        table.add_row(
            _num(rewrite.get("relevance_score")),
            "",
            "",
            _styled(str(rewrite.get("relevance_label", ""))),
            escape(f"rewrite: {rewrite.get('query', '')}"),
            "kept" if rewrite.get("kept") else "discarded",
        )
    for again in crag.get("re_retrievals", []):
        evaluation = again.get("evaluation", {})
        table.add_row(
            _num(evaluation.get("relevance_score")),
            "",
            "",
            _styled(str(evaluation.get("relevance_label", ""))),
            escape(f"re-retrieval: {again.get('query', '')} → {again.get('route', '')}"),
            f"{again.get('web_results', 0)} results",
        )
    return table


def web_table(rows: list[dict[str, Any]]) -> Table:
    table = _table("Web results", "title", "url", "score", "grade", "label", "used")
    for row in rows:
        table.add_row(
            escape(str(row.get("title", ""))),
            escape(str(row.get("url", ""))),
            _num(row.get("score")),
            _num(row.get("grade")),
            _styled(str(row.get("label", ""))),
            "yes" if row.get("used") else "no",
        )
    return table


def rounds_table(reflection: dict[str, Any]) -> Table:
    min_score = reflection.get("min_score")
    table = _table(
        "Reflection rounds",
        "round",
        "query",
        "score vs min",
        "grounded",
        "hallucination",
        "action",
        "reason",
    )
    for row in reflection.get("history", []):
        score = row.get("score")
        versus = "-" if score is None else f"{score:.2f} vs {_num(min_score)}"
        table.add_row(
            str(row.get("iteration", "")),
            escape(str(row.get("query", ""))),
            versus,
            _flag(row.get("grounded")),
            _flag(row.get("hallucination")),
            _styled(str(row.get("action", ""))),
            escape(str(row.get("reason", ""))),
        )
    return table


def _flag(value: Any) -> str:
    return "-" if value is None else ("yes" if value else "no")


def mode_tables(result: dict[str, Any]) -> list[Table]:
    """The tables a result's mode-specific blocks call for, in reading order."""
    tables: list[Table] = []
    crag = result.get("crag_details")
    if crag:
        if crag.get("grades"):
            tables.append(grades_table(crag["grades"]))
        tables.append(routing_table(crag))
        if crag.get("web_results"):
            tables.append(web_table(crag["web_results"]))
    reflection = result.get("reflection_details")
    if reflection and reflection.get("history"):
        tables.append(rounds_table(reflection))
    return tables
