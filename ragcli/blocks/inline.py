"""Inline text as every reader writes it: code spans, heading titles."""

from __future__ import annotations

import re

# A heading's trailing attribute list: `{ #anchor }`, `{#id .class}`, `{: .x }`.
HEADING_ATTRIBUTES = re.compile(r"\s*\{:?\s*(?:[#.][\w:.-]+|[\w-]+=\S+)(?:\s+[^{}]*)?\}\s*$")


# A block's trailing attribute list (Python-Markdown's attr_list on a paragraph or list
# item): `Text. { .annotate }`, `Text. {#anchor}`.
TRAILING_ATTRIBUTES = re.compile(
    r"[ \t]*\{:?[ \t]*(?:[#.][\w:.-]+|[\w-]+=\S+)(?:[ \t]+[^{}\n]*)?\}[ \t]*$"
)
# An attribute list on an inline element (Python-Markdown's attr_list, as Material for
# MkDocs sites write it): `**`css_class`**{ #css_class }`, `*text*{: .note }`, right after
# the element's closing mark.
INLINE_ATTRIBUTES = re.compile(r"^\{:?[ \t]*(?:[#.][\w:.-]+|[\w-]+=\S+)(?:[ \t]+[^{}\n]*)?\}")
# A site's template tags (mkdocs-macros, Jinja): `{{ sponsor.url }}`, `{% for x in y %}`.
TEMPLATE_TAG = re.compile(r"\{\{-?\s*[^{}\n]*?\s*-?\}\}|\{%-?[^%\n]*?-?%\}")
CODE_SPANS = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)


def block_text(text: str) -> str:
    """A paragraph's or item's text without what a site generator reads and removes: a
    trailing attribute list, template tags (outside code spans)."""
    if "{" not in text:
        return text.strip()
    parts, start = [], 0
    for span in CODE_SPANS.finditer(text):
        parts.append(TEMPLATE_TAG.sub("", text[start : span.start()]))
        parts.append(span.group())
        start = span.end()
    parts.append(TEMPLATE_TAG.sub("", text[start:]))
    return TRAILING_ATTRIBUTES.sub("", "".join(parts)).strip()


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
