"""What a code unit of a chunk shows: its language, whether it is an include or a listing
cut mid-way, a terminal transcript's commands."""

from __future__ import annotations

import re

from ragcli.blocks.model import CodeBlock
from ragcli.llm.segment import Unit
from ragcli.terms import terms

# A terminal transcript shows a run's output, not how to write the solution.
OUTPUT_LANGUAGES = frozenset({"console", "output", "text", "txt"})
# A transcript's command line: what its reader types after the shell's prompt.
PROMPTED = re.compile(r"^[ \t]*[$%❯][ \t]+(.+)$", re.M)
# A diagram's source draws a picture; it shows nothing to write.
DIAGRAM_LANGUAGES = frozenset({"mermaid", "dot", "graphviz", "plantuml"})


def is_reference(unit: Unit) -> bool:
    """An include block: it names a file or an API page, and shows nothing."""
    return isinstance(unit.block, CodeBlock) and unit.block.is_reference


def starts_mid_listing(unit: Unit) -> bool:
    """A code block whose first line is indented deeper than a later line: the chunker cut
    a long listing there, and the part begins inside a function or a string. It reads as
    nothing on its own."""
    if not isinstance(unit.block, CodeBlock):
        return False
    lines = [line for line in unit.block.text.split("\n") if line.strip()]
    if not lines:
        return False
    depth = len(lines[0]) - len(lines[0].lstrip())
    return any(len(line) - len(line.lstrip()) < depth for line in lines[1:])


def language(unit: Unit) -> str:
    """A code block's language, lower-cased; "" for any other unit."""
    return unit.block.language.lower() if isinstance(unit.block, CodeBlock) else ""


def next_language(found: list[Unit], position: int) -> str:
    """The language of the code block right after unit `position` (what a lead-in brings);
    "" when no code block follows."""
    return language(found[position + 1]) if position + 1 < len(found) else ""


def commands(transcript: str) -> list[list[str]]:
    """The words of each command line of `transcript` (after the shell's prompt)."""
    return [line.split() for line in PROMPTED.findall(transcript)]


def does_what_is_asked(transcript: str, query: str) -> bool:
    """Whether a command of `transcript` holds a term of the question in its words. What
    a command does is in its words, not its flags: "$ python main.py --help" shows a help
    text, it does not answer a question about one."""
    words = [w for command in commands(transcript) for w in command if not w.startswith("-")]
    return bool(set(terms(" ".join(words))) & set(terms(query)))


def what_it_shows(brought: str) -> str:
    """What a lead-in brings, to tell two pages' copies of it apart from different code:
    a transcript's commands (its output may differ: "Successfully installed sqlmodel" and
    "… sqlmodel pydantic sqlalchemy"), else its text, spaces aside."""
    found = commands(brought)
    return "\n".join(" ".join(c) for c in found) or " ".join(brought.split())
