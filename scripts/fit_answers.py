#!/usr/bin/env python
"""Fit the offline backend's answer choice (ragcli/llm/answer_choice.py) on the train part
of every question set (scripts/data/split.yaml), and write ragcli/data/answer_choice.json.

The sets, each in its own store (kept in --stores DIR, as scripts/howto_benchmark.py keeps
them, so the two share ingests):
- answers: technical documents in tests/data/answers/ with tests/data/answer_choice.yaml;
- sample:  sample_corpus/ with the answerable questions of tests/data/labelled_questions.yaml
           and the standard-mode questions of tests/data/auto_routing.yaml;
- squad-rhine: the SQuAD 2.0 article in ../shared/eval/squad-rhine/ (skipped when absent);
- every documentation site of ragcli/evaluation/doc_sets.py, a sentence answering when, as
  quoted (with what it introduces), it names one of the question's names or states one of
  its values.
Only train questions are read; the test part is never opened here.

Every candidate sentence of each question's top-5 chunks is a row; its label says whether
it holds the expected text. The fit is cross-validated over the split's train folds: each
fold is scored by a fit on the other folds (a documentation site is in one fold only, so
this is the figure for sites the fit has not seen). Prints, per fold and pooled, how often
the best-scored sentence holds the answer, for relevance alone, for the shipped weights
and for the cross-validated fit, with the folds' spread.

    .venv/bin/python scripts/fit_answers.py --stores DIR [--write] [--dump rows.json]
        [--rows rows.json] [--only SET ...]

`--write` refits on every train fold and writes ragcli/data/answer_choice.json (the only
writer of that file); without it nothing is written. `--dump` saves every question's rows,
`--rows` reads them back instead of asking again (scripts/ablate_answers.py reads them too).
The fit is deterministic: the same rows give the same weights.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ragcli.evaluation.doc_sets import SETS, fetch, shared_eval  # noqa: E402
from ragcli.evaluation.split import load_split  # noqa: E402
from ragcli.llm.answer_choice import FEATURES, AnswerChoice, bundled  # noqa: E402

DATA = ROOT / "tests" / "data"
OUT = ROOT / "ragcli" / "data" / "answer_choice.json"
SQUAD = "squad-rhine"


@dataclass
class Question:
    text: str
    expect: list[str]
    how: str = "text"  # text: a plain substring; squad: SQuAD's normalisation; howto/factoid


@dataclass
class Rows:
    """One question's candidate sentences: features, labels and relevance."""

    set: str
    fold: int
    question: str
    features: list[list[float]]
    labels: list[bool]
    relevance: list[float]
    sizes: list[int]  # characters as quoted, with what a lead-in brings
    texts: list[str] = field(default_factory=list)  # as quoted


def holds(text: str, question: Question) -> bool:
    if question.how == "squad":
        from ragcli.evaluation.squad import contains_answer

        return contains_answer(text, question.expect)
    if question.how in ("howto", "factoid"):
        from ragcli.evaluation.howto import HowTo, answers_it

        return answers_it(text, HowTo(question.text, tuple(question.expect), question.how))  # type: ignore[arg-type]
    return any(e.lower() in text.lower() for e in question.expect)


def as_list(value: object) -> list[str]:
    return [value] if isinstance(value, str) else [str(v) for v in value]  # type: ignore[union-attr]


