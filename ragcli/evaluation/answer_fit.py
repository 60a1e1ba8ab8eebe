"""Fitting the offline answer's model (ragcli/llm/offline/model.py) on labelled rows:
the scorer's weights, the selector's parameters, their cross-validation over the split's
train folds, and the backward elimination of features that measure inside the noise.
scripts/fit_answers.py collects the rows and writes the model; scripts/ablate_answers.py
reports each feature's part.

A row set is one question's candidate units, as the scoring stage made them: their answer
features, whether each holds the expected answer, and their size as quoted. Everything
here is deterministic: the same rows give the same model.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ragcli.llm.offline.features import FEATURES
from ragcli.llm.offline.model import AnswerModel, SelectionParameters
from ragcli.llm.offline.questions import question_kind

# The selector's parameters are chosen from this grid: the stop of a how-to answer, of the
# others, of a how-to answer that shows its code, and the share of the best score a unit
# must reach. The grid spans the values earlier rounds tried by hand.
KEEP_SHARES = (0.3, 0.4, 0.5, 0.55, 0.6, 0.7, 0.8)
COVERED_HOWTO = (0.99, 0.999, 0.9997, 0.9999, 0.99999)
COVERED_FACT = (0.9, 0.95, 0.98, 0.99, 0.995, 0.999)
COVERED_SHOWN = (0.99, 0.999, 0.9997, 0.9999)
# The selector is fitted for the most answers whose median length (as the rows measure it,
# without the section examples the full answer may add) stays within this: the user docs'
# promise of answers a reader takes in at a glance (docs/offline-backend.md).
MEDIAN_CHARS = 400
# An answer's characters beyond its units' (citations, separators), as the renderer adds.
PER_UNIT_CHARS = 5
# llm.answer_max_chars, the default budget.
BUDGET = 700


@dataclass
class Rows:
    """One question's candidate units: features, labels and relevance."""

    set: str
    fold: int
    question: str
    features: list[list[float]]
    labels: list[bool]
    relevance: list[float]
    sizes: list[int]  # characters as quoted, with what a lead-in brings
    texts: list[str] = field(default_factory=list)  # as quoted

    def matrix(self) -> np.ndarray:
        return np.array(self.features, dtype=float).reshape(len(self.labels), len(FEATURES))


def fit(rows: Sequence[Rows], features: Sequence[str] = FEATURES, c: float = 1.0) -> AnswerModel:
    """A pairwise ranking fit over `features` (each answering unit against each other unit
    of the same question: what decides which unit is quoted first), then its bias and
    scale from a logistic fit of the labels on the ranking score, so the score reads as a
    probability. Features not in `features` weigh 0."""
    from sklearn.linear_model import LogisticRegression

    keep = [FEATURES.index(name) for name in features]
    pairs = []
    for q in rows:
        x = q.matrix()[:, keep]
        labels = np.array(q.labels, dtype=bool)
        good, bad = x[labels], x[~labels]
        if len(good) and len(bad):
            differences = (good[:, None, :] - bad[None, :, :]).reshape(-1, len(keep))
            pairs.append(differences)
    if not pairs:
        raise ValueError("no question has both an answering and another unit")
    positive = np.concatenate(pairs)
    x_pairs = np.concatenate([positive, -positive])
    y_pairs = np.concatenate([np.ones(len(positive)), np.zeros(len(positive))])
    ranking = LogisticRegression(C=c, fit_intercept=False, max_iter=2000)
    ranking.fit(x_pairs, y_pairs)
    weights = np.zeros(len(FEATURES))
    weights[keep] = ranking.coef_[0]
    z = np.concatenate([q.matrix() @ weights for q in rows])
    y = np.array([label for q in rows for label in q.labels])
    scale = LogisticRegression(C=100.0, class_weight="balanced").fit(z.reshape(-1, 1), y)
    factor = float(scale.coef_[0][0])
    return AnswerModel(
        {name: float(w) * factor for name, w in zip(FEATURES, weights, strict=True) if w},
        float(scale.intercept_[0]),
    )


def scores(model: AnswerModel, q: Rows) -> np.ndarray:
    w = np.array([model.weights.get(name, 0.0) for name in FEATURES])
    z = np.clip(q.matrix() @ w + model.bias, -60.0, 60.0)
    return np.asarray(1.0 / (1.0 + np.exp(-z)))


Scorer = Callable[[Rows], np.ndarray]


def scorer_of(model: AnswerModel) -> Scorer:
    return lambda q: scores(model, q)


def top1(rows: Sequence[Rows], scorer: Scorer) -> tuple[int, int]:
    """(questions whose best unit holds the answer, questions where some unit does)."""
    answerable = [q for q in rows if any(q.labels)]
    right = sum(bool(q.labels[int(np.argmax(scorer(q)))]) for q in answerable)
    return right, len(answerable)


def share(found: tuple[int, int]) -> float:
    return found[0] / found[1] if found[1] else 0.0


def folds(rows: Sequence[Rows]) -> list[int]:
    return sorted({q.fold for q in rows})


def cross_validated_top1(
    rows: Sequence[Rows], features: Sequence[str] = FEATURES
) -> dict[int, float]:
    """Per train fold: the share of its answerable questions whose best unit, by a fit on
    the other folds, holds the answer."""
    out = {}
    for fold in folds(rows):
        model = fit([q for q in rows if q.fold != fold], features)
        held_out = [q for q in rows if q.fold == fold]
        out[fold] = share(top1(held_out, scorer_of(model)))
    return out


