"""The first stage of the offline answer: the units of the retrieved chunks that may answer
(sentences, list items, rows, code), and which of them are worth embedding and scoring."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ragcli.blocks.model import Heading
from ragcli.llm.offline import questions, rules
from ragcli.llm.offline.code_blocks import (
    DIAGRAM_LANGUAGES,
    OUTPUT_LANGUAGES,
    does_what_is_asked,
    is_reference,
    language,
    starts_mid_listing,
)
from ragcli.llm.offline.evidence import Evidence
from ragcli.llm.offline.questions import question_kind
from ragcli.llm.segment import UnitKind, units
from ragcli.llm.table_rows import named_rows
from ragcli.llm.text import WORD
from ragcli.models import RetrievedChunk, heading_line

# A documentation site's template tag on a line of its own: `{% include "x.md" %}`,
# `{{ snippet }}`. The reader of an answer cannot use it. (Include directives are include
# blocks already: ragcli/blocks/includes.py.)
TEMPLATE_DIRECTIVE = re.compile(r"^\s*\{([%{]).*[%}]\}\s*$", re.S)
# Embedding the sentences is most of a warm offline answer's time, so only this many are
# scored: those sharing the most (idf-weighted) terms with the question, which nearly
# always hold the sentence the full scoring puts first (docs/dev-log/offline-backend.md).
SCORED_SENTENCES = 16
# For a how-to question, the FOLLOWING sentences after each of the FOLLOWED most covering
# ones in their passage are scored too when they name something: documentation states the
# problem in the question's words, then names the fix in its own ("Nevertheless, we can
# easily fix. … To do that, we can import `col()`").
FOLLOWED = 8
FOLLOWING = 2


class Found(NamedTuple):
    """A candidate sentence (or list item, table row) before it is embedded."""

    text: str
    chunk_number: int  # 1-based, as cited
    position: int  # its unit's index in the chunk
    section: str
    kind: UnitKind = "sentence"
    opens_section: bool = False  # the first sentence under its heading


@dataclass
class Candidate:
    text: str
    chunk_number: int  # 1-based, as cited
    position: int
    vector: np.ndarray
    section: str = ""  # the heading it sits under, in its chunk or the chunk's own
    kind: UnitKind = "sentence"
    opens_section: bool = False
    # Quoted after its heading in bold: the first sentence under a heading that names the
    # solution of a how-to question ("Select by Id with `.get()`") and that does not.
    titled: bool = False


def found_units(chunks: list[RetrievedChunk], query: str = "") -> list[Found]:
    """The units of `chunks` that may answer; for a how-to question a terminal
    transcript is none (it shows what a run prints, not what to write) unless its
    command does what the question asks (`$ pip install "fastapi[standard]"` under
    "## Installation" for "How do I install FastAPI?")."""
    howto = bool(query) and question_kind(query) == "instruction"
    found: list[Found] = []
    for number, chunk in enumerate(chunks, start=1):
        # A document's title says little about which part of it answers; a section's
        # heading does.
        heading = chunk.metadata.heading or ""
        section = heading.rsplit(" > ", 1)[-1] if " > " in heading else ""
        path_line = heading_line(heading) if heading else ""
        # The first sentence under a heading of the text's own (not the path line a
        # chunk cut from the middle of a section begins with).
        own_heading = False
        chunk_units = units(chunk.content)
        for position, unit in enumerate(chunk_units):
            sentence = unit.text
            if isinstance(unit.block, Heading):
                own_heading = not (position == 0 and path_line.startswith(sentence))
                if not own_heading:
                    continue  # the path the chunker put first (perhaps cut): as above
                # A heading is not an answer, but it says what follows is about.
                section = "" if unit.block.level == 1 else unit.block.title
                continue
            first = unit.opens_section and own_heading
            if len(WORD.findall(sentence)) < 3:
                continue  # fragments are not answers
            if sentence.rstrip().endswith("?"):
                continue  # a question in the source restates, it does not answer
            if (
                is_reference(unit)
                or language(unit) in DIAGRAM_LANGUAGES
                or TEMPLATE_DIRECTIVE.match(sentence)
                or starts_mid_listing(unit)
            ):
                continue  # an include, a chart's source, a site generator's tag, a cut
            if (
                howto
                and rules.on("transcripts")
                and language(unit) in OUTPUT_LANGUAGES
                and not does_what_is_asked(sentence, query)
            ):
                continue
            found.append(Found(sentence, number, position, section, unit.kind, first))
    return found


def embedded(evidence: Evidence, found: list[Found]) -> list[Candidate]:
    vectors = evidence.vectors([f.text for f in found])
    return [
        Candidate(f.text, f.chunk_number, f.position, v, f.section, f.kind, f.opens_section)
        for f, v in zip(found, vectors, strict=False)
    ]


def most_promising(found: list[Found], coverage: list[float]) -> list[int]:
    """The positions in `found` of the SCORED_SENTENCES covering most of the question's
    terms (ties go to the better-ranked chunk, then the earlier sentence), in order."""
    ranked = sorted(range(len(found)), key=lambda i: (-coverage[i], found[i][1], found[i][2]))
    return sorted(ranked[:SCORED_SENTENCES])


def naming_followers(found: list[Found], coverage: list[float], promising: list[int]) -> set[int]:
    """The positions in `found` of the FOLLOWING sentences after each of the FOLLOWED
    most covering `promising` ones, in the same passage, that name something."""
    best = sorted(promising, key=lambda i: (-coverage[i], i))[:FOLLOWED]
    return {
        j
        for i in best
        for j in range(i + 1, min(i + 1 + FOLLOWING, len(found)))
        if found[j].chunk_number == found[i].chunk_number
        and found[j].kind == "sentence"
        and questions.IDENTIFIER.search(found[j].text)
    }


def named_row_positions(query: str, found: list[Found]) -> set[int]:
    """The positions in `found` of the table rows the question names."""
    rows = [i for i, f in enumerate(found) if f.kind == "row"]
    return {rows[j] for j in named_rows(query, [found[i].text for i in rows])}
