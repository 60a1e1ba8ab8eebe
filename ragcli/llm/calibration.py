"""Calibrated relevance: evidence features -> probability that a passage answers a question.

p = 1 / (1 + exp(-(w . features + bias))), with the features

- similarity:    best cosine between the question and the passage or one of its sentences
- idf_coverage:  share of the question's terms the passage contains, each term weighted by
                 its BM25 idf in the collection (a rare term counts more than "driftwood")
- bm25:          the passage's BM25 score for the question under the collection's
                 statistics (how much rare-term evidence it holds in absolute terms)

The weights are a logistic regression of "this chunk comes from the source that answers
the question" over every retrieved chunk of every labelled question, with both classes
weighted equally (answer chunks are few), so that "the best grade among the top-k chunks"
-- what crag and tos compare with their thresholds -- is high when one chunk answers.
The package ships a fit (data/calibration.json); `ragcli calibrate FILE` fits one on the
user's own labelled questions and saves it in the store, where it takes precedence.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from ragcli.atomic import write_text_atomically
from ragcli.errors import ConfigError

FEATURES = ("similarity", "idf_coverage", "bm25")
STORE_FILE = "calibration.json"  # a user's own fit, inside the store directory


@dataclass(frozen=True)
class Calibration:
    weights: tuple[float, ...]
    bias: float
    about: str = ""

    @classmethod
    def bundled(cls) -> Calibration:
        raw = json.loads(resources.files("ragcli").joinpath("data/calibration.json").read_text())
        return cls.from_dict(raw, "ragcli/data/calibration.json")

    @classmethod
    def load(cls, path: Path) -> Calibration:
        try:
            raw = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(f"{path}: not a readable calibration file ({exc})") from None
        return cls.from_dict(raw, str(path))

    @classmethod
    def for_store(cls, store_dir: Path) -> Calibration:
        """The store's own fit when `ragcli calibrate` made one, else the bundled fit."""
        path = Path(store_dir) / STORE_FILE
        return cls.load(path) if path.is_file() else cls.bundled()

    @classmethod
    def from_dict(cls, raw: dict, source: str) -> Calibration:
        try:
            if raw.get("features") != list(FEATURES):
                raise ValueError(f"features must be {list(FEATURES)}")
            weights = tuple(float(w) for w in raw["weights"])
            if len(weights) != len(FEATURES):
                raise ValueError("one weight per feature")
            return cls(weights, float(raw["bias"]), str(raw.get("about", "")))
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"{source}: invalid calibration ({exc})") from None

    def to_dict(self) -> dict:
        return {
            "about": self.about,
            "features": list(FEATURES),
            "weights": [round(w, 4) for w in self.weights],
            "bias": round(self.bias, 4),
        }

    def save(self, path: Path) -> None:
        write_text_atomically(Path(path), json.dumps(self.to_dict(), indent=2) + "\n")

    def probability(self, *features: float) -> float:
        z = sum(w * f for w, f in zip(self.weights, features, strict=True)) + self.bias
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


@dataclass
class LabelledQuestion:
    """One question's retrieved chunks as feature vectors, and what is true of it."""

    question: str
    answerable: bool
    features: list[tuple[float, ...]]  # one per retrieved chunk
    from_source: list[bool] = field(default_factory=list)  # chunk comes from the right source


def fit(questions: Sequence[LabelledQuestion], c: float = 100.0, about: str = "") -> Calibration:
    """Logistic regression of "chunk from the relevant source" on the chunk's features,
    over all retrieved chunks, classes balanced. Chunks of unanswerable questions are all
    negatives: they are what the aggregate must keep low."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    rows, labels = [], []
    for q in questions:
        hits = q.from_source or [False] * len(q.features)
        for features, hit in zip(q.features, hits, strict=True):
            rows.append(features)
            labels.append(q.answerable and hit)
    if len(set(labels)) < 2:
        raise ConfigError(
            "calibration needs answerable questions whose source is retrieved and "
            "questions (or chunks) that do not answer"
        )
    model = LogisticRegression(C=c, class_weight="balanced", max_iter=1000)
    model.fit(np.array(rows), np.array(labels))
    return Calibration(tuple(float(w) for w in model.coef_[0]), float(model.intercept_[0]), about)


def aggregate(question: LabelledQuestion, calibration: Calibration) -> tuple[float, bool]:
    """The best grade among the question's chunks, and whether that chunk is from the
    relevant source."""
    if not question.features:
        return 0.0, False
    grades = [calibration.probability(*f) for f in question.features]
    best = max(range(len(grades)), key=grades.__getitem__)
    hit = bool(question.from_source) and question.from_source[best]
    return grades[best], hit


def precision_recall(
    questions: Sequence[LabelledQuestion],
    calibration: Calibration,
    thresholds: Sequence[float] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
) -> list[dict]:
    """Per threshold t: a question is accepted when its aggregate grade is >= t; accepting it
    is right when it is answerable and the best chunk comes from its relevant source.
    precision = right / accepted, recall = right / answerable, and how many unanswerable
    questions were (wrongly) accepted."""
    graded = [(aggregate(q, calibration), q.answerable) for q in questions]
    answerable = sum(1 for q in questions if q.answerable)
    table = []
    for t in thresholds:
        accepted = [(hit, ans) for (grade, hit), ans in graded if grade >= t]
        right = sum(1 for hit, ans in accepted if ans and hit)
        table.append(
            {
                "threshold": t,
                "accepted": len(accepted),
                "correct": right,
                "unanswerable_accepted": sum(1 for _, ans in accepted if not ans),
                "precision": right / len(accepted) if accepted else 1.0,
                "recall": right / answerable if answerable else 0.0,
            }
        )
    return table


def band_accuracy(
    questions: Sequence[LabelledQuestion], calibration: Calibration, high: float, low: float
) -> dict[str, int]:
    """How many answerable questions aggregate at or above `high`, unanswerable below `low`."""
    grades = [(aggregate(q, calibration)[0], q.answerable) for q in questions]
    return {
        "answerable": sum(1 for _, a in grades if a),
        "answerable_high": sum(1 for g, a in grades if a and g >= high),
        "unanswerable": sum(1 for _, a in grades if not a),
        "unanswerable_low": sum(1 for g, a in grades if not a and g < low),
    }
