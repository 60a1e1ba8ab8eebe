"""How-to questions labelled with the names that answer them (scripts/howto_benchmark.py,
scripts/fit_answers.py): does a text name the solution?"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

PLAIN_WORD = re.compile(r"[a-z]+")


@dataclass(frozen=True)
class HowTo:
    question: str
    names: tuple[str, ...]  # any one of them answers it
    held_out: bool  # not looked at while tuning


def load_howtos(path: Path) -> list[HowTo]:
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [HowTo(q["question"], tuple(q["names"]), bool(q.get("held_out"))) for q in raw]


def names_it(text: str, name: str) -> bool:
    """`text` holds `name` as a name. A plain word (`prompt`, `count`) counts only where
    it reads as code: in backticks, as `name=`, `name(`, or `.name`; otherwise prose such as
    "exit code" or "count the files" would pass."""
    escaped = re.escape(name)
    if not PLAIN_WORD.fullmatch(name):
        return re.search(rf"(?<!\w){escaped}(?!\w)", text) is not None
    as_code = (
        rf"`[^`\n]*(?<!\w){escaped}(?!\w)[^`\n]*`"
        rf"|(?<!\w){escaped}\s*[=(]|\.{escaped}(?!\w)"
    )
    return re.search(as_code, text) is not None


def names_any(text: str, howto: HowTo) -> bool:
    return any(names_it(text, name) for name in howto.names)
