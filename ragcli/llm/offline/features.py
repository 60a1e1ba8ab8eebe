"""The offline answer's features: what the answer score of one candidate unit is a
function of, as a named record (AnswerFeatures). The scorer (ragcli/llm/offline/model.py)
weighs them with the weights scripts/fit_answers.py fits.

A sentence can be relevant to a question by restating it ("CORS refers to the situations
when a frontend ... calls a backend") or by answering it ("use `CORSMiddleware` with
`allow_origins=[...]`"). Relevance alone prefers the restatement, which shares the most
words with the question; the other features say what the question asks for.
"""

from __future__ import annotations

import re
from dataclasses import astuple, dataclass, fields

from ragcli.llm.offline.questions import (
    CALL_SPAN,
    QuestionKind,
    asked_for,
    code_names,
    new_name_spans,
    novelty,
)
from ragcli.terms import stems, terms


@dataclass(frozen=True)
class AnswerFeatures:
    """One candidate unit as the scorer sees it. Each is 0 where it does not apply.

    - relevance:   the calibrated relevance of the unit (ragcli/llm/calibration.py);
    - context:     the relevance of the unit before it in its chunk: an answer often follows
                   the sentence that names its topic ("... prints a setup token. The token
                   is valid for 15 minutes.");
    - section:     the relevance of the heading it sits under (1 for a table row the question
                   names): the steps of "## Restoring from a backup" answer "how do I
                   restore a backup?" though no step names it;
    - explained:   how-to: the best relevance of the next two sentences of its passage
                   ("Mark it with `is_eager=True`. That tells Typer to process it first.");
    - novelty:     the share of its content terms the question does not hold;
    - asked_for:   it holds what the question's kind asks for: a number for "how many", a
                   date for "when", a name for "who", code or an identifier for "how do I",
                   a value stated as the default for a question about one;
    - lead_in:     it ends with a colon and introduces a list or code, quoted with it;
    - rank:        1 / the retrieval rank of its chunk;
    - names_new:   how-to: as quoted (with its heading, and what it introduces) it names an
                   identifier with a word the question does not hold: the solution, not
                   only the problem;
    - names_heading: how-to: it names (in a code span) a name a heading of the retrieved
                   passages names ("### Fix with `is_eager`");
    - names_call:  how-to: it writes a call in a code span (`typer.launch()`);
    - name_first:  how-to: how early the first new name comes in it (1 at its start):
                   "`hide_input` hides …" introduces the name, a sentence ending on it
                   mentions it in passing;
    - other_names: how-to: the new names beyond the first (0, 1/3, 2/3, 1 for three or
                   more): a sentence listing settings rather than naming one;
    - name_of_question: how-to: of the new names it writes, the largest share of one
                   name's words the question holds (`allow_redirects` for "stop following
                   redirects": 1/2): the setting asked for, not a neighbour of it;
    - name_meaning: how-to: of the new names it writes, the best cosine between the
                   question and a name's words (`setNotFoundHandler` as "set not found
                   handler" for "routes that do not exist"): the same test by meaning, for
                   a question that paraphrases the name;
    - value_stated: not how-to: a value (a number, a code span, True/False/None) within
                   VALUE_WINDOW words of one of the question's terms: the sentence that
                   states the value rather than one around it;
    - code_unit, output_unit, item_unit: how-to: the unit is a code block, a terminal
                   transcript or a run's output, a list item or table row.
    """

    relevance: float
    context: float
    section: float
    explained: float
    novelty: float
    asked_for: float
    lead_in: float
    rank: float
    names_new: float
    names_heading: float
    names_call: float
    name_first: float
    other_names: float
    name_of_question: float
    name_meaning: float
    value_stated: float
    code_unit: float
    output_unit: float
    item_unit: float

    def vector(self) -> tuple[float, ...]:
        return astuple(self)


