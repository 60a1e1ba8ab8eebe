"""`ragcli eval QUESTIONS.yaml`: one row per mode: how it answered the answerable
questions, declined the others, found the expected evidence, and what it cost."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from ragcli.models import ModeScore, QuestionEval
from ragcli.views.format import display_path
from ragcli.views.layout import Cell, Col, FitTable


def _share(count: int, total: int) -> str:
    return f"{count}/{total}" if total else "-"


def _row(score: ModeScore) -> list[Cell]:
    return [
        score.mode,
        _share(score.answered, score.answerable),
        _share(score.limited, score.answerable),
        _share(score.missed, score.answerable),
        "-" if score.evidence is None else f"{score.evidence:.2f}",
        _share(score.declined, score.unanswerable),
        f"{score.llm_calls_per_question:.1f}",
        f"{score.seconds_per_question:.2f}",
        "-" if score.routed_as_labelled is None else f"{score.routed_as_labelled:.2f}",
    ]


def eval_questions_view(report: QuestionEval) -> RenderableType:
    columns = [
        Col("mode", kind="key"),
        Col("answered", justify="right"),
        Col("limited", justify="right"),
        Col("missed", justify="right"),
        Col("evidence", justify="right"),
        Col("declined", justify="right"),
        Col("calls/q", justify="right", drop=2),
        Col("s/q", justify="right", drop=1),
        Col("routed", justify="right", drop=3),
    ]
    table = FitTable(
        columns,
        [_row(s) for s in report.scores],
        title=f"{display_path(report.file)} · backend {report.backend}",
    )
    legend = Text(
        "answered / limited / missed: of the answerable questions; evidence: share of the "
        "expected text found in the answers; declined: unanswerable questions rightly not "
        "answered; calls/q: model calls per question; routed: --mode auto as labelled",
        style="dim",
    )
    return Group(table, legend)
