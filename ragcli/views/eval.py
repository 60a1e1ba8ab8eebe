"""`ragcli eval` (retrieval quality on a BEIR dataset) and `ragcli calibrate` (the fitted
relevance calibration): reports of numbers, every column short."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from ragcli.views.layout import Cell, Col, FitTable


def eval_view(report: dict[str, Any]) -> RenderableType:
    ingest = report["ingest"]
    head = Text(
        f"{report['dataset']} · split {report['split']} · {report['queries']} queries · "
        f"{report['documents']} documents in collection {report['collection']} "
        f"({ingest['new']} new, {ingest['changed']} changed, {ingest['unchanged']} unchanged, "
        f"{ingest['removed']} removed)"
    )
    metrics = list(next(iter(report["results"].values()), {}))
    columns = [
        Col("retriever"),
        *(Col(name, justify="right") for name in metrics),
        Col("seconds", justify="right", drop=1),
    ]
    rows: list[list[Cell]] = [
        [
            retriever,
            *(f"{values[m]:.4f}" for m in metrics),
            Text(f"{report['seconds'].get(retriever, 0):.0f}", style="dim"),
        ]
        for retriever, values in report["results"].items()
    ]
    parts: list[RenderableType] = [head, FitTable(columns, rows, title="Retrieval quality")]
    if report.get("identical_ids"):
        parts.append(_identical_ids_line(report["identical_ids"]))
    if report.get("rerank"):
        parts.append(_rerank_table(report["rerank"]))
    if report.get("folds"):
        parts.append(_folds_table(report["folds"]))
    if report.get("gate"):
        parts.extend(_gate_parts(report["gate"]))
    return Group(*parts)


def _identical_ids_line(rule: dict[str, Any]) -> Text:
    """BEIR's rule, said: whether a document with the query's id counted, and how many
    queries found themselves (per retriever when they differ)."""
    hits: dict[str, int] = rule.get("self_hits") or {}
    counts = set(hits.values())
    if len(counts) <= 1:
        found = f"{next(iter(counts), 0)} queries found themselves"
    else:
        found = "queries that found themselves: " + ", ".join(f"{r} {n}" for r, n in hits.items())
    if rule.get("dropped"):
        return Text(
            "A retrieved document whose id is the query's is not counted, as in BEIR "
            f"({found}); --keep-identical-ids counts it.",
            style="dim",
        )
    return Text(f"Retrieved documents whose id is the query's are counted ({found}).", style="dim")


def _rerank_table(rerank: dict[str, Any]) -> RenderableType:
    """Each retriever's metrics with the reranker minus without it."""
    metrics = list(next(iter(rerank["delta"].values()), {}))
    columns = [Col("retriever"), *(Col(name, justify="right") for name in metrics)]
    rows: list[list[Cell]] = [
        [
            f"{retriever}+rerank",
            *(
                Text(f"{d[m]:+.4f}", style="green" if d[m] > 0 else "red" if d[m] < 0 else "")
                for m in metrics
            ),
        ]
        for retriever, d in rerank["delta"].items()
    ]
    title = f"Reranked by {rerank['reranker']} ({rerank['candidates']} candidates): change"
    return FitTable(columns, rows, title=title)


def _folds_table(folds: dict[str, Any]) -> RenderableType:
    """Each metric's mean over the folds and how far apart the folds lie (max - min)."""
    count = len(next(iter(next(iter(folds.values())).values()))["folds"])
    columns = [
        Col("retriever"),
        Col("metric"),
        Col("mean", justify="right"),
        Col("spread", justify="right"),
        Col("folds", kind="flex"),
    ]
    rows: list[list[Cell]] = [
        [
            retriever,
            metric,
            f"{values['mean']:.4f}",
            f"{values['spread']:.4f}",
            Text(" ".join(f"{v:.3f}" for v in values["folds"]), style="dim"),
        ]
        for retriever, by_metric in folds.items()
        for metric, values in by_metric.items()
    ]
    return FitTable(columns, rows, title=f"Across {count} folds of the queries")


def _gate_parts(gate: dict[str, Any]) -> list[RenderableType]:
    """The quality gate: each gated metric against the baseline, drops beyond the
    tolerance marked, then the verdict."""
    columns = [
        Col("retriever"),
        Col("metric"),
        Col("baseline", justify="right"),
        Col("now", justify="right"),
        Col("change", justify="right"),
        Col("", kind="flex"),
    ]
    rows: list[list[Cell]] = []
    for change in gate["changes"]:
        mark = Text("dropped", style="red") if change["regressed"] else Text("ok", style="green")
        rows.append(
            [
                change["retriever"],
                change["metric"],
                f"{change['baseline']:.4f}",
                f"{change['current']:.4f}",
                f"{change['delta']:+.4f}",
                mark,
            ]
        )
    title = f"Against {gate['baseline']} (tolerance {gate['tolerance']:g})"
    parts: list[RenderableType] = [FitTable(columns, rows, title=title)]
    for warning in gate["warnings"]:
        parts.append(Text(f"⚠ {warning}", style="yellow"))
    if gate["not_run"]:
        parts.append(Text(f"not compared (not run now): {', '.join(gate['not_run'])}", style="dim"))
    verdict = "passed" if gate["passed"] else "failed: a gated metric dropped (exit 7)"
    parts.append(Text(f"quality gate {verdict}", style="green" if gate["passed"] else "red"))
    return parts


def calibration_view(report: dict[str, Any]) -> RenderableType:
    cal = report["calibration"]
    weights = ", ".join(
        f"{f} {w:+.3f}" for f, w in zip(cal["features"], cal["weights"], strict=True)
    )
    high, low = report["bands"]["high"], report["bands"]["low"]
    parts: list[RenderableType] = [
        Text(
            f"{report['questions']} labelled questions, {report['retrieval']['mode']} "
            f"retrieval top-{report['retrieval']['top_k']}"
        ),
        Text(f"fitted: p = sigmoid({weights}, bias {cal['bias']:+.3f})"),
    ]
    for name in ("before", "after"):
        b = report[name]
        parts.append(
            Text(
                f"{name:6s}: answerable aggregating >= {high}: {b['answerable_high']}/"
                f"{b['answerable']} · unanswerable below {low}: {b['unanswerable_low']}/"
                f"{b['unanswerable']}"
            )
        )
    headers = ("threshold", "accepted", "correct", "unanswerable accepted", "precision", "recall")
    rows: list[list[Cell]] = [
        [
            f"{row['threshold']:.2f}",
            str(row["accepted"]),
            str(row["correct"]),
            str(row["unanswerable_accepted"]),
            f"{row['precision']:.2f}",
            f"{row['recall']:.2f}",
        ]
        for row in report["precision_recall"]
    ]
    columns = [Col(h, justify="right") for h in headers]
    parts.append(FitTable(columns, rows, title="Precision and recall per threshold"))
    saved = report["saved_to"]
    parts.append(Text(f"saved to {saved}" if saved else "not saved (--dry-run)"))
    return Group(*parts)