FEATURES: tuple[str, ...] = tuple(f.name for f in fields(AnswerFeatures))
# The features by what they measure. Features of one group are correlated (a sentence that
# names a new identifier often calls it too), so one dropped alone is made up for by the
# others: scripts/ablate_answers.py drops a group at a time.
FEATURE_GROUPS: dict[str, tuple[str, ...]] = {
    "relevance": ("relevance",),
    "neighbours": ("context", "section", "explained"),
    "restates": ("novelty",),
    "asked_for": ("asked_for", "value_stated"),
    "form": ("lead_in", "code_unit", "output_unit", "item_unit"),
    "rank": ("rank",),
    "names": (
        "names_new",
        "names_heading",
        "names_call",
        "name_first",
        "other_names",
        "name_of_question",
        "name_meaning",
    ),
}
# A value this many words from a question's term is stated about it (the window of a clause).
VALUE_WINDOW = 8
VALUE_TOKEN = re.compile(r"`[^`\n]+`|\d[\d,.]*\w*|\b(?:True|False|None)\b")
FENCE_LANGUAGE = re.compile(r"^\s*(?:```|~~~)\s*([\w+-]*)")
# A code block in one of these shows what a run prints, not what to write.
OUTPUT_LANGUAGES = frozenset({"console", "output", "text", "txt", "pycon", "shell-session"})


@dataclass(frozen=True)
class UnitContext:
    """What the scoring stage knows of a unit beyond its text."""

    kind: str  # segment.py's UnitKind
    relevance: float
    context: float
    section: float
    explained: float
    rank: int
    introduces: bool
    quoted: str  # as the answer quotes it (with a heading it carries)
    brings: str  # the list or code it introduces
    heading_names: frozenset[str]
    name_meaning: float = 0.0  # how-to: the best cosine of the question and a new name's words


def answer_features(
    question: str, kind: QuestionKind, text: str, unit: UnitContext
) -> AnswerFeatures:
    howto = kind == "instruction"
    quoted = unit.quoted or text
    shown = f"{quoted}\n{unit.brings}"
    named = new_name_spans(question, shown) if howto else []
    asked = set(stems(question))
    fence = FENCE_LANGUAGE.match(text) if unit.kind == "code" else None
    output = fence is not None and fence.group(1).lower() in OUTPUT_LANGUAGES
    return AnswerFeatures(
        relevance=unit.relevance,
        context=unit.context,
        section=unit.section,
        explained=unit.explained if howto else 0.0,
        novelty=novelty(question, text),
        asked_for=asked_for(kind, question, quoted, unit.introduces),
        lead_in=float(unit.introduces),
        rank=1.0 / max(1, unit.rank),
        names_new=float(bool(named)),
        names_heading=float(
            howto
            and bool(unit.heading_names)
            and bool(code_names(question, shown) & unit.heading_names)
        ),
        names_call=float(howto and bool(CALL_SPAN.search(quoted))),
        name_first=(1.0 - named[0].offset / max(1, len(shown))) if named else 0.0,
        other_names=min(len(named) - 1, 3) / 3 if named else 0.0,
        name_of_question=max(
            (sum(p in asked for p in n.parts) / len(n.parts) for n in named if n.parts),
            default=0.0,
        ),
        name_meaning=unit.name_meaning if howto else 0.0,
        value_stated=float(not howto and value_near_term(question, quoted)),
        code_unit=float(howto and unit.kind == "code" and not output),
        output_unit=float(howto and output),
        item_unit=float(howto and unit.kind in ("item", "row")),
    )


def name_phrases(question: str, text: str) -> list[str]:
    """The words of each identifier in `text` with a word the question does not hold, as a
    phrase to embed."""
    return [name.phrase for name in new_name_spans(question, text)]


def value_near_term(question: str, text: str) -> bool:
    asked = set(terms(question))
    if not asked:
        return False
    words = list(re.finditer(r"`[^`\n]+`|\S+", text))
    near = [i for i, w in enumerate(words) if set(terms(w.group())) & asked]
    values = [i for i, w in enumerate(words) if VALUE_TOKEN.search(w.group())]
    return any(abs(v - t) <= VALUE_WINDOW for v in values for t in near if v != t)
