"""The one train/test split of every question set the offline answers are measured on
(issue 67), fixed by scripts/data/split.yaml.

Which part a question is in follows a seeded rule over its set's name and its own text, so
it is fixed before any answer is seen, adding a question moves no other one, and nobody
chooses it by looking at results:
- test:  sha256(f"{seed}:test:{set}:{question}") modulo `test_every` is 0 (a third);
- train: the others, in `folds` folds. A documentation set's train questions are one fold
         together (its pages are seen by one fold only, so a fold's figure is that of sites
         the rest did not fit on): the sets, ordered by sha256(f"{seed}:fold:{set}"), are
         dealt over the folds in turn. A set of one document (the SQuAD article, the ToS
         questions) deals its questions: sha256(f"{seed}:fold:{set}:{question}") modulo
         `folds`.
The offline backend's own labelled sets of the tests (technical pages, the sample corpus)
are `train_only`: tests hold figures on them, so none of them is test; their questions are
dealt over the folds as a single document's are. Fits and choices read train, with folds;
test is read once per change that lands (scripts/howto_benchmark.py --part test). A set
marked `excluded` is in neither part: it copies a held-out check's documentation (a fork),
so nothing may be fitted or chosen on it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml

Part = Literal["train", "test"]
PARTS: tuple[Part, ...] = ("train", "test")
SPLIT_FILE = Path(__file__).resolve().parents[2] / "scripts" / "data" / "split.yaml"


@dataclass(frozen=True)
class Split:
    seed: int
    test_every: int
    folds: int
    documentation: frozenset[str]  # sets whose train questions form one fold
    single_documents: frozenset[str]  # sets whose questions are dealt one by one
    train_only: frozenset[str]  # the tests' labelled sets: train, dealt one by one
    excluded: dict[str, str]  # set -> why it is left out

    def _draw(self, *key: str) -> int:
        digest = hashlib.sha256(":".join((str(self.seed), *key)).encode()).hexdigest()
        return int(digest, 16)

    def known(self, set_name: str) -> bool:
        return set_name in self.documentation | self.single_documents | self.train_only

    def part(self, set_name: str, question: str) -> Part:
        if set_name in self.excluded:
            raise ValueError(f"split: {set_name} is excluded ({self.excluded[set_name]})")
        if not self.known(set_name):
            raise ValueError(f"split: {set_name} is not in {SPLIT_FILE.name}")
        if set_name in self.train_only:
            return "train"
        test = self._draw("test", set_name, question.strip()) % self.test_every == 0
        return "test" if test else "train"

    def fold(self, set_name: str, question: str) -> int:
        """The train fold (0 .. folds-1) of a train question. Documentation sets are dealt
        over the folds in a seeded order, so the folds stay even; a set added to the list
        moves the sets dealt after it to other folds (figures per fold compare only within
        one list), while no question ever changes part."""
        if set_name in self.documentation:
            dealt = sorted(self.documentation, key=lambda name: self._draw("fold", name))
            return dealt.index(set_name) % self.folds
        return self._draw("fold", set_name, question.strip()) % self.folds

    def keep(self, set_name: str, question: str, part: Part) -> bool:
        return self.part(set_name, question) == part


def load_split(path: Path = SPLIT_FILE) -> Split:
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: expected a mapping")
    try:
        return Split(
            seed=int(raw["seed"]),
            test_every=int(raw["test_every"]),
            folds=int(raw["folds"]),
            documentation=frozenset(raw["documentation"]),
            single_documents=frozenset(raw["single_documents"]),
            train_only=frozenset(raw.get("train_only") or ()),
            excluded={str(k): str(v) for k, v in (raw.get("excluded") or {}).items()},
        )
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"{path}: {error}") from None
