"""A lead-in: a sentence that introduces the list or code that follows it ("… as
follows:", and the trailing ellipsis some sites write instead: "could be done like
this…"). The chunker keeps a lead-in's cut-off code with it; an answer quotes it with
what it introduces."""

from __future__ import annotations

import re

LEAD_IN_END = re.compile(r"(?::|…|\.\.\.)\s*$")


def is_lead_in(text: str) -> bool:
    return bool(LEAD_IN_END.search(text))
