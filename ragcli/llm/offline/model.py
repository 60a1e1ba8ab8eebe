"""The offline answer's numbers: the scorer's weights over the answer features
(ragcli/llm/offline/features.py) and the selector's parameters, all in one data file,
ragcli/data/answer_choice.json, which only `scripts/fit_answers.py --write` writes (its
`about` says over which questions).

The score of a unit is p = 1 / (1 + exp(-(w . features + bias))), read as the chance that
the unit holds the answer: the selector multiplies the chances of a miss. The fit script
fits w pairwise (each answering unit against the other units of its question) and scales
it so that it reads as a probability.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

from ragcli.llm.offline.features import FEATURES, AnswerFeatures
from ragcli.llm.offline.questions import QuestionKind

# The score's logit is clipped here: exp() of a larger one overflows.
Z_LIMIT = 60.0
# A model file written before the selector's redundancy was fitted left out units closer
# than this (the hand rule it replaced): such a file still reads as it quoted.
EARLIER_DUPLICATE_COSINE = 0.92


@dataclass(frozen=True)
class SelectionParameters:
    """When the selector stops quoting (ragcli/llm/offline/selection.py).

    - keep_share_howto, keep_share_fact: units scoring below this share of the best unit's
                     score are left out (how-to questions, the others);
    - covered_howto, covered_fact: the answer stops once the chance that none of its units
                     answers falls below 1 - this;
    - covered_shown: the same, once a how-to answer shows the code a sentence introduces;
    - duplicate_cosine: a unit whose embedding is closer than this to a quoted one's says
                     what it says, and is left out (1 or more: only the same text).
    """

    keep_share_howto: float
    keep_share_fact: float
    covered_howto: float
    covered_fact: float
    covered_shown: float
    duplicate_cosine: float

    def keep_share(self, kind: QuestionKind) -> float:
        return self.keep_share_howto if kind == "instruction" else self.keep_share_fact

    def covered(self, kind: QuestionKind, shown: bool = False) -> float:
        stop = self.covered_howto if kind == "instruction" else self.covered_fact
        return min(stop, self.covered_shown) if shown else stop


@dataclass(frozen=True)
class AnswerModel:
    weights: dict[str, float]  # a feature left out weighs 0
    bias: float
    selection: SelectionParameters

    @classmethod
    def from_dict(cls, raw: dict) -> AnswerModel:
        weights = {str(k): float(v) for k, v in raw["weights"].items()}
        if unknown := set(weights) - set(FEATURES):
            raise ValueError(f"answer_choice.json: unknown features {sorted(unknown)}")
        selection = {"duplicate_cosine": EARLIER_DUPLICATE_COSINE, **raw["selection"]}
        return cls(weights, float(raw["bias"]), SelectionParameters(**selection))

    def to_dict(self, about: str) -> dict:
        return {
            "about": about,
            "weights": {k: round(v, 4) for k, v in self.weights.items() if v},
            "bias": round(self.bias, 4),
            "selection": {k: round(v, 5) for k, v in self.selection.__dict__.items()},
        }

    def linear(self, vector: tuple[float, ...] | list[float]) -> float:
        return (
            sum(self.weights.get(name, 0.0) * x for name, x in zip(FEATURES, vector, strict=True))
            + self.bias
        )

    def score(self, features: AnswerFeatures | tuple[float, ...] | list[float]) -> float:
        vector = features.vector() if isinstance(features, AnswerFeatures) else features
        z = self.linear(vector)
        return 1.0 / (1.0 + math.exp(-max(-Z_LIMIT, min(Z_LIMIT, z))))

    def scores(self, matrix: np.ndarray) -> np.ndarray:
        """`score` of each row of `matrix` (one unit's features a row, in FEATURES order),
        at once: what the fit scripts score thousands of units with."""
        w = np.array([self.weights.get(name, 0.0) for name in FEATURES])
        z = np.clip(matrix @ w + self.bias, -Z_LIMIT, Z_LIMIT)
        return np.asarray(1.0 / (1.0 + np.exp(-z)))


_measured: list[AnswerModel] = []  # a model a benchmark measures in place of the bundled one


def bundled() -> AnswerModel:
    """The model the answers use: the bundled one, unless a benchmark measures another."""
    return _measured[-1] if _measured else _packaged()


@lru_cache(maxsize=1)
def _packaged() -> AnswerModel:
    raw = resources.files("ragcli").joinpath("data/answer_choice.json").read_text()
    return AnswerModel.from_dict(json.loads(raw))


@contextmanager
def measuring(model: AnswerModel) -> Iterator[None]:
    """Within the block, answers use `model` (scripts/howto_benchmark.py --answer-model:
    a model fitted on other folds, measured on this one)."""
    _measured.append(model)
    try:
        yield
    finally:
        _measured.pop()
