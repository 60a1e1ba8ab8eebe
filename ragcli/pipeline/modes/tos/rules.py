"""The rules file a support team curates for tos mode (`tos.rules_file`): when a question
uses one of a rule's words or phrases, the sections the rule names are lifted in the
documents stage.

    rules:
      - name: bots
        match: ["bot", "automated", "script"]   # words or phrases of the question
        boost: "Account Requirements"            # a section heading, a heading path, a file

Words match as the index reads them: case and word endings aside ("bots" matches "bot",
"load-tests" matches "load test"); a phrase matches its words in a row. A boost naming a
file (it has a suffix or a slash: `refund_policy.md`, `policies/terms.md`) lifts that
file's chunks; any other names a heading: a section whose heading, numbering aside
("2. Acceptable use"), is that text, or whose heading path ends with it
("Privacy Policy > Security")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ragcli.errors import ConfigError
from ragcli.terms import index_words, stemmer

# "2.", "2.1", "A.", "(b)", "IV." before a heading's text.
_NUMBERING = re.compile(r"^\s*(?:\(?[0-9]+(?:\.[0-9]+)*[.)]?|\(?[A-Za-z][.)]|[IVXLC]+\.)\s+")
_FILE_SUFFIX = re.compile(r"\.[A-Za-z0-9]{1,5}$")


class Rule(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    match: list[str] = Field(min_length=1)
    boost: list[str] = Field(min_length=1)

    @field_validator("match", "boost", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("match", "boost")
    @classmethod
    def _not_blank(cls, value: list[str]) -> list[str]:
        if any(not item.strip() for item in value):
            raise ValueError("an entry is empty")
        return [item.strip() for item in value]


class RulesFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rules: list[Rule]


@dataclass(frozen=True)
class RuleHit:
    rule: Rule
    matched: str  # the word or phrase of the rule the question used


def load_rules(path: str | Path) -> list[Rule]:
    """The rules of `path`; anything wrong is one ConfigError naming the file and the rule."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"tos.rules_file {path}: cannot read ({exc.strerror or exc})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark else ""
        raise ConfigError(f"tos.rules_file {path}: not valid YAML{where}") from None
    try:
        rules = RulesFile.model_validate(data).rules
    except ValidationError as exc:
        error = exc.errors()[0]
        place = _place(error["loc"], data)
        message = "unknown key" if error["type"] == "extra_forbidden" else error["msg"]
        raise ConfigError(f"tos.rules_file {path}: {place}: {message}") from None
    names = [rule.name for rule in rules]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ConfigError(f"tos.rules_file {path}: rule name {repeated[0]!r} is used twice")
    return rules


def _place(loc: tuple[Any, ...], data: Any) -> str:
    """`rules[2] (bots).match`, or the top level, for an error message."""
    if not loc:
        return "the file (expected a mapping with a `rules:` list)"
    parts = [str(loc[0])]
    if len(loc) > 1 and isinstance(loc[1], int):
        parts[0] += f"[{loc[1] + 1}]"
        try:
            name = data["rules"][loc[1]].get("name")
        except (AttributeError, IndexError, KeyError, TypeError):
            name = None
        if name:
            parts[0] += f" ({name})"
        parts += [str(part) for part in loc[2:]]
    else:
        parts += [str(part) for part in loc[1:]]
    return ".".join(parts)


def _stems(text: str) -> list[str]:
    return stemmer().stemWords(index_words(text))


def matching_rules(rules: list[Rule], question: str) -> list[RuleHit]:
    """The rules the question matches, each with the first of its phrases found."""
    words = _stems(question)
    hits = []
    for rule in rules:
        for phrase in rule.match:
            wanted = _stems(phrase)
            if wanted and _contains(words, wanted):
                hits.append(RuleHit(rule, phrase))
                break
    return hits


def _contains(words: list[str], run: list[str]) -> bool:
    width = len(run)
    return any(words[i : i + width] == run for i in range(len(words) - width + 1))


def _normal(text: str) -> str:
    return " ".join(_NUMBERING.sub("", text).casefold().split())


def names_file(target: str) -> bool:
    return "/" in target or bool(_FILE_SUFFIX.search(target))


def boosts(target: str, source_file: str, heading: str | None) -> bool:
    """Whether a chunk in `source_file` under `heading` is in the section `target` names."""
    if names_file(target):
        wanted = PurePosixPath(target.replace("\\", "/").strip("/")).parts
        have = PurePosixPath(source_file.replace("\\", "/")).parts
        return have[-len(wanted) :] == wanted
    if not heading:
        return False
    path = [_normal(part) for part in heading.split(" > ")]
    wanted_path = [_normal(part) for part in target.split(" > ")]
    return path[-len(wanted_path) :] == wanted_path or (
        len(wanted_path) == 1 and wanted_path[0] in path
    )
