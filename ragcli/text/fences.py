"""A code block's fence: the shortest run of backticks (three at least) the code does not
hold, and the info string (the language) after the opening one."""

from __future__ import annotations

import re

FENCE_LINE = re.compile(r"^\s*(?:```|~~~)")
OPENING = re.compile(r"^(`{3,}|~{3,})([^\n]*)\n")


def fence(code: str, info: str = "") -> str:
    marks = "```"
    while marks in code:
        marks += "`"
    return f"{marks}{info}\n{code}\n{marks}"


def unfence(text: str) -> tuple[str, str] | None:
    """(code, info) of a fenced block `text`; None when `text` is not one."""
    opening = OPENING.match(text)
    if opening is None:
        return None
    marks = opening.group(1)
    body = text[opening.end() :]
    if not body.rstrip().endswith(marks):
        return None
    code = body.rstrip()[: -len(marks)]
    return code[:-1] if code.endswith("\n") else code, opening.group(2).strip()
