"""`ragcli ingest`: what changed in the collection, and every file skipped, failed or noted."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.progress import ProgressColumn, Task
from rich.table import Column
from rich.text import Text

from ragcli.views.format import display_path, plural
from ragcli.views.layout import Cell, Col, FitTable, pairs

STATUSES = ("new", "changed", "unchanged", "skipped", "failed", "removed")
STATUS_STYLES = {"failed": "red", "skipped": "yellow"}


class OcrColumn(ProgressColumn):
    """The page OCR is reading, beside the ingest's progress bar: OCR is by far the
    slowest thing an ingest does, and a bar that stands still would look frozen."""

    def __init__(self, activity: Callable[[], tuple[str, int, int] | None]) -> None:
        """`activity`: the (file, page, pages) OCR reads now, or None."""
        super().__init__(table_column=Column(no_wrap=True, overflow="ellipsis", ratio=1))
        self.activity = activity

    def render(self, task: Task) -> Text:
        now = self.activity()
        if now is None:
            return Text("")
        file, page, pages = now
        # The page count first: on a narrow terminal the file name is what gets cut.
        return Text(
            f"OCR {page}/{pages} {file}",
            style="cyan",
            no_wrap=True,
            overflow="ellipsis",
        )


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def progress_line(now: dict[str, Any], with_file: bool = True) -> str:
    """`115/145 files · 2,345 chunks · 48 chunks/s · ETA 1:20 · docs/big.md`: what an
    ingest is doing (`now`: files_done, files_total, chunks, rate, eta, current)."""
    eta = "ETA -" if now["eta"] is None else f"ETA {_clock(now['eta'])}"
    parts = [
        f"{now['files_done']}/{now['files_total']} files",
        f"{now['chunks']:,} chunks",
        f"{now['rate']:.0f} chunks/s",
        eta,
    ]
    if with_file and now["current"]:
        parts.append(display_path(now["current"]))
    return " · ".join(parts)


class _ActivityLine:
    """The counts in full, then the current file's path cut from the left to the width
    left ("…/sub/0042-abstract.txt"): on a narrow terminal the name stays readable."""

    def __init__(self, counts: str, path: str) -> None:
        self.counts = counts
        self.path = f" · {path}" if path else ""

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(len(self.counts), len(self.counts) + len(self.path))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        room = options.max_width - len(self.counts)
        path = self.path
        if len(path) > room:
            path = " · …" + path[len(path) - max(room - 4, 0) :] if room > 8 else ""
        line = Text(self.counts, no_wrap=True)
        line.append(path, style="dim")
        yield line


class ActivityColumn(ProgressColumn):
    """The ingest's counts, rate, ETA and current file, read afresh at every redraw: they
    move while one large file or one batch is embedded, when no file finishes."""

    def __init__(self, read: Callable[[], dict[str, Any]]) -> None:
        super().__init__(table_column=Column(no_wrap=True, ratio=1))
        self.read = read

    def render(self, task: Task) -> RenderableType:
        now = self.read()
        current = display_path(now["current"]) if now["current"] else ""
        return _ActivityLine(progress_line(now, with_file=False), current)


def ingest_view(report: dict[str, Any], show_repeated: bool = False) -> RenderableType:
    """`show_repeated`: list the files skipped or failing as in the last run, unchanged
    since, instead of one line counting them (`--show-skipped`)."""
    lines: list[tuple[str, Cell]] = [
        ("files", "  ".join(f"{s} {report[f'files_{s}']}" for s in STATUSES)),
        ("chunks", _chunks_line(report)),
        ("time", f"{report['seconds']:.1f} s"),
    ]
    lines[2:2] = [_remote_line(root) for root in report.get("remote", [])]
    if report.get("ocr_pages"):  # the slow part of an ingest, and text that may be misread
        lines.insert(2, ("ocr", f"{plural(report['ocr_pages'], 'page')} read by OCR"))
    if report.get("recovered"):
        repaired = plural(len(report["recovered"]), "file")
        lines.append(
            ("recovered", f"{repaired} left half-written by an interrupted ingest were repaired")
        )
    parts: list[RenderableType] = [
        Text(f"Ingest into '{report['collection']}'", style="bold"),
        pairs(lines),
    ]
    noted = [f for f in report["files"] if f["reason"]]
    repeated = [f for f in noted if f.get("repeated")]
    if repeated and not show_repeated:
        noted = [f for f in noted if not f.get("repeated")]
    if noted:
        # The reason sits under its file: it wraps there rather than pushing the name apart.
        rows: list[list[Cell]] = []
        for item in noted:
            where = Text(display_path(item["path"]))
            where.append("\n" + item["reason"], style="dim")
            status = Text(item["status"], style=STATUS_STYLES.get(item["status"], ""))
            rows.append([where, status])
        columns = [Col("file", kind="key"), Col("status")]
        parts.append(FitTable(columns, rows, title="Files skipped, failed or noted"))
    if repeated and not show_repeated:
        parts.append(
            Text(
                f"{plural(len(repeated), 'file')} still skipped or failing, unchanged since "
                "the last run: --show-skipped lists them; a .ragignore line stops reading them",
                style="dim",
            )
        )
    for root in report.get("remote", []):
        for note in root.get("notes", []):  # a repository's error is listed as a failure
            parts.append(Text(note, style="yellow"))
    if report.get("moved"):
        moved = report["moved"]
        shown = (
            f"{display_path(moved[0]['from'])} → {display_path(moved[0]['to'])}"
            if len(moved) == 1
            else f"{plural(len(moved), 'file')}"
        )
        redirected = "://" in moved[0]["from"] and "#" not in moved[0]["from"]
        said = (
            f"redirected: {shown} (the old address left the store)"
            if redirected
            else f"moved or renamed: {shown} (stored chunks reused, nothing embedded)"
        )
        parts.append(Text(said, style="dim"))
    if report.get("gone"):
        gone = report["gone"]
        folder = _common_folder(gone)
        origin = f" from {folder}" if folder else ""
        verb = "is" if len(gone) == 1 else "are"
        parts.append(
            Text(
                f"{plural(len(gone), 'file')} {verb} gone{origin}: run with --prune to drop "
                f"{'its' if len(gone) == 1 else 'their'} chunks",
                style="yellow",
            )
        )
    if not any(report[f"files_{s}"] for s in ("new", "changed", "unchanged", "failed")):
        roots = ", ".join(display_path(r) for r in report.get("roots", [])) or "the paths given"
        parts.append(Text(f"no supported files under {roots}", style="yellow"))
    return Group(*parts)


def _remote_line(root: dict[str, Any]) -> tuple[str, Cell]:
    """A site's requests (a re-sync's all conditional), a repository's commit."""
    if root["kind"] == "site":
        asked = f"{plural(root['requests'], 'request')}"
        if root["conditional"]:
            asked += f" ({root['conditional']} conditional, {root['not_modified']} not modified)"
        return "site", f"{root['root']} · {plural(root['found'], 'page')} found · {asked}"
    commit = (root.get("commit") or "")[:12] or "not fetched"
    previous = (root.get("previous") or "")[:12]
    since = f" (was {previous})" if previous and previous != commit else ""
    return "repository", f"{root['root']} @ {commit}{since}"


