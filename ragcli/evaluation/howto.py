"""Questions over documentation labelled with what answers them (scripts/howto_benchmark.py,
scripts/fit_answers.py): does a text name the solution, or state the fact?

Two kinds, one YAML list (`kind:` defaults to `howto`, so older files stay valid):
- howto:   `names:` the function, parameter, class, option, macro or keyword that solves
           the problem; the text answers when it holds one of them as a name (`names_it`);
- factoid: `answers:` a value or short fact (a number, a default, a version); the text
           answers when it states one of them (`states_it`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml

PLAIN_WORD = re.compile(r"[a-z]+")
CODE_SPAN = re.compile(r"`[^`\n]*`")
KINDS = ("howto", "factoid")
Kind = Literal["howto", "factoid"]
# Emphasis and code marks around a stated value ("_two's complement wrapping_", "`100`")
# are how it is written, not what it says.
CODE_OR_EMPHASIS = re.compile(r"[*`]|(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])")
CURLY_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


@dataclass(frozen=True)
class HowTo:
    """One labelled question; `names` holds the names (how-to) or values (factoid) that
    answer it, any one of them."""

    question: str
    names: tuple[str, ...]
    kind: Kind = "howto"


def load_howtos(path: Path) -> list[HowTo]:
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(raw, list):
        raise ValueError(f"{path}: expected a list of questions")
    return [_question(entry, path, number) for number, entry in enumerate(raw, 1)]


def _question(entry: object, path: Path, number: int) -> HowTo:
    where = f"{path}: question {number}"
    if not isinstance(entry, dict) or not str(entry.get("question") or "").strip():
        raise ValueError(f"{where}: needs a `question:`")
    kind = entry.get("kind", "howto")
    if kind not in KINDS:
        raise ValueError(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}")
    key = "names" if kind == "howto" else "answers"
    expected = entry.get(key)
    if not isinstance(expected, list) or not expected:
        raise ValueError(f"{where}: a {kind} question needs a non-empty `{key}:` list")
    # Which questions are train and which test is scripts/data/split.yaml's, not the file's.
    return HowTo(entry["question"], tuple(str(e) for e in expected), kind)


def names_it(text: str, name: str) -> bool:
    """`text` holds `name` as a name. A plain word (`prompt`, `count`) counts only where
    it reads as code: in backticks, as `name=`, `name(`, or `.name`; otherwise prose such as
    "exit code" or "count the files" would pass."""
    escaped = re.escape(name)
    if not PLAIN_WORD.fullmatch(name):
        return re.search(rf"(?<!\w){escaped}(?!\w)", text) is not None
    # Code spans pair from the left: the text between one span and the next is prose.
    in_span = re.compile(rf"(?<!\w){escaped}(?!\w)")
    if any(in_span.search(span) for span in CODE_SPAN.findall(text)):
        return True
    return re.search(rf"(?<!\w){escaped}\s*[=(]|\.{escaped}(?!\w)", text) is not None


def names_any(text: str, howto: HowTo) -> bool:
    return any(names_it(text, name) for name in howto.names)


def _plain(text: str) -> str:
    return " ".join(CODE_OR_EMPHASIS.sub("", text.translate(CURLY_QUOTES)).split())


def states_it(text: str, value: str) -> bool:
    """`text` states `value`: case-sensitive, as whole words or numbers ("100" is not in
    "1000" nor in "1.100"), whatever the line breaks, emphasis or code marks around it."""
    escaped = re.escape(_plain(value))
    bounded = rf"(?<![A-Za-z0-9_])(?<![0-9]\.){escaped}(?![A-Za-z0-9_])(?!\.[0-9])"
    return re.search(bounded, _plain(text)) is not None


def answers_it(text: str, question: HowTo) -> bool:
    """`text` holds what answers `question`: one of its names, or one of its values."""
    if question.kind == "factoid":
        return any(states_it(text, value) for value in question.names)
    return names_any(text, question)
