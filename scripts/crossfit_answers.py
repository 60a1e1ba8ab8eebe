#!/usr/bin/env python
"""Measure answer models end to end on the train folds, each fold answered by a model fitted
on the other folds: the figure for sites the fit has not seen.

For each candidate (a list of answer features; `all` for every one; `shipped` for the
bundled model as it is, fitted on no fold), and each train fold of
scripts/data/split.yaml, the scorer and selector are fitted (ragcli/evaluation/answer_fit.py)
on the rows of the other folds (scripts/fit_answers.py --dump), and
scripts/howto_benchmark.py --part train --fold F --answer-model asks that fold's questions
(every documentation site in the fold, and the fold's share of the SQuAD Rhine article).
Per candidate and fold it prints the share of documentation questions whose answer names
the solution or states the value, their median answer length, and the Rhine gold answers;
then each candidate's mean change from the first, with the folds' spread of that change.

    .venv/bin/python scripts/crossfit_answers.py --rows rows.json --stores DIR \\
        --candidate all --candidate relevance,asked_for [--json]

With `--unseen SET,SET,...` the candidates are fitted on the rows of every other set
instead, and answer those sets' train questions: sites that no fit and no hand rule has
seen. A model file fitted or tuned without them (the hand-tuned model of b3e3e1f:
`git show b3e3e1f:ragcli/data/answer_choice.json > hand.json`, `--candidate hand.json`) is
measured there as honestly as a refit; `shipped`, fitted on every set's rows, is not. It
prints each candidate's answers per site and in all, and its change from the first with
the sites' spread of that change.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

from howto_benchmark import train_run  # noqa: E402

from ragcli.evaluation.answer_fit import (  # noqa: E402
    Rows,
    feature_names,
    fit,
    fit_model,
    folds,
    load_rows,
)
from ragcli.llm.offline.model import AnswerModel, bundled  # noqa: E402


@dataclass
class FoldAnswers:
    fold: int
    questions: int
    in_answer: float  # documentation questions: name or value in the answer
    median_chars: float
    rhine_questions: int
    rhine_gold: float
    rhine_median_chars: float


def measure_fold(stores: Path, model_file: Path, fold: int) -> FoldAnswers:
    options = ("--fold", str(fold), "--answer-model", str(model_file))
    failed = f"crossfit_answers: fold {fold} failed"
    reports = _reports(train_run(stores, *options, failed=failed))
    docs = [q for r in reports if r["set"] != "squad-rhine" for q in r["questions"]]
    rhine = next((r for r in reports if r["set"] == "squad-rhine"), None)
    return FoldAnswers(
        fold,
        len(docs),
        sum(q["in_answer"] for q in docs) / len(docs) if docs else 0.0,
        statistics.median(q["chars"] for q in docs) if docs else 0.0,
        rhine["questions"] if rhine else 0,
        rhine["answer_contains_gold"] if rhine else 0.0,
        rhine["median_answer_chars"] if rhine else 0.0,
    )


def _reports(printed: str) -> list[dict[str, Any]]:
    """Each set's report in what howto_benchmark.py --json printed (one set's alone, or
    several under "sets")."""
    out: Any = json.loads(printed)
    reports = out["sets"] if isinstance(out, dict) and "sets" in out else out
    return reports if isinstance(reports, list) else [reports]


@dataclass
class SiteAnswers:
    site: str
    questions: int
    in_answer: int  # name or value in the answer
    median_chars: float


def measure_site(stores: Path, model_file: Path | None, site: str) -> SiteAnswers:
    options = ("--answer-model", str(model_file)) if model_file else ()
    failed = f"crossfit_answers: {site} failed"
    questions = _reports(train_run(stores, *options, failed=failed, name=site))[0]["questions"]
    return SiteAnswers(
        site,
        len(questions),
        sum(bool(q["in_answer"]) for q in questions),
        statistics.median(q["chars"] for q in questions) if questions else 0.0,
    )


def unseen(
    rows: list[Rows], stores: Path, candidates: list[str], sites: list[str], work: Path
) -> dict[str, list[SiteAnswers]]:
    """Each candidate fitted on the rows of the sets not in `sites`, answering the train
    questions of `sites`."""
    fitted_on = [q for q in rows if q.set not in sites]
    results: dict[str, list[SiteAnswers]] = {}
    for number, candidate in enumerate(candidates):
        model_file = None
        if candidate != "shipped":
            model_file = work / f"model-{number}.json"
            model = candidate_model(candidate, fitted_on)
            model_file.write_text(json.dumps(model.to_dict("unseen")), encoding="utf-8")
        print(f"crossfit_answers: {candidate[:40]} on {', '.join(sites)} …", file=sys.stderr)
        results[candidate] = [measure_site(stores, model_file, site) for site in sites]
    return results


def print_unseen(results: dict[str, list[SiteAnswers]]) -> None:
    first = next(iter(results))
    for candidate, per_site in results.items():
        cells = "  ".join(
            f"{s.site} {s.in_answer}/{s.questions}@{s.median_chars:.0f}" for s in per_site
        )
        found = sum(s.in_answer for s in per_site)
        asked = sum(s.questions for s in per_site)
        print(f"{candidate[:60]}\n  {cells}\n  all sites: {found}/{asked} = {found / asked:.3f}")
        if candidate != first:
            change = [
                a.in_answer / a.questions - b.in_answer / b.questions
                for a, b in zip(per_site, results[first], strict=True)
                if a.questions
            ]
            print(
                f"  change from {first[:30]}: {statistics.fmean(change):+.3f} per site "
                f"(spread {max(change) - min(change):.3f})"
            )


def candidate_model(candidate: str, rows: list[Rows]) -> AnswerModel:
    """The model a candidate names, fitted on `rows`: `shipped` is the bundled model as it
    is, and a file ending in .json a model file as it is (an earlier bundled one, e.g. from
    `git show REV:ragcli/data/answer_choice.json`); a candidate ending in `@kept` keeps the
    bundled model's selector (only the scorer is fitted), and one ending in `~prose` ranks
    a sentence holding the answer above a code block or output holding it
    (answer_fit.grades)."""
    if candidate == "shipped":
        return bundled()
    if candidate.endswith(".json"):
        try:
            return AnswerModel.from_dict(json.loads(Path(candidate).read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError) as error:
            raise SystemExit(f"{candidate}: not a model file ({error})") from None
    candidate, _, label = candidate.partition("~")
    prose = label == "prose"
    features, _, selector = candidate.partition("@")
    features = "" if features == "default" else features  # answer_fit.MODEL_FEATURES
    if selector == "kept":
        fitted = fit(rows, feature_names(features), prefer_prose=prose)
        return replace(fitted, selection=bundled().selection)
    return fit_model(rows, feature_names(features), prefer_prose=prose)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=Path, required=True, help="fit_answers.py --dump's file")
    parser.add_argument("--stores", type=Path, required=True, help="the benchmark's stores")
    parser.add_argument(
        "--candidate",
        action="append",
        required=True,
        help="features (comma-separated), all, or default (the fit's own), with @kept to "
        "keep the bundled selector; or shipped (the bundled model, not refitted), or a "
        "model file (FILE.json, not refitted)",
    )
    parser.add_argument(
        "--unseen",
        metavar="SET,SET",
        help="fit on the other sets' rows and answer these sets' train questions",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = load_rows(args.rows)
    if args.unseen:
        sites = [s.strip() for s in args.unseen.split(",") if s.strip()]
        with tempfile.TemporaryDirectory() as work:
            by_site = unseen(rows, args.stores, args.candidate, sites, Path(work))
        if args.json:
            print(json.dumps({c: [asdict(s) for s in ss] for c, ss in by_site.items()}, indent=2))
        else:
            print_unseen(by_site)
        return 0
    results: dict[str, list[FoldAnswers]] = {}
    with tempfile.TemporaryDirectory() as work:
        for candidate in args.candidate:
            results[candidate] = []
            for fold in folds(rows):
                model = candidate_model(candidate, [q for q in rows if q.fold != fold])
                model_file = Path(work) / f"model-{fold}.json"
                model_file.write_text(json.dumps(model.to_dict("crossfit")), encoding="utf-8")
                print(f"crossfit_answers: {candidate[:40]}, fold {fold} …", file=sys.stderr)
                results[candidate].append(measure_fold(args.stores, model_file, fold))
    if args.json:
        print(json.dumps({c: [asdict(f) for f in fs] for c, fs in results.items()}, indent=2))
        return 0
    first = args.candidate[0]
    for candidate, per_fold in results.items():
        cells = "  ".join(
            f"{f.in_answer:.3f}/{f.median_chars:.0f}/{f.rhine_gold:.3f}/{f.rhine_median_chars:.0f}"
            for f in per_fold
        )
        print(
            f"{candidate[:60]}\n  per fold (docs in answer / median / Rhine gold / median): {cells}"
        )
        if candidate != first:
            change = [
                a.in_answer - b.in_answer for a, b in zip(per_fold, results[first], strict=True)
            ]
            gold = [
                a.rhine_gold - b.rhine_gold for a, b in zip(per_fold, results[first], strict=True)
            ]
            print(
                f"  change from {first[:30]}: docs {statistics.fmean(change):+.3f} "
                f"(spread {max(change) - min(change):.3f}), Rhine {statistics.fmean(gold):+.3f} "
                f"(spread {max(gold) - min(gold):.3f})"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
