"""The crag block of a result (crag and both modes): per-chunk grades, the routing verdict
against both thresholds with any rewrites and re-retrievals, and the web results."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from ragcli.pipeline.modes.crag.details import CragDetails, GradeRow, WebResultRow
from ragcli.views.format import display_path, num, styled
from ragcli.views.layout import Cell, Col, FitTable


def grades_table(grades: list[GradeRow], title: str = "Chunk grades") -> FitTable:
    columns = [
        Col("#", justify="right"),
        Col("source", kind="key"),
        Col("score", justify="right"),
        Col("label", drop=1),
        Col("rationale", kind="flex", drop=2),
    ]
    rows: list[list[Cell]] = [
        [str(g.rank), display_path(g.source_file), num(g.score), styled(g.label), g.rationale]
        for g in grades
    ]
    return FitTable(columns, rows, title=title)


def routing_table(details: CragDetails) -> FitTable:
    """The verdict against both thresholds, then each rewrite and re-retrieval tried."""
    columns = [
        Col("score", justify="right"),
        Col("relevant ≥", justify="right"),
        Col("ambiguous ≥", justify="right"),
        Col("label"),
        Col("route", kind="flex"),
        Col("web", kind="flex", min_width=10, drop=1),
    ]
    verdict, thresholds, web = details.evaluation, details.thresholds, details.web_search
    web_cell = (
        "not needed" if web is None else web.status + (f": {web.message}" if web.message else "")
    )
    rows: list[list[Cell]] = [
        [
            num(verdict.relevance_score),
            num(thresholds.relevant),
            num(thresholds.ambiguous),
            styled(verdict.relevance_label),
            details.route,
            web_cell,
        ]
    ]
    for rewrite in details.rewrites:
        rows.append(
            [
                num(rewrite.relevance_score),
                "",
                "",
                styled(rewrite.relevance_label),
                f"rewrite: {rewrite.query}",
                "kept" if rewrite.kept else "discarded",
            ]
        )
    for again in details.re_retrievals or []:
        rows.append(
            [
                num(again.evaluation.relevance_score),
                "",
                "",
                styled(again.evaluation.relevance_label),
                f"re-retrieval: {again.query} → {again.route}",
                f"{again.web_results} results",
            ]
        )
    return FitTable(columns, rows, title="CRAG routing")


def web_table(results: list[WebResultRow]) -> FitTable:
    """Each web result: its title over its URL, the search engine's score, our grade."""
    columns = [
        Col("result", kind="key"),
        Col("score", justify="right", drop=3),
        Col("grade", justify="right", drop=2),
        Col("label"),
        Col("used"),
    ]
    rows: list[list[Cell]] = []
    for result in results:
        where = Text(result.title or result.url)
        if result.title:
            where.append("\n" + result.url, style="dim")
        rows.append(
            [
                where,
                num(result.score),
                num(result.grade),
                styled(result.label),
                "yes" if result.used else "no",
            ]
        )
    return FitTable(columns, rows, title="Web results")


def crag_tables(details: CragDetails) -> list[RenderableType]:
    """The crag block's tables in reading order: grades, then routing, then the web."""
    tables: list[RenderableType] = []
    if details.grades:
        tables.append(grades_table(details.grades))
    tables.append(routing_table(details))
    if details.web_results:
        tables.append(web_table(details.web_results))
    return tables
