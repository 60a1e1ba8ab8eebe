"""What a unit brings into an answer with it: the list items, rows or code a lead-in
introduces (in its chunk, or cut into the next one), and its section's code example."""

from __future__ import annotations

from typing import NamedTuple

from ragcli.llm.offline import questions
from ragcli.llm.offline.code_blocks import (
    DIAGRAM_LANGUAGES,
    OUTPUT_LANGUAGES,
    does_what_is_asked,
    is_reference,
    language,
    next_language,
    starts_mid_listing,
)
from ragcli.llm.offline.questions import question_kind
from ragcli.llm.segment import Unit, UnitKind, units
from ragcli.llm.subject import CODE_SPAN
from ragcli.models import RetrievedChunk
from ragcli.text.lead_ins import LEAD_IN_END

# A section's code example longer than this (a dozen lines) is a listing more than a call:
# it is left out (measured in
# docs/dev-log/offline-backend.md, "Which sentences answer (`ragcli/llm/answer_choice.py`)").
EXAMPLE_MAX_CHARS = 400


class Piece(NamedTuple):
    """A unit a lead-in brings: its text as quoted, and its kind."""

    text: str
    kind: UnitKind


def introduced(text: str, position: int) -> tuple[str, int]:
    """The list items, table rows or code block right after unit `position` of `text`
    (what a lead-in, LEAD_IN_END, introduces), one a line, and how many units that is."""
    pieces, taken = introduced_pieces(text, position)
    return "\n".join(p.text for p in pieces), taken


def introduced_pieces(text: str, position: int) -> tuple[list[Piece], int]:
    """What `introduced` quotes, piece by piece (an item's later sentences are units of
    their own, quoted on its line), and how many units that is."""
    found = units(text)
    following: list[Piece] = []
    taken = 0
    last: Unit | None = None
    for unit in found[position + 1 :]:
        if last is not None and last.kind == "item" and unit.block is last.block:
            following[-1] = Piece(f"{following[-1].text} {unit.text}", "item")
            taken += 1
            continue
        if unit.kind not in ("item", "row", "code") or (following and unit.kind == "code"):
            break
        if is_reference(unit) or language(unit) in DIAGRAM_LANGUAGES:
            break  # an include shows nothing; a diagram's source is no text to read
        last = unit
        following.append(Piece(unit.text, unit.kind))
        taken += 1
        if unit.kind == "code":
            break
    return following, taken


def reference_after(text: str, position: int) -> Piece | None:
    """The include block right after unit `position` of `text` ("code example from
    docs_src/app.py"), when there is one: what a lead-in announces but the documents hold
    only by name. Quoted after the lead-in, it tells the reader where the example is."""
    found = units(text)
    if position + 1 < len(found) and is_reference(found[position + 1]):
        return Piece(found[position + 1].text, "code")
    return None


def cut_off_code(chunk: RetrievedChunk, position: int) -> str:
    """The code block that unit `position` of `chunk`, a lead-in ending the chunk, introduces
    when the chunker cut it into the next chunk (ChunkMetadata.continues) and it is a call
    more than a listing (EXAMPLE_MAX_CHARS); else "". Quoted after the lead-in, so an answer
    does not end on "… like this:" with nothing after it; not scored, since what is
    retrieved and scored is the chunk's own text."""
    return "\n".join(p.text for p in cut_off_pieces(chunk, position))


def cut_off_pieces(chunk: RetrievedChunk, position: int) -> list[Piece]:
    """What `cut_off_code` quotes, piece by piece."""
    follows = chunk.metadata.continues
    if not follows or len(follows) > EXAMPLE_MAX_CHARS:
        return []
    found = units(chunk.content)
    if position != len(found) - 1 or not LEAD_IN_END.search(found[position].text):
        return []
    return introduced_pieces(follows, -1)[0]  # an include or a diagram shows nothing


def section_example(text: str, position: int, names: str = "") -> tuple[str, int] | None:
    """The code example of the section unit `position` of `text` sits in, with its unit
    index: of the section's code blocks (since its heading, up to the next), the first after
    the unit that shows a name the unit quotes (a code span of `names`), else the first
    after it, else the last before it. A terminal transcript (```console) shows a run's
    output, and an include block shows nothing, so neither is an example."""
    found = units(text)

    def example(i: int) -> bool:
        if found[i].kind != "code" or is_reference(found[i]) or starts_mid_listing(found[i]):
            return False
        return language(found[i]) not in OUTPUT_LANGUAGES | DIAGRAM_LANGUAGES

    after: list[int] = []
    for i in range(position + 1, len(found)):
        if found[i].kind == "heading":
            break
        if example(i):
            after.append(i)
    before: list[int] = []
    for i in range(position - 1, -1, -1):
        if found[i].kind == "heading":
            break
        if example(i):
            before.append(i)
    wanted = [n for n in CODE_SPAN.findall(names) if len(n) > 2]
    showing = [i for i in after + before if any(n in found[i].text for n in wanted)]
    ranked = showing or after or before
    return (found[ranked[0]].text, ranked[0]) if ranked else None


def shows_not_writes(text: str, position: int, sentence: str, query: str) -> bool:
    """Whether `sentence`, unit `position` of `text` and a lead-in, brings a run's output
    and names nothing itself ("When you run the program, you'll see something like
    this:"): it shows what happens, not what to write. For a how-to question, a
    transcript whose command does what the question asks ("$ pip install sqlmodel" for
    "How do I install SQLModel?") is what to write. (A lead-in to a diagram is no
    candidate at all.)"""
    found = units(text)
    if next_language(found, position) not in OUTPUT_LANGUAGES:
        return False
    if questions.IDENTIFIER.search(sentence):
        return False
    if question_kind(query) != "instruction":
        return True
    return not does_what_is_asked(found[position + 1].text, query)
