"""Flaws a reader notices in a quoted answer whatever the question, counted by
scripts/howto_benchmark.py so that a rule of the offline answerer kept for how its
answers read (ragcli/llm/offline/rules.py) has a figure, as one kept for what they name
has "the name is in the answer":

- refers_back: a sentence opens with "This", "That", "These" or "Those" without the
  sentence it refers to before it ("This is what the default does.");
- repeated: one sentence, item or row quoted twice;
- hanging_lead_in: a sentence that announces a list or code ("… as follows:") with
  nothing after it.
"""

from __future__ import annotations

from ragcli.answer import Answer, AnswerPart
from ragcli.llm.offline.selection import REFERS_BACK  # what the antecedent rule looks for
from ragcli.llm.text import normalise
from ragcli.text.lead_ins import is_lead_in

DEFECTS = ("refers_back", "repeated", "hanging_lead_in")
# Characters between two quotes of one passage that still make them neighbours (a space,
# a line break).
ADJACENT = 3


def defects(answer: Answer) -> list[str]:
    """The DEFECTS `answer` shows, each once, in DEFECTS' order."""
    parts = answer.parts
    found: set[str] = set()
    seen: set[str] = set()
    for i, part in enumerate(parts):
        if not part.claims:
            continue
        before = parts[i - 1] if i else None
        if part.kind == "sentence" and REFERS_BACK.match(part.text):
            if before is None or not _adjacent(before, part):
                found.add("refers_back")
        key = normalise(part.text)
        if key and key in seen:
            found.add("repeated")
        seen.add(key)
        after = parts[i + 1] if i + 1 < len(parts) else None
        if is_lead_in(part.text) and (after is None or not after.continues):
            found.add("hanging_lead_in")
    return [d for d in DEFECTS if d in found]


def _adjacent(before: AnswerPart, part: AnswerPart) -> bool:
    """`before` is the passage's text just before `part`: what "This" refers to."""
    if before.chunk_id is None or before.chunk_id != part.chunk_id:
        return False
    if before.span is None or part.span is None:
        return False
    return 0 <= part.span.start - before.span.end <= ADJACENT
