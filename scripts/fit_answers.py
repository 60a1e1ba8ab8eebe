#!/usr/bin/env python
"""Fit the offline backend's answer choice (ragcli/llm/answer_choice.py) and write
ragcli/data/answer_choice.json.

Three labelled sets, each ingested into its own temporary store:
- answers: technical documents in tests/data/answers/ with tests/data/answer_choice.yaml;
- sample:  sample_corpus/ with the answerable questions of tests/data/labelled_questions.yaml
           and the standard-mode questions of tests/data/auto_routing.yaml;
- rhine:   the SQuAD 2.0 article in ../shared/eval/squad-rhine/ (skipped when absent);
- howto:   Typer's tutorial in ../shared/eval/typer-docs/ with the questions of
           scripts/data/typer_howto.yaml that are not held out (skipped when absent); a
           sentence answers when, as quoted, it names one of the question's names.

Every candidate sentence of each question's top-5 chunks is a row; its label says whether
it (with the list or code it introduces) holds the expected text. Prints, per set, how
often the best-scored sentence holds it, for relevance alone, for the shipped weights, for
the fit on all sets, and for a fit that leaves that set out (the figure for documents the
fit has not seen).

    .venv/bin/python scripts/fit_answers.py [--check]   # --check: print, write nothing
    # names_heading's and names_call's shipped weights were set with the others kept (the
    # "about" says why); a plain run refits all ten, so compare with
    # scripts/howto_benchmark.py first.
    # --dump rows.json: every question's candidates (features, labels, sizes, texts), to try
    # a choice of sentences without asking again; --only howto answers: those sets only
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ragcli.llm.answer_choice import FEATURES, AnswerChoice, bundled  # noqa: E402

DATA = ROOT / "tests" / "data"
OUT = ROOT / "ragcli" / "data" / "answer_choice.json"
RHINE = ROOT.parent / "shared" / "eval" / "squad-rhine"
TYPER = ROOT.parent / "shared" / "eval" / "typer-docs"
HOWTO = ROOT / "scripts" / "data" / "typer_howto.yaml"


@dataclass
class Question:
    text: str
    expect: list[str]
    squad: bool = False  # SQuAD's normalisation, not a plain substring
    names: bool = False  # `expect` are names, found as code (evaluation/howto.py)


@dataclass
class Rows:
    """One question's candidate sentences: features, labels and relevance."""

    features: list[tuple[float, ...]]
    labels: list[bool]
    relevance: list[float]
    sizes: list[int]  # characters as quoted, with what a lead-in brings
    places: list[tuple[int, int]]  # (chunk, position)
    question: str = ""
    texts: list[str] | None = None  # as quoted (for --dump)


def holds(text: str, question: Question) -> bool:
    if question.squad:
        from ragcli.evaluation.squad import contains_answer

        return contains_answer(text, question.expect)
    if question.names:
        from ragcli.evaluation.howto import names_it

        return any(names_it(text, name) for name in question.expect)
    return any(e.lower() in text.lower() for e in question.expect)


def as_list(value) -> list[str]:
    return [value] if isinstance(value, str) else [str(v) for v in value]


def labelled_sets(work: Path) -> dict[str, tuple[list[Path], list[Question]]]:
    sets = {}
    answers = yaml.safe_load((DATA / "answer_choice.yaml").read_text())
    sets["answers"] = (
        sorted((DATA / "answers").iterdir()),
        [Question(q["question"], as_list(q["expect"])) for q in answers],
    )
    labelled = yaml.safe_load((DATA / "labelled_questions.yaml").read_text())
    routing = yaml.safe_load((DATA / "auto_routing.yaml").read_text())
    sample = [Question(q["question"], as_list(q["expect"])) for q in labelled["answerable"]]
    sample += [
        Question(q["question"], as_list(q["expect_evidence"]))
        for q in routing
        if q["expect_mode"] == "standard" and isinstance(q.get("expect_evidence"), str)
    ]
    sets["sample"] = ([ROOT / "sample_corpus"], sample)
    source = next(RHINE.glob("*.json"), None) if RHINE.is_dir() else None
    if source is not None:
        from ragcli.evaluation.squad import load_article

        title, markdown, questions = load_article(source)
        article = work / "rhine.md"
        article.write_text(markdown, encoding="utf-8")
        sets["rhine"] = ([article], [Question(q.question, q.answers, True) for q in questions])
    if TYPER.is_dir():
        from ragcli.evaluation.howto import load_howtos

        howtos = [h for h in load_howtos(HOWTO) if not h.held_out]
        sets["howto"] = (
            sorted(TYPER.rglob("*.md")),
            [Question(h.question, list(h.names), names=True) for h in howtos],
        )
    return sets


