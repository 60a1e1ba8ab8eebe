"""The tos block of a result: the waterfall's bands (each stage's best score against the
thresholds it met, and where it went), the closest FAQ question and the verification."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from ragcli.pipeline.modes.tos.details import BandRow, TosDetails, VerificationRecord
from ragcli.views.format import LABEL_STYLES, fmt, num
from ragcli.views.layout import Cell, Col, FitTable


def band_table(path: list[BandRow]) -> FitTable:
    columns = [
        Col("stage"),
        Col("best score", justify="right"),
        # Setting names are what a user passes to --set: they are kept whole, one a line.
        Col("compared with", kind="key"),
        Col("outcome", kind="flex", min_width=14),
    ]
    rows: list[list[Cell]] = []
    for row in path:
        score = num(row.best_score)
        if row.components:
            score += "".join(f"\n{name} {num(value)}" for name, value in row.components.items())
        thresholds = "\n".join(f"{name} {fmt(at)}" for name, at in row.thresholds.items())
        outcome = Text(row.outcome)
        if row.reason:
            outcome.append("\n" + row.reason, style="dim")
        rows.append([row.stage, score, thresholds or "-", outcome])
    return FitTable(columns, rows, title="Bands")


def verification_lines(verification: VerificationRecord) -> list[Text]:
    line = f"verification: {verification.status}"
    if verification.reason:
        line += f" ({verification.reason})"
    if verification.downgraded:
        line += f"; downgraded {verification.downgraded}"
    lines = [Text(line, style=LABEL_STYLES.get(verification.status, "dim"))]
    for claim in verification.unsupported_claims or []:
        lines.append(Text(f"  unsupported: {claim}", style="yellow"))
    return lines


def tos_parts(details: TosDetails) -> list[RenderableType]:
    parts: list[RenderableType] = [band_table(details.path)]
    if details.matched_question:
        parts.append(
            Text(
                f"closest FAQ question ({num(details.qna_score)}): {details.matched_question}",
                style="dim",
            )
        )
    parts.extend(verification_lines(details.verification))
    return parts
