"""Rich tables for `ragcli eval` and `ragcli calibrate`: data in, renderable out."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text


def eval_report(report: dict[str, Any]) -> Group:
    ingest = report["ingest"]
    head = Text(
        f"{report['dataset']} · split {report['split']} · {report['queries']} queries · "
        f"{report['documents']} documents in collection {report['collection']} "
        f"({ingest['new']} new, {ingest['changed']} changed, {ingest['unchanged']} unchanged, "
        f"{ingest['removed']} removed)"
    )
    table = Table(box=box.SIMPLE_HEAD, title="Retrieval quality")
    table.add_column("retriever")
    metrics = next(iter(report["results"].values()), {})
    for name in metrics:
        table.add_column(name, justify="right")
    table.add_column("seconds", justify="right", style="dim")
    for retriever, values in report["results"].items():
        cells = [f"{values[m]:.4f}" for m in metrics]
        table.add_row(retriever, *cells, f"{report['seconds'].get(retriever, 0):.0f}")
    return Group(head, table)


def calibration_report(report: dict[str, Any]) -> Group:
    cal = report["calibration"]
    weights = ", ".join(
        f"{f} {w:+.3f}" for f, w in zip(cal["features"], cal["weights"], strict=True)
    )
    high, low = report["bands"]["high"], report["bands"]["low"]
    lines = [
        Text(
            f"{report['questions']} labelled questions, {report['retrieval']['mode']} "
            f"retrieval top-{report['retrieval']['top_k']}"
        ),
        Text(f"fitted: p = sigmoid({weights}, bias {cal['bias']:+.3f})"),
    ]
    for name in ("before", "after"):
        b = report[name]
        lines.append(
            Text(
                f"{name:6s}: answerable aggregating >= {high}: {b['answerable_high']}/"
                f"{b['answerable']} · unanswerable below {low}: {b['unanswerable_low']}/"
                f"{b['unanswerable']}"
            )
        )
    table = Table(box=box.SIMPLE_HEAD, title="Precision and recall per threshold")
    for column in (
        "threshold",
        "accepted",
        "correct",
        "unanswerable accepted",
        "precision",
        "recall",
    ):
        table.add_column(column, justify="right")
    for row in report["precision_recall"]:
        table.add_row(
            f"{row['threshold']:.2f}",
            str(row["accepted"]),
            str(row["correct"]),
            str(row["unanswerable_accepted"]),
            f"{row['precision']:.2f}",
            f"{row['recall']:.2f}",
        )
    saved = report["saved_to"]
    lines.append(table)
    lines.append(Text(f"saved to {saved}" if saved else "not saved (--dry-run)"))
    return Group(*lines)
