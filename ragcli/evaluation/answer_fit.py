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
import json
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

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
# Two units closer than this say the same (the selector's redundancy): from paraphrases to
# only the same words (selection.sameness). The rows keep each pair from the first up.
DUPLICATE_COSINES = (0.85, 0.88, 0.9, 0.92, 0.95, 0.98, 1.0)
# A scorer fitted alone quotes with the grid's loosest stops, until fit_selection chooses.
UNFITTED = SelectionParameters(
    keep_share_howto=KEEP_SHARES[0],
    keep_share_fact=KEEP_SHARES[0],
    covered_howto=COVERED_HOWTO[-1],
    covered_fact=COVERED_FACT[-1],
    covered_shown=COVERED_SHOWN[-1],
    duplicate_cosine=DUPLICATE_COSINES[-1],
)
# The selector is fitted for the most answers whose median length (as the rows measure it)
# stays within this, for how-to questions and for the others: the lengths issue 67 asks of
# documentation answers (a median of 500) and of SQuAD's (400), less a margin for what the
# rows leave out (a section's example, an antecedent).
MEDIAN_CHARS = {"instruction": 480, "other": 380}
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
    # [i, j, sameness] of the units at least DUPLICATE_COSINES[0] alike (i < j)
    near: list[list[float]] = field(default_factory=list)

    def alike(self) -> dict[int, dict[int, float]]:
        """Each unit's sameness to the units near it, both ways."""
        out: dict[int, dict[int, float]] = {}
        for i, j, value in self.near:
            out.setdefault(int(i), {})[int(j)] = value
            out.setdefault(int(j), {})[int(i)] = value
        return out

    def matrix(self) -> np.ndarray:
        return np.array(self.features, dtype=float).reshape(len(self.labels), len(FEATURES))