WATCH_STYLES = {
    "new": "green",
    "changed": "cyan",
    "removed": "magenta",
    "moved": "blue",
    "copied": "blue",
    "failed": "red",
    "skipped": "yellow",
    "error": "red",
}


def watch_line(change: Any, at: str) -> Text:
    """One applied change of `ingest --watch` (an AppliedChange), at `at` o'clock:
    `12:03:04 changed docs/a.md: 3 chunks replaced`; a move names both paths."""
    line = Text(f"{at} ", style="dim")
    line.append(change.action, style=WATCH_STYLES.get(change.action, ""))
    if change.action == "moved":
        line.append(f" {display_path(change.old_path)} → {display_path(change.path)}")
    elif change.path:
        line.append(f" {display_path(change.path)}")
    chunks = plural(change.chunks, "chunk")
    detail = {
        "new": chunks,
        "changed": f"{chunks} replaced",
        "removed": f"{chunks} removed",
        "moved": f"{chunks} reused" if change.reused else chunks,
        "copied": f"{chunks} reused from {display_path(change.old_path)}",
    }.get(change.action, change.reason)
    if detail:
        line.append(f": {detail}" if change.path else f" {detail}")
    return line


def _chunks_line(report: dict[str, Any]) -> str:
    line = f"added {report['chunks_added']}  removed {report['chunks_removed']}"
    reused = report.get("chunks_reused", 0)
    if reused:  # renamed, moved or copied files: their chunks were not embedded again
        line += f"  ({reused} of the added reused, not embedded)"
    return line


def _common_folder(paths: list[str]) -> str:
    folders = {os.path.dirname(display_path(p)) for p in paths}
    common = os.path.commonpath(list(folders)) if folders else ""
    return common + "/" if common else ""