@dataclass(frozen=True)
class Simulated:
    held: float  # share of the questions whose answer holds the expected text
    median_chars: float


def simulate(
    rows: Sequence[Rows], scorer: Scorer, parameters: SelectionParameters, budget: int = BUDGET
) -> Simulated:
    """The selection ragcli/llm/offline/selection.py makes, on the rows: best first, while
    a unit scores at least keep_share of the best and the chance that none answers is
    above the stop, within the budget. (It leaves out the section's example, antecedents
    and duplicates, which the rows do not hold.)"""
    held, lengths = 0, []
    for q in rows:
        p = scorer(q)
        order = np.argsort(-p, kind="stable")
        if not len(order):
            lengths.append(0)
            continue
        kind = question_kind(q.question)
        stop = parameters.covered(kind)
        cutoff = p[order[0]] * parameters.keep_share
        missed, length, hit = 1.0, 0, False
        for i in order:
            if p[i] < cutoff or 1.0 - missed >= stop:
                break
            if length and length + q.sizes[i] > budget:
                continue
            length += q.sizes[i] + PER_UNIT_CHARS
            hit = hit or q.labels[i]
            missed *= 1.0 - float(p[i])
            if q.features[i][FEATURES.index("lead_in")] and "```" in (q.texts or [""] * len(p))[i]:
                stop = parameters.covered(kind, shown=True)
        held += hit
        lengths.append(length)
    return Simulated(held / len(rows) if rows else 0.0, statistics.median(lengths or [0]))


def fit_selection(
    rows: Sequence[Rows], scorer: Scorer, median_chars: int = MEDIAN_CHARS
) -> SelectionParameters:
    """The grid's parameters holding the most answers within `median_chars`; of equal
    ones, the shortest answers."""
    best: tuple[float, float] | None = None
    chosen = SelectionParameters()
    # The scores do not depend on the parameters: compute them once.
    cached = {id(q): scorer(q) for q in rows}

    def memo(q: Rows) -> np.ndarray:
        return cached[id(q)]

    for keep, howto, fact, shown in itertools.product(
        KEEP_SHARES, COVERED_HOWTO, COVERED_FACT, COVERED_SHOWN
    ):
        if shown > howto:
            continue  # showing the code never makes the answer go on longer
        parameters = SelectionParameters(keep, howto, fact, shown)
        result = simulate(rows, memo, parameters)
        if result.median_chars > median_chars:
            continue
        key = (result.held, -result.median_chars)
        if best is None or key > best:
            best, chosen = key, parameters
    return chosen


def fit_model(rows: Sequence[Rows], features: Sequence[str] = FEATURES) -> AnswerModel:
    """The scorer fitted on `rows`, with the selector fitted for it."""
    model = fit(rows, features)
    return replace(model, selection=fit_selection(rows, scorer_of(model)))


def cross_validated_answers(
    rows: Sequence[Rows], features: Sequence[str] = FEATURES
) -> dict[int, Simulated]:
    """Per train fold: the simulated answers of a model (scorer and selector) fitted on the
    other folds."""
    out = {}
    for fold in folds(rows):
        model = fit_model([q for q in rows if q.fold != fold], features)
        held_out = [q for q in rows if q.fold == fold]
        out[fold] = simulate(held_out, scorer_of(model), model.selection)
    return out


def spread(values: Sequence[float]) -> float:
    return max(values) - min(values) if values else 0.0


def summary(per_fold: dict[int, float]) -> str:
    values = list(per_fold.values())
    return f"{statistics.fmean(values):.3f} (spread {spread(values):.3f})"


@dataclass(frozen=True)
class Ablation:
    feature: str
    change: float  # mean over the folds of (without - with)
    spread: float  # the spread of that difference over the folds
    per_fold: tuple[float, ...]

    @property
    def beyond_noise(self) -> bool:
        return abs(self.change) > self.spread


Metric = Callable[[Sequence[Rows], Sequence[str]], dict[int, float]]


def ablate(rows: Sequence[Rows], features: Sequence[str], metric: Metric) -> list[Ablation]:
    """Each of `features` dropped in turn, refitted on the other folds."""
    full = metric(rows, features)
    report = []
    for name in features:
        without = metric(rows, [f for f in features if f != name])
        change = [without[f] - full[f] for f in full]
        report.append(
            Ablation(
                name, statistics.fmean(change), spread(change), tuple(round(c, 3) for c in change)
            )
        )
    return report


def eliminate(
    rows: Sequence[Rows], features: Sequence[str], metric: Metric, keep: Sequence[str] = ()
) -> tuple[list[str], list[Ablation]]:
    """Backward elimination: while some feature's drop measures inside the noise (its
    change is no larger than the folds' spread of it, and it does not help to drop it
    beyond the noise either), the one whose drop costs least goes. `keep` are never
    dropped. Returns the features left and the ablation of each step's dropped feature."""
    left = list(features)
    dropped: list[Ablation] = []
    while len(left) > 1:
        candidates = [a for a in ablate(rows, left, metric) if a.feature not in keep]
        inside = [a for a in candidates if not a.beyond_noise or a.change > 0]
        if not inside:
            break
        gone = max(inside, key=lambda a: a.change)
        dropped.append(gone)
        left.remove(gone.feature)
    return left, dropped
