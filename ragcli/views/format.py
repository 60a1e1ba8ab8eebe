"""The one set of formatters every view uses: numbers, timestamps, plurals, paths, costs,
and the styles of answer types and labels. Strings in, strings (or styled Text) out."""

from __future__ import annotations

import os
from typing import Any

from rich.text import Text

# The colour of each answer type: green answered, yellow qualified, cyan asks back, red not.
ANSWER_STYLES: dict[str, str] = {
    "answer": "green",
    "limited": "yellow",
    "unverified": "yellow",
    "clarification": "cyan",
    "handoff": "red",
    "not_covered": "red",
    "failed": "red",
}
# Grade labels, relevance verdicts and loop actions share one palette.
LABEL_STYLES: dict[str, str] = {
    "correct": "green",
    "relevant": "green",
    "approved": "green",
    "passed": "green",
    "ambiguous": "yellow",
    "failed": "yellow",
    "incorrect": "red",
    "irrelevant": "red",
}
NONE = "-"  # what a missing value shows as, everywhere


def answer_style(answer_type: str) -> str:
    return ANSWER_STYLES.get(answer_type, "red")


def styled(label: str) -> Text:
    """A label in its colour (uncoloured when it has none)."""
    return Text(label, style=LABEL_STYLES.get(label, ""))


def num(value: float | None, digits: int = 2) -> str:
    return NONE if value is None else f"{value:.{digits}f}"


def versus(score: float | None, threshold: float | None) -> str:
    """A score against the threshold it was held to: `0.85 vs 0.80`."""
    if score is None:
        return NONE
    return num(score) + ("" if threshold is None else f" vs {num(threshold)}")


def fmt(value: Any) -> str:
    """Any value of a trace or a report as one short string."""
    if value is None:
        return NONE
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return num(value)
    if isinstance(value, dict):
        return ", ".join(f"{k} {fmt(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(fmt(v) for v in value)
    return str(value)


def flag(value: bool | None) -> str:
    return NONE if value is None else ("yes" if value else "no")


def when(timestamp: str | None, seconds: bool = False) -> str:
    """An ISO timestamp as `YYYY-MM-DD HH:MM` (with `:SS` when asked)."""
    if not timestamp:
        return NONE
    return timestamp[: 19 if seconds else 16].replace("T", " ")


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count} {word if count == 1 else (many or word + 's')}"


def milliseconds(value: float) -> str:
    return f"{value:.0f} ms"


def one_line(text: str) -> str:
    """Text for a single-line cell: line breaks become spaces."""
    return " ".join(text.split())


def display_path(path: str) -> str:
    """Paths under the working directory are shown relative to it; URLs as they are."""
    if "://" in path:
        return path
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return path
    return path if relative.startswith("..") else relative


def format_cost(usd: float) -> str:
    """Small amounts keep enough digits to be read; `~` says it is an estimate."""
    if usd == 0:
        return "~$0"
    if usd < 0.01:
        return f"~${usd:.6f}".rstrip("0")
    return f"~${usd:.4f}"