def collect(name: str, paths: list[Path], questions: list[Question], work: Path) -> list[Rows]:
    from ragcli import service
    from ragcli.config import load_settings
    from ragcli.llm import make_llm
    from ragcli.llm.extractive import introduced

    settings = load_settings(
        None, {"store.path": str(work / name), "llm.provider": "extractive"}, environ={}
    )
    service.ingestor(settings).run(paths, settings.store.collection)
    resources = service.Resources(settings)
    store, emb = resources.store(), resources.embedder()
    search = service.retriever(
        settings, store, emb, settings.store.collection, None, resources.lexical
    )
    llm = make_llm(
        settings, emb, service.calibration(settings), term_stats=service.term_stats(search)
    )
    out = []
    for question in questions:
        chunks = search.search(question.text, settings.retrieval.top_k)
        scored = llm.scored_sentences(question.text, chunks)
        labels, sizes = [], []
        for s in scored:
            text = llm.as_quoted(s.candidate)  # with the heading it carries
            if s.features[FEATURES.index("lead_in")]:  # a lead-in: what it introduces is quoted with it
                text += (
                    "\n"
                    + introduced(
                        chunks[s.candidate.chunk_number - 1].content, s.candidate.position
                    )[0]
                )
            labels.append(holds(text, question))
            sizes.append(len(text))
        out.append(
            Rows(
                [s.features for s in scored],
                labels,
                [s.relevance for s in scored],
                sizes,
                [(s.candidate.chunk_number, s.candidate.position) for s in scored],
                question.text,
                [llm.as_quoted(s.candidate) for s in scored],
            )
        )
    return out


def fit(groups: list[list[Rows]]) -> AnswerChoice:
    """A pairwise ranking fit (each answering sentence against each other sentence of the
    same question: what decides which sentence is quoted first), then its bias from a
    logistic fit of the labels on the ranking score, so the score reads as a probability."""
    from sklearn.linear_model import LogisticRegression

    pairs, signs = [], []
    for rows in groups:
        for q in rows:
            good = [np.array(f) for f, label in zip(q.features, q.labels) if label]
            bad = [np.array(f) for f, label in zip(q.features, q.labels) if not label]
            for g in good:
                for b in bad:
                    pairs += [g - b, b - g]
                    signs += [1, 0]
    ranking = LogisticRegression(C=1.0, fit_intercept=False, max_iter=1000)
    ranking.fit(np.array(pairs), np.array(signs))
    weights = ranking.coef_[0]
    x = np.array([f for rows in groups for q in rows for f in q.features]) @ weights
    y = np.array([label for rows in groups for q in rows for label in q.labels])
    scale = LogisticRegression(C=100.0, class_weight="balanced").fit(x.reshape(-1, 1), y)
    factor = float(scale.coef_[0][0])
    return AnswerChoice(tuple(float(w) * factor for w in weights), float(scale.intercept_[0]))


def top1(rows: list[Rows], score) -> tuple[int, int]:
    """(questions whose best sentence holds the answer, questions where some sentence does)."""
    answerable = [q for q in rows if any(q.labels)]
    right = 0
    for q in answerable:
        best = max(range(len(q.labels)), key=lambda i: score(q, i))
        right += q.labels[best]
    return right, len(answerable)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="print the fit, write nothing")
    parser.add_argument("--dump", type=Path, help="also write the rows here (JSON)")
    parser.add_argument("--only", nargs="+", help="these sets only (with --check)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        sets = labelled_sets(work)
        if args.only:
            sets = {name: found for name, found in sets.items() if name in args.only}
        data = {name: collect(name, paths, qs, work) for name, (paths, qs) in sets.items()}
    if args.dump:
        args.dump.write_text(
            json.dumps({name: [vars(q) for q in rows] for name, rows in data.items()}),
            encoding="utf-8",
        )
    model = fit(list(data.values()))
    shipped_model = bundled()
    print("set       questions  relevance alone  shipped  fit on all  fit without this set")
    for name, rows in data.items():
        alone = top1(rows, lambda q, i: q.relevance[i])
        shipped = top1(rows, lambda q, i: shipped_model.score(q.features[i]))
        fitted = top1(rows, lambda q, i: model.score(q.features[i]))
        held_model = fit([r for n, r in data.items() if n != name])
        held = top1(rows, lambda q, i: held_model.score(q.features[i]))
        print(
            f"{name:<9} {alone[1]:>9}  {alone[0] / alone[1]:>15.3f}"
            f"  {shipped[0] / shipped[1]:>7.3f}  {fitted[0] / fitted[1]:>10.3f}"
            f"  {held[0] / held[1]:>20.3f}"
        )
    print(
        "weights",
        dict(zip(FEATURES, (round(w, 3) for w in model.weights))),
        "bias",
        round(model.bias, 3),
    )
    if not args.check:
        about = (
            "Offline answer choice p = 1 / (1 + exp(-(w . features + bias))), a class-balanced "
            "logistic fit of 'this sentence holds the answer' over the candidate sentences of "
            f"the top-5 chunks of {sum(len(qs) for _, qs in sets.values())} labelled questions "
            f"({', '.join(sets)}); scripts/fit_answers.py."
        )
        OUT.write_text(json.dumps(model.to_dict(about), indent=2) + "\n", encoding="utf-8")
        print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