def labelled_sets(
    stores: Path, only: list[str] | None
) -> dict[str, tuple[list[Path], Path, list[Question]]]:
    """Per set: the files to ingest, the store, and its train questions."""
    split = load_split()
    sets: dict[str, tuple[list[Path], Path, list[Question]]] = {}
    answers = yaml.safe_load((DATA / "answer_choice.yaml").read_text())
    sets["answers"] = (
        sorted((DATA / "answers").iterdir()),
        stores / "answers",
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
    sets["sample"] = ([ROOT / "sample_corpus"], stores / "sample", sample)
    source = next((shared_eval() / SQUAD).glob("*.json"), None)
    if source is not None:
        from ragcli.evaluation.squad import load_article

        title, markdown, questions = load_article(source)
        work = stores / SQUAD
        work.mkdir(parents=True, exist_ok=True)
        # the file scripts/answer_benchmark.py writes, so both read one store
        article = work / f"{title.lower().replace(' ', '_')}.md"
        if not article.exists() or article.read_text(encoding="utf-8") != markdown:
            article.write_text(markdown, encoding="utf-8")
        sets[SQUAD] = (
            [article],
            work / "store",
            [
                Question(q.question, q.answers, "squad")
                for q in questions
                if split.part(SQUAD, q.question) == "train"
            ],
        )
    from ragcli.evaluation.howto import load_howtos

    for name, doc_set in SETS.items():
        if only and name not in only:
            continue
        docs = fetch(doc_set, stores / "_sources")
        sets[name] = (
            doc_set.files(docs),
            stores / name,
            [
                Question(h.question, list(h.names), h.kind)
                for h in load_howtos(doc_set.questions)
                if split.part(name, h.question) == "train"
            ],
        )
    if only:
        sets = {name: found for name, found in sets.items() if name in only}
    return sets


def collect(name: str, paths: list[Path], store: Path, questions: list[Question]) -> list[Rows]:
    from ragcli import service
    from ragcli.config import load_settings
    from ragcli.evaluation import kept_stores
    from ragcli.llm import make_llm
    from ragcli.llm.offline.brought import introduced
    from ragcli.llm.offline.scoring import as_quoted

    split = load_split()
    if note := kept_stores.prepare(store, kept_stores.reading_fingerprint()):
        print(note, file=sys.stderr)
    settings = load_settings(
        None, {"store.path": str(store), "llm.provider": "extractive"}, environ={}
    )
    print(f"{name}: ingesting {len(paths)} files, asking {len(questions)}", file=sys.stderr)
    service.ingestor(settings).run(paths, settings.store.collection)
    resources = service.Resources(settings)
    store_, emb = resources.store(), resources.embedder()
    search = service.retriever(
        settings, store_, emb, settings.store.collection, None, resources.lexical
    )
    llm = make_llm(
        settings, emb, service.calibration(settings), term_stats=service.term_stats(search)
    )
    out = []
    for question in questions:
        chunks = search.search(question.text, settings.retrieval.top_k)
        scored = llm.scored_sentences(question.text, chunks)
        labels, sizes, texts = [], [], []
        for s in scored:
            text = as_quoted(s.candidate)  # with the heading it carries
            if s.features[FEATURES.index("lead_in")]:  # what it introduces is quoted with it
                content = chunks[s.candidate.chunk_number - 1].content
                text += "\n" + introduced(content, s.candidate.position)[0]
            labels.append(holds(text, question))
            sizes.append(len(text))
            texts.append(text)
        out.append(
            Rows(
                name,
                split.fold(name, question.text),
                question.text,
                [list(s.features) for s in scored],
                labels,
                [s.relevance for s in scored],
                sizes,
                texts,
            )
        )
    return out


def fit(rows: list[Rows], columns: list[int] | None = None) -> AnswerChoice:
    """A pairwise ranking fit (each answering sentence against each other sentence of the
    same question: what decides which sentence is quoted first), then its bias from a
    logistic fit of the labels on the ranking score, so the score reads as a probability.
    `columns` fits on those features only (the others weigh 0): an ablation."""
    from sklearn.linear_model import LogisticRegression

    keep = list(range(len(FEATURES))) if columns is None else columns
    pairs, signs = [], []
    for q in rows:
        good = [np.array(f)[keep] for f, label in zip(q.features, q.labels, strict=True) if label]
        bad = [
            np.array(f)[keep] for f, label in zip(q.features, q.labels, strict=True) if not label
        ]
        for g in good:
            for b in bad:
                pairs += [g - b, b - g]
                signs += [1, 0]
    ranking = LogisticRegression(C=1.0, fit_intercept=False, max_iter=1000)
    ranking.fit(np.array(pairs), np.array(signs))
    weights = np.zeros(len(FEATURES))
    weights[keep] = ranking.coef_[0]
    x = np.array([f for q in rows for f in q.features]) @ weights
    y = np.array([label for q in rows for label in q.labels])
    scale = LogisticRegression(C=100.0, class_weight="balanced").fit(x.reshape(-1, 1), y)
    factor = float(scale.coef_[0][0])
    return AnswerChoice(tuple(float(w) * factor for w in weights), float(scale.intercept_[0]))


Score = Callable[[Rows, int], float]


def top1(rows: list[Rows], score: Score) -> tuple[int, int]:
    """(questions whose best sentence holds the answer, questions where some sentence does)."""
    answerable = [q for q in rows if any(q.labels)]
    right = 0
    for q in answerable:
        best = max(range(len(q.labels)), key=lambda i: score(q, i))
        right += q.labels[best]
    return right, len(answerable)


def cross_validated(rows: list[Rows], columns: list[int] | None = None) -> dict[int, float]:
    """Per train fold: the share of its answerable questions whose best sentence, by a fit
    on the other folds, holds the answer."""
    shares = {}
    for fold in sorted({q.fold for q in rows}):
        model = fit([q for q in rows if q.fold != fold], columns)
        right, total = top1(
            [q for q in rows if q.fold == fold], lambda q, i, m=model: m.score(q.features[i])
        )
        shares[fold] = right / total if total else 0.0
    return shares


# The selection llm/offline/selection.py makes, roughly: best first, while a unit scores at
# least KEEP_SHARE of the best and the chance that none answers is above 1 - COVERED, within
# llm.answer_max_chars. (It leaves out the section's example, antecedents and duplicates.)
def simulated(rows: list[Rows], score: Score, budget: int = 700) -> tuple[float, float]:
    """(share of questions whose simulated answer holds the answer, median characters)."""
    from ragcli.llm.answer_choice import question_kind
    from ragcli.llm.offline.selection import COVERED, COVERED_FACT, KEEP_SHARE

    held, lengths = 0, []
    for q in rows:
        order = sorted(range(len(q.labels)), key=lambda i: -score(q, i))
        if not order:
            lengths.append(0)
            continue
        best = score(q, order[0])
        covered = COVERED.get(question_kind(q.question), COVERED_FACT)
        missed, length, hit = 1.0, 0, False
        for i in order:
            p = score(q, i)
            if p < best * KEEP_SHARE or 1.0 - missed >= covered:
                break
            if length and length + q.sizes[i] > budget:
                continue
            length += q.sizes[i] + 5
            hit = hit or q.labels[i]
            missed *= 1.0 - p
        held += hit
        lengths.append(length)
    return held / len(rows) if rows else 0.0, statistics.median(lengths) if lengths else 0.0


def summary(shares: dict[int, float]) -> str:
    values = list(shares.values())
    return f"{statistics.fmean(values):.3f} (spread {max(values) - min(values):.3f})"


def load_rows(path: Path) -> list[Rows]:
    return [Rows(**r) for r in json.loads(path.read_text(encoding="utf-8"))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stores", type=Path, help="keep each set's store in DIR/SET")
    parser.add_argument("--write", action="store_true", help="write answer_choice.json")
    parser.add_argument("--dump", type=Path, help="also write the rows here (JSON)")
    parser.add_argument("--rows", type=Path, help="read the rows from here, ask nothing")
    parser.add_argument("--only", nargs="+", help="these sets only")
    args = parser.parse_args()
    if args.rows:
        rows = load_rows(args.rows)
    else:
        if not args.stores:
            parser.error("give --stores DIR (or --rows FILE)")
        sets = labelled_sets(args.stores, args.only)
        rows = [
            r for name, (paths, store, qs) in sets.items() for r in collect(name, paths, store, qs)
        ]
    if args.dump:
        args.dump.write_text(json.dumps([asdict(r) for r in rows]), encoding="utf-8")
    shipped = bundled()
    print("set           questions  relevance alone  shipped")
    for name in dict.fromkeys(r.set for r in rows):
        of_set = [r for r in rows if r.set == name]
        alone = top1(of_set, lambda q, i: q.relevance[i])
        kept = top1(of_set, lambda q, i: shipped.score(q.features[i]))
        if alone[1]:
            print(
                f"{name:<13} {alone[1]:>9}  {alone[0] / alone[1]:>15.3f}  {kept[0] / kept[1]:>7.3f}"
            )
    folds = sorted({r.fold for r in rows})
    by_fold = {
        "relevance alone": {
            f: _share(top1([r for r in rows if r.fold == f], lambda q, i: q.relevance[i]))
            for f in folds
        },
        "shipped": {
            f: _share(
                top1([r for r in rows if r.fold == f], lambda q, i: shipped.score(q.features[i]))
            )
            for f in folds
        },
        "fitted, other folds": cross_validated(rows),
    }
    print("\nbest sentence holds the answer, per train fold (mean, spread):")
    for label, shares in by_fold.items():
        cells = " ".join(f"{shares[f]:.3f}" for f in folds)
        print(f"  {label:<20} {cells}   {summary(shares)}")
    print("\nsimulated answers, per train fold: held / median characters")
    for label, make in (
        ("shipped", lambda f: shipped),
        ("fitted, other folds", lambda f: fit([r for r in rows if r.fold != f])),
    ):
        cells = []
        for f in folds:
            model = make(f)
            share, median = simulated(
                [r for r in rows if r.fold == f], lambda q, i, m=model: m.score(q.features[i])
            )
            cells.append(f"{share:.3f}/{median:.0f}")
        print(f"  {label:<20} {' '.join(cells)}")
    model = fit(rows)
    print(
        "weights",
        dict(zip(FEATURES, (round(w, 3) for w in model.weights), strict=True)),
        "bias",
        round(model.bias, 3),
    )
    if args.write:
        names = ", ".join(dict.fromkeys(r.set for r in rows))
        about = (
            "Offline answer choice p = 1 / (1 + exp(-(w . features + bias))): a pairwise "
            "ranking fit of 'this sentence holds the answer', scaled by a class-balanced "
            f"logistic fit, over the candidate sentences of the top-5 chunks of {len(rows)} "
            f"train questions of scripts/data/split.yaml ({names}); written by "
            "scripts/fit_answers.py --write, and by nothing else."
        )
        OUT.write_text(json.dumps(model.to_dict(about), indent=2) + "\n", encoding="utf-8")
        print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


def _share(found: tuple[int, int]) -> float:
    return found[0] / found[1] if found[1] else 0.0


if __name__ == "__main__":
    raise SystemExit(main())
