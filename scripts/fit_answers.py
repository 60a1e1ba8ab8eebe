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
import itertools
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ragcli.evaluation.answer_fit import (  # noqa: E402
    DUPLICATE_COSINES,
    MEDIAN_CHARS,
    Rows,
    cross_validated_answers,
    cross_validated_top1,
    feature_names,
    fit_model,
    folds,
    load_rows,
    scores,
    share,
    simulate,
    summary,
    top1,
)
from ragcli.evaluation.doc_sets import SETS, fetch, shared_eval  # noqa: E402
from ragcli.evaluation.split import load_split  # noqa: E402
from ragcli.llm.offline.model import AnswerModel, bundled  # noqa: E402

DATA = ROOT / "tests" / "data"
OUT = ROOT / "ragcli" / "data" / "answer_choice.json"
SQUAD = "squad-rhine"


@dataclass
class Question:
    text: str
    expect: list[str]
    how: str = "text"  # text: a plain substring; squad: SQuAD's normalisation; howto/factoid


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
    from ragcli.llm.offline.selection import sameness

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
            if s.features.lead_in:  # what it introduces is quoted with it
                content = chunks[s.candidate.chunk_number - 1].content
                text += "\n" + introduced(content, s.candidate.position)[0]
            labels.append(holds(text, question))
            sizes.append(len(text))
            texts.append(text)
        near = [
            [i, j, round(value, 4)]
            for i, j in itertools.combinations(range(len(scored)), 2)
            if (value := sameness(scored[i].candidate, scored[j].candidate))
            >= DUPLICATE_COSINES[0]
        ]
        out.append(
            Rows(
                name,
                split.fold(name, question.text),
                question.text,
                [list(s.features.vector()) for s in scored],
                labels,
                [s.relevance for s in scored],
                sizes,
                texts,
                near,
            )
        )
    return out


def report(rows: list[Rows], features: list[str]) -> AnswerModel:
    """Print the shipped model's and a refit's figures per set and per train fold; return
    the model fitted on every train fold."""
    shipped = bundled()
    print("set           questions  relevance alone  shipped")
    for name in dict.fromkeys(r.set for r in rows):
        of_set = [r for r in rows if r.set == name]
        alone = top1(of_set, lambda q: np.array(q.relevance))
        kept = top1(of_set, lambda q: scores(shipped, q))
        if alone[1]:
            print(f"{name:<13} {alone[1]:>9}  {share(alone):>15.3f}  {share(kept):>7.3f}")
    every = folds(rows)
    by_fold = {
        "relevance alone": {
            f: share(top1([r for r in rows if r.fold == f], lambda q: np.array(q.relevance)))
            for f in every
        },
        "shipped": {
            f: share(top1([r for r in rows if r.fold == f], lambda q: scores(shipped, q)))
            for f in every
        },
        "fitted, other folds": cross_validated_top1(rows, features),
    }
    print("\nbest unit holds the answer, per train fold (mean, spread):")
    for label, per_fold in by_fold.items():
        cells = " ".join(f"{per_fold[f]:.3f}" for f in every)
        print(f"  {label:<20} {cells}   {summary(per_fold)}")
    print("\nsimulated answers, per train fold: held / median characters")
    shipped_answers = {
        f: simulate(
            [r for r in rows if r.fold == f], lambda q: scores(shipped, q), shipped.selection
        )
        for f in every
    }
    for label, per_fold_answers in (
        ("shipped", shipped_answers),
        ("fitted, other folds", cross_validated_answers(rows, features)),
    ):
        cells = " ".join(
            f"{per_fold_answers[f].held:.3f}/{per_fold_answers[f].median_chars:.0f}" for f in every
        )
        held = {f: a.held for f, a in per_fold_answers.items()}
        print(f"  {label:<20} {cells}   held {summary(held)}")
    model = fit_model(rows, features)
    print(
        "weights", {k: round(v, 3) for k, v in model.weights.items()}, "bias", round(model.bias, 3)
    )
    print("selection", model.selection)
    return model


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stores", type=Path, help="keep each set's store in DIR/SET")
    parser.add_argument("--write", action="store_true", help="write answer_choice.json")
    parser.add_argument("--dump", type=Path, help="also write the rows here (JSON)")
    parser.add_argument("--rows", type=Path, help="read the rows from here, ask nothing")
    parser.add_argument("--only", nargs="+", help="these sets only")
    parser.add_argument(
        "--features",
        help="fit on these features only (comma-separated; all: every one; default: "
        "answer_fit.MODEL_FEATURES)",
    )
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
    features = feature_names(args.features)
    model = report(rows, features)
    if args.write:
        names = ", ".join(dict.fromkeys(r.set for r in rows))
        about = (
            "The offline answer's model (ragcli/llm/offline/model.py): the scorer's weights, "
            "a pairwise ranking fit of 'this unit holds the answer' scaled by a "
            "class-balanced logistic fit, and the selector's parameters, chosen on a grid "
            "for the most answers at a median of at most "
            f"{MEDIAN_CHARS['instruction']} characters for how-to questions and "
            f"{MEDIAN_CHARS['other']} for the others (where none keeps to it, the shortest); "
            "over "
            f"the candidate units of the top-5 chunks of {len(rows)} train questions of "
            f"scripts/data/split.yaml ({names}). Written by scripts/fit_answers.py --write, "
            "and by nothing else."
        )
        OUT.write_text(json.dumps(model.to_dict(about), indent=2) + "\n", encoding="utf-8")
        print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
