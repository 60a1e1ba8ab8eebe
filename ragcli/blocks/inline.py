"""Inline text as every reader writes it: code spans, heading titles."""

from __future__ import annotations

import re

# A heading's trailing attribute list: `{ #anchor }`, `{#id .class}`, `{: .x }`.
HEADING_ATTRIBUTES = re.compile(r"\s*\{:?\s*(?:[#.][\w:.-]+|[\w-]+=\S+)(?:\s+[^{}]*)?\}\s*$")


def code_span(code: str) -> str:
    """`code` as a code span, with enough backticks around it to hold its own."""
    ticks = "`"
    while ticks in code:
        ticks += "`"
    pad = " " if code.startswith("`") or code.endswith("`") else ""
    return f"{ticks}{pad}{code}{pad}{ticks}"


def heading_title(text: str) -> str:
    """A heading as a reader sees it: one line, without the attribute list a site generator
    reads (`Recap { #recap }`)."""
    title = " ".join(text.split())
    return HEADING_ATTRIBUTES.sub("", title).strip() or title