def load_rows(path: Path) -> list[Rows]:
    """The rows scripts/fit_answers.py --dump wrote; a file that cannot be read is one line
    naming it (SystemExit)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return [Rows(**r) for r in raw]
    except (OSError, ValueError, TypeError) as error:
        message = f"{path}: not rows written by scripts/fit_answers.py --dump ({error})"
        raise SystemExit(message) from None


# The features the fit weighs unless told otherwise: the ten of the models before issue 67.
# The eight added for it (explained, name_first, other_names, name_of_question,
# value_stated, code_unit, output_unit, item_unit) measured inside the noise, on the rows
# and on the train questions of sites no fit or rule had seen (scripts/crossfit_answers.py
# --unseen: 60 of 98 answered with them and 61 without on seven sites, 88 and 87 of 142 on
# ten), and a fit with them quotes a code listing or its output without the sentence that
# leads in to it. name_meaning (a new name's words against the question, by the embedding)
# replaced names_new, whose weight it takes (-0.09 with both): on every train fold fitted on
# the others the answers hold the name as often or more often (+0.034 on average, the change
# 0.000-0.068 across folds) and are shorter; on the eleven unseen sites 104 of 160 against 100.
MODEL_FEATURES = (
    "relevance",
    "context",
    "section",
    "novelty",
    "asked_for",
    "lead_in",
    "rank",
    "names_heading",
    "names_call",
    "name_meaning",
)


def feature_names(given: str | None) -> list[str]:
    """The features a comma-separated list names (none given: MODEL_FEATURES; `all`: every
    one); an unknown name is one line naming it (SystemExit)."""
    if not given:
        return list(MODEL_FEATURES)
    if given == "all":
        return list(FEATURES)
    names = [n.strip() for n in given.split(",") if n.strip()]
    if unknown := set(names) - set(FEATURES):
        raise SystemExit(f"unknown features: {', '.join(sorted(unknown))}")
    return names


def grades(q: Rows, prefer_prose: bool = False) -> np.ndarray:
    """What the ranking fit orders a question's units by: 1 for a unit holding the answer, 0
    for the others. With `prefer_prose`, a code block or a run's output holding it grades
    1 and any other unit holding it (a sentence, an item, a lead-in quoted with its code)
    2: the sentence that names the fix comes before the example that shows it."""
    labels = np.array(q.labels, dtype=float)
    if not prefer_prose:
        return labels
    x = q.matrix()
    shown = (x[:, FEATURES.index("code_unit")] + x[:, FEATURES.index("output_unit")]) > 0
    return labels * np.where(shown, 1.0, 2.0)


def fit(
    rows: Sequence[Rows],
    features: Sequence[str] = FEATURES,
    c: float = 1.0,
    prefer_prose: bool = False,
) -> AnswerModel:
    """A pairwise ranking fit over `features` (each unit against each unit of the same
    question graded lower: what decides which unit is quoted first; `grades`), then its
    bias and scale from a logistic fit of the labels on the ranking score, so the score
    reads as a probability. Features not in `features` weigh 0."""
    from sklearn.linear_model import LogisticRegression

    keep = [FEATURES.index(name) for name in features]
    pairs = []
    for q in rows:
        x = q.matrix()[:, keep]
        graded = grades(q, prefer_prose)
        levels = sorted(set(graded.tolist()))
        for higher in levels[1:]:
            good, bad = x[graded == higher], x[graded < higher]
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
        UNFITTED,
    )


def scores(model: AnswerModel, q: Rows) -> np.ndarray:
    return model.scores(q.matrix())


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
    # the median per kind of question: "instruction" (how-to) and "other"
    medians: dict[str, float] = field(default_factory=dict)


def simulate(
    rows: Sequence[Rows], scorer: Scorer, parameters: SelectionParameters, budget: int = BUDGET
) -> Simulated:
    """The selection ragcli/llm/offline/selection.py makes, on the rows: best first, while
    a unit scores at least keep_share of the best and the chance that none answers is
    above the stop, within the budget, leaving out a unit that says what a chosen one says.
    (It leaves out the section's example and antecedents, which the rows do not hold.)"""
    held, lengths = 0, []
    by_kind: dict[str, list[int]] = {"instruction": [], "other": []}
    lead_in = FEATURES.index("lead_in")
    for q in rows:
        p = scorer(q)
        order = np.argsort(-p, kind="stable")
        kind = question_kind(q.question)
        stop = parameters.covered(kind)
        cutoff = p[order[0]] * parameters.keep_share(kind) if len(order) else 0.0
        missed, length, hit = 1.0, 0, False
        alike = q.alike()
        chosen: list[int] = []
        for i in order:
            if p[i] < cutoff or 1.0 - missed >= stop:
                break
            near = alike.get(int(i), {})
            if any(near.get(c, 0.0) > parameters.duplicate_cosine for c in chosen):
                continue  # says what a chosen unit says
            if length and length + q.sizes[i] > budget:
                continue
            chosen.append(int(i))
            length += q.sizes[i] + PER_UNIT_CHARS
            hit = hit or q.labels[i]
            missed *= 1.0 - float(p[i])
            if q.features[i][lead_in] and q.texts and "```" in q.texts[i]:
                stop = parameters.covered(kind, shown=True)  # a lead-in with its code
        held += hit
        lengths.append(length)
        by_kind["instruction" if kind == "instruction" else "other"].append(length)
    return Simulated(
        held / len(rows) if rows else 0.0,
        statistics.median(lengths or [0]),
        {k: statistics.median(v) for k, v in by_kind.items() if v},
    )


def fit_selection(
    rows: Sequence[Rows], scorer: Scorer, median_chars: dict[str, int] | None = None
) -> SelectionParameters:
    """The grid's parameters holding the most answers within `median_chars` (per kind of
    question; MEDIAN_CHARS by default); of equal ones, the shortest answers. How-to
    questions and the others have stops of their own, so each is chosen on its own
    questions, for each redundancy of DUPLICATE_COSINES; the redundancy is chosen on all of
    them."""
    limits = MEDIAN_CHARS if median_chars is None else median_chars
    # The scores do not depend on the parameters: compute them once.
    cached = {id(q): scorer(q) for q in rows}

    def memo(q: Rows) -> np.ndarray:
        return cached[id(q)]

    howto = [q for q in rows if question_kind(q.question) == "instruction"]
    others = [q for q in rows if question_kind(q.question) != "instruction"]
    default = UNFITTED
    howto_grid = [
        replace(default, keep_share_howto=k, covered_howto=c, covered_shown=s)
        for k, c, s in itertools.product(KEEP_SHARES, COVERED_HOWTO, COVERED_SHOWN)
        if s <= c  # showing the code never makes the answer go on longer
    ]
    fact_grid = [
        replace(default, keep_share_fact=k, covered_fact=c)
        for k, c in itertools.product(KEEP_SHARES, COVERED_FACT)
    ]
    fitted = []
    for duplicate in DUPLICATE_COSINES:
        best_howto = _best(
            howto,
            memo,
            [replace(p, duplicate_cosine=duplicate) for p in howto_grid],
            limits.get("instruction"),
        )
        best_fact = _best(
            others,
            memo,
            [replace(p, duplicate_cosine=duplicate) for p in fact_grid],
            limits.get("other"),
        )
        parameters = replace(
            best_howto,
            keep_share_fact=best_fact.keep_share_fact,
            covered_fact=best_fact.covered_fact,
        )
        found = simulate(rows, memo, parameters)
        within = all(
            limits.get(kind) is None or median <= limits[kind]
            for kind, median in found.medians.items()
        )
        fitted.append((within, found.held, -found.median_chars, duplicate, parameters))
    # Within the lengths, the most answers, then the shortest; of equal ones, the highest
    # sameness (it leaves out the least).
    return max(fitted, key=lambda f: f[:4])[4]


def _best(
    rows: Sequence[Rows], scorer: Scorer, grid: list[SelectionParameters], limit: int | None
) -> SelectionParameters:
    """Of `grid`, the parameters holding the most answers of `rows` at a median within
    `limit`; when none keeps it, the shortest."""
    if not rows:
        return grid[0]
    results = [(p, simulate(rows, scorer, p)) for p in grid]
    within = [(p, r) for p, r in results if limit is None or r.median_chars <= limit]
    if not within:
        return min(results, key=lambda pr: pr[1].median_chars)[0]
    return max(within, key=lambda pr: (pr[1].held, -pr[1].median_chars))[0]


def fit_model(
    rows: Sequence[Rows], features: Sequence[str] = FEATURES, prefer_prose: bool = False
) -> AnswerModel:
    """The scorer fitted on `rows`, with the selector fitted for it."""
    model = fit(rows, features, prefer_prose=prefer_prose)
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
    dropped: str  # a feature group's name
    change: float  # mean over the folds of (without - with)
    spread: float  # the spread of that difference over the folds
    per_fold: tuple[float, ...]

    @property
    def beyond_noise(self) -> bool:
        return abs(self.change) > self.spread


K = TypeVar("K")  # a fold's key: its number, or as JSON gives it, a string
Metric = Callable[[Sequence[Rows], Sequence[str]], dict[int, float]]
Groups = dict[str, tuple[str, ...]]


def _features(groups: Groups) -> list[str]:
    return [name for group in groups.values() for name in group]


def fold_change(full: Mapping[K, float], without: Mapping[K, float], dropped: str) -> Ablation:
    """Per fold `without` - `full`: their mean, spread and whether it is beyond the noise
    (scripts/ablate_rules.py judges a hand rule by it too)."""
    change = [without[f] - full[f] for f in full]
    return Ablation(
        dropped, statistics.fmean(change), spread(change), tuple(round(c, 3) for c in change)
    )


def ablate(rows: Sequence[Rows], groups: Groups, metric: Metric) -> list[Ablation]:
    """Each group of features dropped in turn, refitted on the other folds."""
    full = metric(rows, _features(groups))
    return [
        fold_change(full, metric(rows, _features({k: v for k, v in groups.items() if k != g})), g)
        for g in groups
    ]


def eliminate(
    rows: Sequence[Rows], groups: Groups, metric: Metric, keep: Sequence[str] = ()
) -> tuple[Groups, list[Ablation]]:
    """Backward elimination against the full model: while some group can go with the model
    still inside the noise of the one with every group (its mean change from the full
    model no larger than the folds' spread of that change), the one whose drop costs
    least goes. Measured against the full model, not the last step, so that small losses
    do not add up unseen. Groups named in `keep` are never dropped. Returns the groups
    left and, for each one dropped, the change from the full model once it had gone."""
    full = metric(rows, _features(groups))
    left = dict(groups)
    dropped: list[Ablation] = []
    while len(left) > 1:
        best: Ablation | None = None
        for name in left:
            if name in keep:
                continue
            rest = {k: v for k, v in left.items() if k != name}
            found = fold_change(full, metric(rows, _features(rest)), name)
            if found.change < 0 and found.beyond_noise:
                continue  # the model would be measurably worse than the full one
            if best is None or found.change > best.change:
                best = found
        if best is None:
            break
        dropped.append(best)
        del left[best.dropped]
    return left, dropped


def cross_validated_mrr(
    rows: Sequence[Rows], features: Sequence[str] = FEATURES
) -> dict[int, float]:
    """Per train fold: the mean reciprocal rank, among its answerable questions' units
    scored by a fit on the other folds, of the first unit that holds the answer. The answer
    quotes several units, so the rank of the first answering one matters, not only whether
    it comes first."""
    out = {}
    for fold in folds(rows):
        model = fit([q for q in rows if q.fold != fold], features)
        answerable = [q for q in rows if q.fold == fold and any(q.labels)]
        ranks = []
        for q in answerable:
            order = np.argsort(-scores(model, q), kind="stable")
            ranks.append(next(i for i, j in enumerate(order) if q.labels[j]) + 1)
        out[fold] = statistics.fmean(1.0 / r for r in ranks) if ranks else 0.0
    return out
