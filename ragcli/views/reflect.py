"""The reflection block of a result (reflect and both modes): each round's score against
the minimum, its checks, and what the loop did next."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ragcli.pipeline.modes.reflect.details import ReflectionDetails
from ragcli.views.format import flag, styled, versus
from ragcli.views.layout import Cell, Col, FitTable


def rounds_table(details: ReflectionDetails) -> FitTable:
    """`grounded` is the model's verdict; `support` the sentence-support check's share of
    sentences backed by their sources, beside it."""
    columns = [
        Col("round", justify="right"),
        Col("query", kind="flex", min_width=14),
        Col("score vs min"),
        Col("grounded"),
        Col("support", justify="right", drop=3),
        Col("hallucination", drop=2),
        Col("action", kind="flex", min_width=10),
        Col("reason", kind="flex", min_width=14, drop=1),
    ]
    rows: list[list[Cell]] = [
        [
            str(r.iteration),
            r.query,
            versus(r.score, details.min_score),
            flag(r.grounded),
            "-" if r.support is None else f"{r.support:.0%}",
            flag(r.hallucination),
            styled(r.action),
            r.reason,
        ]
        for r in details.history
    ]
    return FitTable(columns, rows, title="Reflection rounds")


def stored_reflection(result: dict[str, Any]) -> ReflectionDetails | None:
    """The reflection block of a stored run's result, when it has one this ragcli can read:
    an older trace's block may not validate, and its steps still show every round."""
    block = result.get("reflection_details") if isinstance(result, dict) else None
    if not block:
        return None
    try:
        return ReflectionDetails.model_validate(block)
    except ValidationError:
        return None
