"""The names a page's headings give, for the offline backend's how-to answers.

Documentation titles its fixes with their names ("### Fix with `is_eager`", "## Custom help
name (`metavar`)", "## Select by Id with `.get()`"), while a how-to question describes the
problem in its own words, so the sentence that names the fix shares few words with it. The
names come from the retrieved chunks' headings (the paths they sit under and the headings
in their text): the code spans they hold, and the identifiers they write in words ("##
Event Hooks" for the `event_hooks=` the code writes, "Test Client" for `app.test_client()`).
They are used two ways (ragcli/llm/offline/scoring.py):
- a sentence naming one scores higher (the `names_heading` answer feature, llm/offline/features.py);
- the first sentence under a heading that names one, when the sentence does not, is
  quoted after its heading (`titled`; llm/subject.py's `with_title`).
"""

from __future__ import annotations

import re

from ragcli.blocks.model import CodeBlock, Heading
from ragcli.llm.offline.questions import code_names, new_names, question_kind
from ragcli.llm.segment import Unit, units
from ragcli.llm.subject import CODE_SPAN, heading_name
from ragcli.models import RetrievedChunk

# A heading names an identifier in words when this many of its words, joined (snake_case
# or CamelCase), are a name the retrieved code writes. One word alone ("Abort", "Example")
# is as often a plain word: counted too, it lost names on four of the eight documentation
# sets of scripts/howto_benchmark.py (docs/dev-log/offline-backend.md).
JOINED_WORDS = (2, 3)
HEADING_WORD = re.compile(r"[A-Za-z]+")
CODE_IDENTIFIER = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def heading_names(query: str, chunks: list[RetrievedChunk]) -> frozenset[str]:
    """The names (code spans) the headings of `chunks` give that `query` does not hold;
    none unless `query` asks how to do something."""
    if question_kind(query) != "instruction":
        return frozenset()
    found = [units(chunk.content) for chunk in chunks]
    titles = [
        title
        for chunk, found_units in zip(chunks, found, strict=True)
        for title in (chunk.metadata.heading or "").split(" > ")
        + [u.block.title for u in found_units if isinstance(u.block, Heading)]
    ]
    written = _code_written(query, [u for found_units in found for u in found_units])
    return code_names(query, "\n".join(titles)) | _named_in_words(titles, written)


def _code_written(query: str, found: list[Unit]) -> frozenset[str]:
    """The names the units write as code (code spans, code blocks' identifiers) with a word
    `query` does not hold, lowercased as code_names gives them."""
    spans = [
        span
        for u in found
        for span in (
            CODE_IDENTIFIER.findall(u.block.text)
            if isinstance(u.block, CodeBlock)
            else CODE_SPAN.findall(u.text)
        )
    ]
    return new_names(query, spans)


def _named_in_words(titles: list[str], written: frozenset[str]) -> frozenset[str]:
    """The names of `written` that a title writes as words: "Set Cookie" is `set_cookie`
    (and `SetCookie`, lowercased `setcookie`)."""
    named: set[str] = set()
    for title in titles:
        words = [w.lower() for w in HEADING_WORD.findall(CODE_SPAN.sub(" ", title))]
        for count in JOINED_WORDS:
            for start in range(len(words) - count + 1):
                joined = words[start : start + count]
                named |= {"_".join(joined), "".join(joined)} & written
    return frozenset(named)


def titled(query: str, sentence: str, section: str, names: frozenset[str]) -> bool:
    """Whether `sentence`, the first under `section`, is quoted after it: the heading names
    one of `names` and the sentence does not. Under "## Select by Id with `.get()`", "…
    there's a shortcut for it:" leads to an include the answer cannot show, and names
    nothing without its heading. A heading that is a name alone is carried as the
    sentence's subject instead (llm/subject.py)."""
    if not names or heading_name(section) is not None:
        return False
    named = code_names(query, section) & names
    return bool(named) and not code_names(query, sentence) & named
