"""The two-turn conversations of issue 72 (tests/data/followup_focus.yaml): a follow-up that
keeps or replaces the previous question's focus, asked alone and as a turn of its
conversation, scored by what a user sees: the section that answers it among the first
three sources, and the name or value in the answer (scripts/followup_benchmark.py).

Which conversations are held out was fixed before anything was measured, by a rule
stratified by kind (a third of each kind held out, as the issue asks a third of each kind):
within a kind, the conversations are ordered by sha256(f"{SEED}:{first} / {follow-up}");
every third from the first is held out (`test`), the others are dealt over FOLDS folds in
that order (`train`)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from ragcli.evaluation.doc_sets import ROOT, shared_eval

if TYPE_CHECKING:
    from ragcli.pipeline.results import AskResult

SET_FILE = ROOT / "tests" / "data" / "followup_focus.yaml"
SEED = 72
FOLDS = 3
KINDS = ("own", "none", "pronoun")
TOP = 3  # the answering section counts among the first three sources


def corpus_root(name: str) -> Path:
    """Where a corpus of the set lives: the sample corpus, or a site under ../shared/eval."""
    return {
        "sample": ROOT / "sample_corpus",
        "typer": shared_eval() / "typer-docs",
        "httpx": shared_eval() / "docs" / "httpx",
    }[name]


@dataclass(frozen=True)
class FollowUp:
    corpus: str
    kind: str
    first: str
    question: str
    source: str
    sections: tuple[str, ...]
    expect: tuple[str, ...]

    @property
    def key(self) -> str:
        """What the split draws on: both turns."""
        return f"{self.first} / {self.question}"


def load(path: Path = SET_FILE) -> list[FollowUp]:
    found = []
    for conv in yaml.safe_load(path.read_text(encoding="utf-8"))["conversations"]:
        first, second = conv["turns"]
        sections = second["section"]
        found.append(
            FollowUp(
                corpus=conv["corpus"],
                kind=conv["kind"],
                first=first["ask"],
                question=second["ask"],
                source=second["source"],
                sections=tuple([sections] if isinstance(sections, str) else sections),
                expect=tuple(second["expect"]),
            )
        )
    return found


def split(follow_ups: list[FollowUp]) -> dict[str, tuple[str, int]]:
    """Each conversation's part and train fold (-1 when held out), by its key."""
    parts: dict[str, tuple[str, int]] = {}
    for kind in dict.fromkeys(f.kind for f in follow_ups):
        ordered = sorted(
            (f.key for f in follow_ups if f.kind == kind),
            key=lambda key: hashlib.sha256(f"{SEED}:{key}".encode()).hexdigest(),
        )
        held_out, train = ordered[::3], [k for i, k in enumerate(ordered) if i % 3]
        parts |= {key: ("test", -1) for key in held_out}
        parts |= {key: ("train", i % FOLDS) for i, key in enumerate(train)}
    return parts


def leaf(heading: str | None) -> str:
    """The last part of a heading path ("Driftwood Refund Policy > Add-ons" -> "Add-ons")."""
    return (heading or "").split(" > ")[-1].strip()


def finds_section(result: AskResult, follow_up: FollowUp, root: Path) -> bool:
    """The answering section is one of the first TOP sources."""
    for chunk in result.sources[:TOP]:
        where = Path(chunk.metadata.source_file).resolve()
        if not where.is_relative_to(root.resolve()):
            continue
        if where.relative_to(root.resolve()).as_posix() != follow_up.source:
            continue
        if leaf(chunk.metadata.heading) in follow_up.sections:
            return True
    return False


def says_value(answer: str, follow_up: FollowUp) -> bool:
    """Any expected name or value in the answer, as written, not inside a longer word."""
    plain = " ".join(answer.replace("`", "").replace("*", "").split())
    return any(
        re.search(rf"(?<![\w$]){re.escape(value)}(?![\w])", plain) for value in follow_up.expect
    )


def score(result: AskResult, follow_up: FollowUp, root: Path) -> dict[str, Any]:
    conversation = result.conversation
    return {
        "section": finds_section(result, follow_up, root),
        "value": says_value(result.answer, follow_up),
        "searched": conversation.standalone if conversation else follow_up.question,
        "reason": conversation.reason if conversation else "",
        "top": [
            f"{Path(c.metadata.source_file).name} > {leaf(c.metadata.heading)}"
            for c in result.sources[:TOP]
        ],
    }
