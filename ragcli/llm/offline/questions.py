"""What a question asks for and what a text names, for the offline backend's answer
features (ragcli/llm/offline/features.py): the kind of answer a question asks for from its
question words (`question_kind`), whether a sentence holds that kind (`asked_for`), the
identifiers a text names that the question does not hold (`new_identifiers`,
`code_names`), and how much of a sentence the question already says (`novelty`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal, NamedTuple

from ragcli.llm.subject import CODE_SPAN
from ragcli.terms import stems, terms

QuestionKind = Literal["instruction", "number", "date", "name", "other"]

# The type of answer a question asks for, from its question words (English question forms).
# An instruction may follow a clause ("Where are configs kept, and how do I get …?") or
# the sentence that sets out the problem ("My program panicked. How do I see …?").
# "How can <anything>" and "How does my <thing>" ask how to make something do a thing;
# "Can httpx retry …?" asks what a named tool can do, answered by the feature that does it,
# where "Can I get a refund?" asks leave (a yes or no, not an instruction).
INSTRUCTION = re.compile(
    r"(?:^|[,;]\s*(?:and|or|but)?\s*|[.!?:]\s+|^\s*(?:and|so|then|also)\s+)"
    r"(?:how\s+(?:do|can|could|should|would|may|must)\s+(?:i|we|you|one)\b|how\s+to\b"
    r"|how\s+(?:can|could)\s+\w|how\s+(?:do|does)\s+(?:my|our|your)\s"
    r"|can\s+(?!(?:i|we|you|one|my|our|your)\b)(?:the\s+)?\w+\s+(?!be\b)\w+|how\s*\?\s*$"
    r"|what\s+(?:do|should|can|could|would)\s+(?:i|we|you|one)\s+use\b"
    r"|what(?:'s|\s+is|\s+are)\s+the\s+(?:command|syntax|way|steps|option|setting|flag)"
    r"|(?:which|what)\s+(?:command|option|setting|flag|function|method|class|parameter|argument)s?\b"
    r"|is\s+there\s+(?:a|an|any)\s+(?:way|option|setting|flag|command|tool|library|package)\b)",
    re.I,
)
NUMBER = re.compile(
    r"\bhow\s+(?:many|much|long|far|old|big|large|often|tall|high|deep|wide|fast)\b"
    r"|\bwhat\s+(?:percentage|percent|number|proportion|amount|size|length|fraction)\b"
    r"|\b(?:costs?|prices?|fees?|charges?)\b",
    re.I,
)
DATE = re.compile(
    r"^\s*when\b|\b(?:what|which|in\s+what)\s+(?:year|date|day|month|century|decade|era)\b", re.I
)
NAME = re.compile(r"^\s*(?:who|whom|whose|where)\b|\bwhat\s+(?:is\s+the\s+)?name\b", re.I)

# What each type looks like in a sentence.
DIGITS = re.compile(r"\d")
NUMBER_WORD = re.compile(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
    r"forty|fifty|hundred|thousand|million|billion|dozen|half|quarter)\b",
    re.I,
)
DATE_WORDS = re.compile(
    r"\b(?:1\d{3}|20\d{2}|\d{1,2}(?:st|nd|rd|th)|century|centuries|january|february|march|"
    r"april|may|june|july|august|september|october|november|december|bc|ad|bce|ce)\b",
    re.I,
)
# Code and identifiers: `code`, --flags, snake_case, dotted.names, CamelCase, calls(), paths.
IDENTIFIER = re.compile(
    r"`[^`]+`|(?<![\w-])--?[a-z][\w-]*|\b\w+_\w+\b|\b\w+\.\w+\(|\b[a-z]+[A-Z]\w*"
    r"|\b[A-Z][a-z]+[A-Z]\w*|\w\(\)|(?:^|\s)[~.]?/\w[\w./-]*|^\s*```|^\s*\$\s"
)
# The words of an identifier: `add_typer` → add, typer; `GZipMiddleware` → g, zip, middleware.
IDENTIFIER_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
# A code span's name: `is_eager=True` → is_eager, `typer.launch()` → typer.launch.
SPAN_NAME = re.compile(r"[^\s=(\[<:,]+")
CAPITALISED = re.compile(r"\b[A-Z][a-z]+\b")
# A code span that calls something: `typer.launch()`, `Field(alias='foo')`.
CALL_SPAN = re.compile(r"`[^`\n]*\w\([^`\n]*\)`")
# A question about a default ("What is the default timeout?", "… by default?") asks for
# the value a sentence states as the default: "The default is `100`.", "Defaults to `9`.",
# "a total 300 seconds (5min) timeout by default".
ASKS_DEFAULT = re.compile(r"\bdefault\b", re.I)
STATES_DEFAULT = re.compile(r"\bdefault(?:s|ed)?\b", re.I)
VALUE = re.compile(r"\d|`[^`\n]+`|\b(?:True|False|None)\b")
ITEM_OR_CODE = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)]|```|~~~)\s*")


def question_kind(question: str) -> QuestionKind:
    if INSTRUCTION.search(question):
        return "instruction"
    if DATE.search(question):
        return "date"
    if NUMBER.search(question):
        return "number"
    if NAME.search(question):
        return "name"
    return "other"


def states_default(sentence: str) -> bool:
    """`sentence` states a default with its value (a code block's comment does not)."""
    if sentence.lstrip().startswith(("```", "~~~")):
        return False
    return bool(STATES_DEFAULT.search(sentence) and VALUE.search(sentence))


def asked_for(kind: QuestionKind, question: str, sentence: str, introduces: bool) -> float:
    """1.0 when `sentence` holds what a question of this kind asks for."""
    if kind != "instruction" and ASKS_DEFAULT.search(question) and states_default(sentence):
        return 1.0
    if kind == "instruction":
        return float(introduces or bool(IDENTIFIER.search(sentence)))
    if kind == "number":
        return float(bool(DIGITS.search(sentence) or NUMBER_WORD.search(sentence)))
    if kind == "date":
        return float(bool(DATE_WORDS.search(sentence)))
    if kind == "name":
        asked = {w.lower() for w in CAPITALISED.findall(question)}
        # A name the question does not already hold, past the sentence's first word.
        names = [w for w in CAPITALISED.findall(sentence[1:]) if w.lower() not in asked]
        return float(bool(names))
    return 0.0


# A name's part that is one of the question's words (of four letters or more) with at most
# this many letters more restates the question: `println!` for "prints", `filename` for
# "the file's name". Four would make `callback` restate "call".
RESTATED_TAIL = 3
# An agent noun names the thing that does what is asked: `csv.reader` answers "How do I
# read a CSV file?", `ArgumentParser` "How do I parse arguments?".
AGENT_TAILS = ("er", "r")


def is_new_part(part: str, asked: set[str]) -> bool:
    """Whether `part` (stemmed) of a name is a word the question does not hold."""
    if part in asked:
        return False
    return not any(
        len(word) >= 4
        and part.startswith(word)
        and len(part) - len(word) <= RESTATED_TAIL
        and part[len(word) :] not in AGENT_TAILS
        for word in asked
    )


class NewName(NamedTuple):
    """An identifier with a word the question does not hold."""

    offset: int  # where it starts in the text
    parts: list[str]  # its words, stemmed
    phrase: str  # its words as a phrase to embed: `setNotFoundHandler` → "set not found handler"


def new_name_spans(question: str, text: str) -> list[NewName]:
    """Each identifier in `text` with a word the question does not hold, in order."""
    asked = set(stems(question))
    found = []
    for match in IDENTIFIER.finditer(text):
        name = match.group().strip().strip("`").strip()
        if name.startswith("```"):
            continue
        words = [p.lower() for p in IDENTIFIER_PART.findall(name)]
        parts = stems(" ".join(words))
        if any(is_new_part(part, asked) for part in parts):
            found.append(NewName(match.start(), parts, " ".join(words)))
    return found


def new_identifiers(question: str, text: str) -> bool:
    """`text` names an identifier (a code span, a --flag, snake_case, CamelCase, a call)
    with a word the question does not hold: `app.add_typer()` answers "How do I combine
    Typer apps?", `typer.Typer()` only restates it."""
    return bool(new_name_spans(question, text))


def code_names(question: str, text: str) -> frozenset[str]:
    """The names `text` writes in code spans with a word the question does not hold,
    lowercased, each also by its last dotted part (`typer.launch` is also `launch`,
    `thread::spawn` also `spawn`)."""
    return new_names(question, CODE_SPAN.findall(text))


def new_names(question: str, spans: Iterable[str]) -> frozenset[str]:
    """The names these code spans' contents (or code's identifiers) give with a word the
    question does not hold, as code_names gives them."""
    asked = set(stems(question))
    found: set[str] = set()
    for span in spans:
        match = SPAN_NAME.match(span.strip().replace("::", "."))  # Rust paths as dotted
        name = match.group().strip(".").lower() if match else ""
        if len(name) < 2:
            continue
        parts = IDENTIFIER_PART.findall(name)
        if any(is_new_part(part, asked) for part in stems(" ".join(parts))):
            found |= {name, name.rsplit(".", 1)[-1]}
    return frozenset(found)


def novelty(question: str, sentence: str) -> float:
    """Share of the sentence's distinct content terms that the question does not hold."""
    own = set(terms(sentence))
    if not own:
        return 0.0
    return len(own - set(terms(question))) / len(own)
