"""When a quoted sentence's subject is its section's heading, and the heading is a name.

Reference pages title a section with the thing it describes and then write about it
without naming it again: under "## `GZipMiddleware`" the first sentence is "Handles GZip
responses for any request that includes …". Quoted alone, that sentence has lost what it
is about, and a how-to answer loses the very name that solves the problem. The offline
backend quotes such a sentence with its heading: "**`GZipMiddleware`**: handles GZip
responses … [1]".

Both decisions come from the document's structure (ragcli/blocks/), not from words:
- `heading_name`: the heading is a name, a code span (`` `GZipMiddleware` ``) or one token
  shaped like code (CamelCase, snake_case, dotted, a call, a --flag), not a phrase
  ("Restoring from a backup").
- the sentence is the first of the first paragraph under that heading (segment.py's
  `opens_section`), and does not name the heading itself.
"""

from __future__ import annotations

import re

from ragcli.text.sentences import continuing

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


def heading_name(heading: str) -> str | None:
    """The heading as a name to carry (`GZipMiddleware`), or None when it is a phrase.
    A heading that is one code span, or one code-shaped token, is a name."""
    text = heading.strip().lstrip("#").strip().strip("*_ ").strip()
    if not text:
        return None
    if CODE_SPAN.fullmatch(text):
        return text
    if " " not in text and CODE_TOKEN.fullmatch(text):
        return f"`{text}`"
    return None


def with_heading(sentence: str, heading: str) -> str:
    """`sentence`, the first under `heading`, quoted with the heading as its subject when
    the heading is a name the sentence does not itself say; otherwise as it is."""
    name = heading_name(heading)
    if name is None:
        return sentence
    bare = name.strip("`").casefold()
    if bare in sentence.casefold():
        return sentence  # it names its subject after all
    return with_title(sentence, name)


def with_title(sentence: str, title: str) -> str:
    """`sentence` quoted after `title` in bold, as the rest of its sentence:
    "**`GZipMiddleware`**: handles GZip responses …"."""
    return f"**{title}**: {continuing(sentence)}"
