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
