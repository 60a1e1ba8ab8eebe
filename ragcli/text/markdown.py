"""A typed answer (ragcli/answer.py) as the Markdown a reader sees: made here once, for
`AskResult.answer`, the prompts that quote an answer, and the views (which add support
marks after the parts they name).

A part is written as its kind is shown: a sentence or statement as inline Markdown, a
list item on a line of its own, a row as a list item (`- header: value; …`), code in its
fence, a heading in bold on its line, a list of files on its line, a label as a list item
in bold (`- **Annual plans**:`) that the claims after it continue. Each quote is followed
by the sources it cites (`[1]`); a run of parts quoted as one (a lead-in and the list or
code it introduces) is cited once, on a line after its last part. A sentence after a
list, or after a citation that closes a block, starts a paragraph (in Markdown a line
right after a list item continues the item)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from ragcli.answer import Answer, AnswerPart
from ragcli.text.citations import format_citations
from ragcli.text.fences import FENCE_LINE, fence

ITEM_OR_ROW = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)]|\|)\s")
LINE_KINDS = frozenset({"heading", "source_list"})
# A model's sentence, or the stretch of one a citation follows, cites before its closing
# stop or comma: "… 7420 [1]." and "… 7420 [1], and …".
CLOSING_STOP = re.compile(r"(?<![.!?])[.!?,;]$")


def render(answer: Answer, marks: Mapping[int, str] | None = None) -> str:
    """The answer as Markdown: its notes, then its parts. `marks` puts a text (a support
    mark, ` **†1**`) after the part of that index."""
    body = _parts(answer.parts, marks or {})
    return "\n\n".join([*answer.notes, body] if body else answer.notes)


def part_text(part: AnswerPart) -> str:
    """One part as Markdown, without its citation."""
    if part.kind == "code":
        return fence(part.text, part.language or "")
    if part.kind == "heading":
        return f"**{part.text}**"
    if part.kind == "label":
        return f"- **{part.text}**:" if part.text else "-"
    if part.kind == "row":
        # A row quoted alone is a list item: a Markdown `| a | b |` row without its
        # table's header is no table, and would run on into the line before it.
        body = part.text.strip().strip("|").strip()
        return body if ITEM_OR_ROW.match(body) else f"- {body}"
    return part.text


def quotes_of(answer: Answer) -> list[list[AnswerPart]]:
    """The answer's quotes: each part with the parts that continue it."""
    return [[answer.parts[i] for i in group] for group in _groups(answer.parts)]


def _groups(parts: tuple[AnswerPart, ...]) -> list[list[int]]:
    groups: list[list[int]] = []
    for index, part in enumerate(parts):
        files = part.kind == "source_list" and index > 0 and parts[index - 1].kind == "source_list"
        if (part.continues or files) and groups:
            groups[-1].append(index)
        else:
            groups.append([index])
    return groups


def _quote(parts: list[AnswerPart], marks: list[str]) -> str:
    """A run of parts quoted as one, with its citation."""
    if parts[0].kind == "source_list":
        files = "; ".join(f"{format_citations(p.sources)} {p.text}".strip() for p in parts)
        return f"Sources: {files}"
    cites = format_citations(n for part in parts for n in part.sources)
    if len(parts) == 1 and parts[0].kind != "code":
        text = part_text(parts[0])
        written = parts[0].kind == "statement" or (
            parts[0].kind == "list_item" and parts[0].chunk_id is None
        )
        if cites and written and CLOSING_STOP.search(text):
            # A model's sentence or item cites before its stop, as it was asked to write it.
            return f"{text[:-1]} {cites}{text[-1]}{marks[0]}"
        return f"{text} {cites}{marks[0]}" if cites else f"{text}{marks[0]}"
    body = "\n".join(part_text(p) + mark for p, mark in zip(parts, marks, strict=True))
    # Nothing may follow a closing fence on its line.
    return f"{body}\n{cites}\n" if cites else f"{body}\n"


def _parts(parts: tuple[AnswerPart, ...], marks: Mapping[int, str]) -> str:
    answer, after_item, after_line = "", False, False
    in_label = False  # the claims after a label continue its item, on its line
    for group in _groups(parts):
        members = [parts[i] for i in group]
        head = members[0]
        text = _quote(members, [marks.get(i, "") for i in group])
        if answer and (head.same_sentence or (in_label and head.claims and not head.new_paragraph)):
            # The rest of a sentence (or item) a citation split, or a labelled item's claim.
            answer += " " + text
            continue
        in_label = head.kind == "label"
        item = in_label or bool(ITEM_OR_ROW.match(text))
        code = bool(FENCE_LINE.match(text))
        # A sentence after a code block's citation starts a paragraph of its own (else it
        # reads "[1] The next sentence …").
        after_code = answer.endswith("]\n") and not item and not code
        if answer and (head.new_paragraph or (after_item and not item) or after_code):
            answer = answer.rstrip("\n") + "\n\n"
        elif answer and not answer.endswith("\n"):
            # A code fence only opens at the start of a line.
            starts_line = item or code or after_line or head.new_line or head.kind in LINE_KINDS
            answer += "\n" if starts_line else " "
        answer += text
        after_item = item
        after_line = head.kind == "heading"
    return answer.strip()
