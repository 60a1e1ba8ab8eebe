"""When a quoted sentence's subject is its section's heading, and the heading is a name.

Reference pages title a section with the thing it describes and then write about it
without naming it again: under "## `GZipMiddleware`" the first sentence is "Handles GZip
responses for any request that includes …". Quoted alone, that sentence has lost what it
is about, and a how-to answer loses the very name that solves the problem. The offline
backend quotes such a sentence with its heading: "**`GZipMiddleware`**: handles GZip
responses … [1]".

Two decisions, both from the text:
- `heading_name`: the heading is a name or an identifier (a code span, or one token shaped
  like code: CamelCase, snake_case, dotted, a call, a --flag), not a phrase ("Restoring
  from a backup").
- `lacks_subject`: the sentence opens with a verb, not a noun phrase: a third-person verb
  ("Handles", "Returns") not followed by an auxiliary (as "Options are" is), or a
  participle that a preposition follows ("Used to", "Called when").
"""

from __future__ import annotations

import re

# One token shaped like code: CamelCase, snake_case, dotted.name, call(), --flag.
CODE_TOKEN = re.compile(
    r"(?:--?[a-z][\w-]*"
    r"|[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+(?:\(\))?"
    r"|[A-Za-z]*[a-z][A-Z]\w*(?:\(\))?"
    r"|[A-Z]{2,}[a-z]\w*(?:\(\))?"
    r"|[A-Za-z]\w*_\w+(?:\(\))?"
    r"|[A-Za-z_]\w*\(\))"
)
CODE_SPAN = re.compile(r"`([^`\n]+)`")
# A sentence's first words, markup aside.
OPENING = re.compile(r"^[\s*_>]*([A-Za-z][a-z]+)\b[\s,]*([A-Za-z']+)?")
# Words that follow a subject, not a verb: "Options are …", "Settings can …".
AUXILIARY = frozenset(
    """is are was were be been being am has have had do does did can could may might must
    shall should will would need""".split()
)
# Words that end in "s" or "ed" without being verbs.
NOT_VERBS = frozenset(
    """this thus its his hers ours yours theirs as is has was does always perhaps unless
    sometimes besides whereas less across plus yes bus alias status focus class process
    access address canvas chaos series species news analysis basis axis
    bed need seed speed feed red hundred indeed""".split()
)
PREPOSITION = frozenset(
    "to by for in on when with from as at if during after before via into".split()
)


def heading_name(heading: str) -> str | None:
    """The heading as a name to carry (`GZipMiddleware`), or None when it is a phrase.
    A heading that is one code span, or one code-shaped token, is a name."""
    text = heading.strip().lstrip("#").strip().strip("*_ ").strip()
    if not text:
        return None
    spans = CODE_SPAN.findall(text)
    if len(spans) == 1 and CODE_SPAN.fullmatch(text):
        return text
    if " " not in text and CODE_TOKEN.fullmatch(text):
        return f"`{text}`"
    return None


def lacks_subject(sentence: str) -> bool:
    """The sentence opens with its verb: its subject is what it sits under."""
    match = OPENING.match(sentence)
    if match is None:
        return False
    first, second = match.group(1).lower(), (match.group(2) or "").lower()
    if first in NOT_VERBS or second in AUXILIARY:
        return False
    if first.endswith("s") and not first.endswith(("ss", "us", "is")):
        return True  # "Handles GZip responses …", "Returns the …"
    return first.endswith("ed") and second in PREPOSITION  # "Used to …", "Called when …"


def with_heading(sentence: str, heading: str) -> str:
    """`sentence` quoted with the heading that is its subject, when it lacks one of its
    own and the heading is a name; otherwise as it is."""
    name = heading_name(heading)
    if name is None or not lacks_subject(sentence):
        return sentence
    bare = name.strip("`")
    if bare in sentence:
        return sentence  # it names its subject after all
    opening = sentence.lstrip()
    return f"**{name}**: {opening[:1].lower()}{opening[1:]}"
