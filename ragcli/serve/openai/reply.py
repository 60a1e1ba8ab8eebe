"""A run's result as an OpenAI reply: the message a chat client shows (the answer citing
[1], [2], ragcli's notes, and the cited sources listed under it), the `ragcli` field
with everything else (`ask --json`'s document: every source with its text and scores,
the trace id, the outcome, each mode's details), and the usage."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from ragcli.pipeline.results import AskResult

SOURCES_HEADING = "Sources:"
_CITATION = re.compile(r"\[(\d+)\]")


def message_text(result: AskResult, root: Path | None) -> str:
    """The answer, ragcli's notes on it (a guard rail that stopped a loop, a source that
    could not be read), and a list of the sources it cites under their numbers. The
    outcome (a limited or unverified answer) is in the `ragcli` field; the answers that
    are not plain say so in their own words."""
    parts = [result.answer.strip()]
    parts += [f"*{note}*" for note in result.notes if note and note not in result.answer]
    listed = sources_block(result, root)
    if listed:
        parts.append(listed)
    return "\n\n".join(part for part in parts if part)


def sources_block(result: AskResult, root: Path | None) -> str:
    """`Sources:` and a line per cited source, `- [2] policies/refund.md:7–11 · Annual
    plans`, in the order of their numbers; "" when the answer cites none."""
    cited = sorted({int(n) for n in _CITATION.findall(result.answer)})
    lines = []
    for number in cited:
        if not 1 <= number <= len(result.sources):
            continue
        meta = result.sources[number - 1].metadata
        where = meta.cited(shown_path(meta.source_file, root))
        if meta.heading and meta.heading not in where:
            where += f" · {meta.heading}"
        lines.append(f"- [{number}] {where}")
    return "\n".join([SOURCES_HEADING, *lines]) if lines else ""


def shown_path(path: str, root: Path | None) -> str:
    """A stored path relative to the folder holding the store (as --path patterns are),
    when it is under it; URLs and other ids as they are."""
    if root is None or "://" in path or not os.path.isabs(path):
        return path
    try:
        relative = os.path.relpath(path, root)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative


def extension(result: AskResult) -> dict[str, Any]:
    """The reply's `ragcli` field: what `ragcli ask --json` prints for the run."""
    return result.to_json_dict()
