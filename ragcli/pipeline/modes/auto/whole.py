"""Whether a question asks about whole documents: a summary ("Summarise the refund
policy", "Give me an overview of the admin guide", "TL;DR of …") or a comparison of
documents ("Compare the privacy policy and the terms of service"). Grammar only, no
model call, as every signal of auto's route."""

from __future__ import annotations

import re
from typing import Literal

from ragcli.llm import decompose as grammar

WholeRequest = Literal["summary", "comparison"]

_POLITE = r"(?:please\s+|can\s+you\s+|could\s+you\s+|would\s+you\s+)?"
_ARTICLE = r"(?:an?\s+|the\s+)?"
SUMMARY = re.compile(
    rf"^\s*{_POLITE}(?:"
    r"summari[sz]e|sum\s+up|recap|tl;?\s*dr"
    rf"|(?:give|write|make)\s+(?:me\s+|us\s+)?{_ARTICLE}"
    r"(?:short\s+|brief\s+|quick\s+)?(?:summary|overview|outline|rundown|recap|synopsis)"
    rf"|{_ARTICLE}(?:short\s+|brief\s+)?(?:summary|overview|outline|synopsis|gist)\s+of"
    r"|what\s+(?:is|are)\s+the\s+(?:gist|main\s+points|key\s+points|key\s+takeaways)\s+of"
    r")\b",
    re.IGNORECASE,
)


def whole_request(question: str) -> WholeRequest | None:
    text = question.strip().rstrip("?.!")
    if SUMMARY.match(text):
        return "summary"
    if (
        grammar.COMPARE.match(text)
        or grammar.DIFFERENCE.search(text)
        or grammar.COMPARED_TO.match(text)
        or grammar.VERSUS.match(text)
    ):
        return "comparison"
    return None
