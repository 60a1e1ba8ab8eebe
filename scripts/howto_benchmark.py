#!/usr/bin/env python
"""How well the offline (extractive) backend answers questions over documentation sets.

Each set is a folder of Markdown with a YAML file of labelled questions (scripts/data/,
format in ragcli/evaluation/howto.py): Typer's tutorial (../shared/eval/typer-docs/) and
the four sets of ../shared/eval/docs/ (httpx, pydantic, rust-book, sqlmodel). Each set is
ingested into its own store, and every question is asked in standard mode with the
extractive backend. Per set it reports:
- how-to questions: the answer holds a name that solves the problem (a function,
  parameter, class, option) as code: in backticks, called, assigned or dotted, or, for a
  name that is not a plain word (`is_eager`, `CliRunner`), anywhere;
- factoid questions: the answer states the value (a number, a default, a version);
- in sources: one of the retrieved top-k sources holds it (the ceiling of the above);
- the median answer length in characters;
- raw markup: answers that still hold reST roles or literals, `{#anchor}` attribute lists,
  HTML, include directives or admonition openers (ragcli/evaluation/markup.py).
`--set squad-rhine` (and `all`) adds scripts/answer_benchmark.py's figures on the SQuAD
Rhine article: a gold answer in the answer, and the median answer length.

    .venv/bin/python scripts/howto_benchmark.py [--set NAME|docs|all] [--split all|tune|held]
        [--stores DIR] [--show] [--json] [--check-questions] [--setting KEY=VALUE]

`--stores DIR` keeps each set's store in DIR/NAME between runs (an ingest of unchanged
files is a no-op; a store made by other reading code is made again:
ragcli/evaluation/kept_stores.py); without it temporary stores are used. `--json` prints
one object for one set, a list for `docs` and `all`. `--check-questions` ingests nothing:
it checks that each question's names or values are written in its set's pages, outside
include directives. Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import textwrap
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

EVAL = ROOT.parent / "shared" / "eval"
DATA = ROOT / "scripts" / "data"
SQUAD = "squad-rhine"
DOC_SUFFIXES = {".md", ".rst"}  # a set given with --docs may be Sphinx reST


@dataclass(frozen=True)
class DocSet:
    name: str
    docs: Path
    questions: Path


SETS = {
    s.name: s
    for s in (
        DocSet("typer", EVAL / "typer-docs", DATA / "typer_howto.yaml"),
        DocSet("httpx", EVAL / "docs" / "httpx", DATA / "httpx_questions.yaml"),
        DocSet("pydantic", EVAL / "docs" / "pydantic", DATA / "pydantic_questions.yaml"),
        DocSet("rust-book", EVAL / "docs" / "rust-book", DATA / "rust_book_questions.yaml"),
        DocSet("sqlmodel", EVAL / "docs" / "sqlmodel", DATA / "sqlmodel_questions.yaml"),
    )
}
CHOICES = (*SETS, SQUAD, "docs", "all")


def progress(message: str, transient: bool = False) -> None:
    """A line on stderr; in a terminal, a `transient` one is overwritten by the next."""
    if sys.stderr.isatty():
        end = "" if transient else "\n"
        print(f"\r{message}\x1b[K", end=end, file=sys.stderr, flush=True)
    elif not transient:
        print(message, file=sys.stderr, flush=True)


def chosen(name: str) -> list[str]:
    if name == "all":
        return [*SETS, SQUAD]
    if name == "docs":
        return list(SETS)
    return [name]


def measure_set(
    doc_set: DocSet,
    split: str,
    store: Path,
    show: TextIO | None,
    settings_given: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Ingest `doc_set` into `store` and ask its questions; the set's figures. With `show`,
    every answer is written there with its sources and the raw markup found in it."""
    from ragcli import service
    from ragcli.config import load_settings
    from ragcli.evaluation import kept_stores
    from ragcli.evaluation.howto import answers_it, load_howtos
    from ragcli.evaluation.markup import markup_examples, raw_markup

    if not doc_set.docs.is_dir():
        raise SystemExit(f"howto_benchmark: {doc_set.docs}: no such folder")
    questions = load_howtos(doc_set.questions)
    if split != "all":
        questions = [q for q in questions if q.held_out == (split == "held")]
    overrides = {"store.path": str(store), "llm.provider": "extractive"}
    settings = load_settings(None, overrides | (settings_given or {}), environ={})
    files = sorted(p for p in doc_set.docs.rglob("*") if p.suffix in DOC_SUFFIXES)
    if note := kept_stores.prepare(store, kept_stores.reading_fingerprint()):
        progress(note)
    progress(f"{doc_set.name}: ingesting {len(files)} files into {store} …")
    started = time.perf_counter()
    report = service.ingestor(settings).run(files, settings.store.collection)
    ingest_seconds = time.perf_counter() - started
    if report.interrupted:
        raise KeyboardInterrupt
    resources = service.Resources(settings)
    tally = {kind: Counter[str]() for kind in ("howto", "factoid")}
    lengths: list[int] = []
    markup_kinds = Counter[str]()
    marked_answers = 0
    started = time.perf_counter()
    for number, q in enumerate(questions, 1):
        progress(f"{doc_set.name}: question {number}/{len(questions)}", transient=True)
        result = service.ask(settings, q.question, resources=resources)
        answered = answers_it(result.answer, q)
        sourced = any(answers_it(s.content, q) for s in result.sources)
        counts = tally[q.kind]
        counts["questions"] += 1
        counts["in_answer"] += answered
        counts["in_sources"] += sourced
        lengths.append(len(result.answer))
        kinds = raw_markup(result.answer)
        markup_kinds.update(kinds)
        marked_answers += bool(kinds)
        if show:
            mark = "✓" if answered else ("·" if sourced else "✗")
            print(f"\n{mark} [{q.kind}] {q.question}  [{', '.join(q.names)}]", file=show)
            for s in result.sources:
                where = Path(s.metadata.source_file)
                if where.is_relative_to(doc_set.docs):
                    where = where.relative_to(doc_set.docs)
                print(f"    source: {where} > {s.metadata.place}", file=show)
            if kinds:
                examples = markup_examples(result.answer)
                print(f"    raw markup: {', '.join(kinds)}: {examples}", file=show)
            print(result.answer, file=show, flush=True)
    ask_seconds = time.perf_counter() - started
    progress(f"{doc_set.name}: {len(questions)} questions asked")
    return {
        "set": doc_set.name,
        "docs": str(doc_set.docs),
        "split": split,
        "files": len(files),
        "chunks_added": report.chunks_added,
        "howto": dict(tally["howto"]),
        "factoid": dict(tally["factoid"]),
        "median_answer_chars": statistics.median(lengths) if lengths else 0,
        "raw_markup_answers": marked_answers,
        "raw_markup_kinds": dict(markup_kinds),
        "ingest_seconds": round(ingest_seconds, 1),
        "seconds_per_question": round(ask_seconds / len(questions), 2) if questions else 0,
    }


def measure_squad(stores: Path | None) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "scripts"))
    from answer_benchmark import measure

    progress(f"{SQUAD}: ingesting the article and asking its questions …")
    started = time.perf_counter()
    report = measure(EVAL / SQUAD, workdir=stores / SQUAD if stores else None)
    return {"set": SQUAD, **report, "seconds": round(time.perf_counter() - started, 1)}


def check_questions(doc_set: DocSet) -> list[str]:
    """The questions of `doc_set` whose names or values no page states outside an include
    directive (a question the docs cannot answer measures nothing)."""
    from ragcli.evaluation.howto import answers_it, load_howtos
    from ragcli.evaluation.markup import PATTERNS

    pages = [
        PATTERNS["include"].sub(" ", p.read_text(encoding="utf-8"))
        for p in sorted(doc_set.docs.rglob("*"))
        if p.suffix in DOC_SUFFIXES
    ]
    # reST writes a literal in two backticks (``params``), as an answer writes it in one.
    pages = [PATTERNS["rest-literal"].sub(lambda m: m.group()[1:-1], page) for page in pages]
    return [
        f"{doc_set.name}: {q.question} [{', '.join(q.names)}]"
        for q in load_howtos(doc_set.questions)
        if not any(answers_it(page, q) for page in pages)
    ]


def share(part: int, whole: int) -> str:
    return f"{part}/{whole}" if whole else "-"


def describe(report: dict[str, Any]) -> str:
    if report["set"] == SQUAD:
        return textwrap.fill(
            f"{SQUAD}: {report['questions']} answerable questions · gold answer in the "
            f"answer {report['answer_contains_gold']:.3f} · hit@5 {report['hit_at_5']:.3f} · "
            f"median answer {report['median_answer_chars']:.0f} characters · "
            f"{report['seconds']:.0f} s",
            width=78,
            subsequent_indent="  ",
        )
    howto, factoid = report["howto"], report["factoid"]
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(report["raw_markup_kinds"].items()))
    lines = [
        f"{report['set']} ({report['split']}; {report['files']} files, ingest "
        f"{report['ingest_seconds']:.0f} s, {report['seconds_per_question']:.1f} s/question)"
    ]
    for label, counts, found in (("how-to", howto, "name"), ("factoid", factoid, "value")):
        if counts.get("questions"):
            lines.append(
                f"  {label:<7} {counts['questions']:>3}: {found} in answer "
                f"{counts['in_answer']}, in sources {counts['in_sources']}"
            )
    lines.append(f"  median answer {report['median_answer_chars']:.0f} characters")
    markup = f"raw markup in {report['raw_markup_answers']} of {len_answers(report)} answers"
    lines.extend(
        textwrap.wrap(
            markup + (f": {kinds}" if kinds else ""),
            width=78,
            initial_indent="  ",
            subsequent_indent="    ",
            break_on_hyphens=False,
        )
    )
    return "\n".join(lines)


def len_answers(report: dict[str, Any]) -> int:
    return int(report["howto"].get("questions", 0) + report["factoid"].get("questions", 0))


def table(reports: list[dict[str, Any]]) -> str:
    """One row per documentation set, under 80 columns."""
    rows = [
        f"{'set':<10} {'how-to ans/src':>16} {'factoid ans/src':>16} {'median':>7} {'markup':>7}"
    ]
    for r in reports:
        if r["set"] == SQUAD:
            continue
        h, f = r["howto"], r["factoid"]
        how, fact = (
            f"{c['in_answer']}/{c['in_sources']} of {c['questions']}" if c else "-" for c in (h, f)
        )
        rows.append(
            f"{r['set']:<10} {how:>16} {fact:>16} {r['median_answer_chars']:>7.0f} "
            f"{r['raw_markup_answers']:>7}"
        )
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--set",
        choices=CHOICES,
        default="typer",
        dest="name",
        metavar="SET",
        help=f"one of {', '.join(CHOICES)} (docs: the five sets; all: and {SQUAD})",
    )
    parser.add_argument("--split", choices=("all", "tune", "held"), default="all")
    parser.add_argument(
        "--stores", type=Path, metavar="DIR", help="keep each set's store in DIR/SET"
    )
    parser.add_argument("--store", type=Path, metavar="DIR", help="one set: keep its store here")
    parser.add_argument("--docs", type=Path, metavar="DIR", help="one set: read these docs")
    parser.add_argument("--questions", type=Path, metavar="YAML", help="one set: these questions")
    parser.add_argument(
        "--show",
        action="store_true",
        help="print every answer and its sources (to stderr with --json)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument(
        "--setting",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a setting for the asks, e.g. retrieval.expand=prf (repeatable)",
    )
    parser.add_argument(
        "--check-questions", action="store_true", help="check the questions against the docs"
    )
    args = parser.parse_args()
    names = chosen(args.name)
    if (args.store or args.docs or args.questions) and (len(names) > 1 or names == [SQUAD]):
        parser.error("--store, --docs and --questions apply to one documentation set")
    from ragcli.overrides import parse_assignments

    sets = {
        name: DocSet(name, args.docs or SETS[name].docs, args.questions or SETS[name].questions)
        for name in names
        if name != SQUAD
    }
    if args.check_questions:
        missing = [line for s in sets.values() for line in check_questions(s)]
        print("\n".join(missing) or f"every question of {', '.join(sets)} is stated in its docs")
        return 1 if missing else 0
    reports = []
    try:
        with tempfile.TemporaryDirectory() as work:
            for name in names:
                if name == SQUAD:
                    reports.append(measure_squad(args.stores))
                    continue
                store = args.store or (args.stores or Path(work)) / name
                show = (sys.stderr if args.json else sys.stdout) if args.show else None
                reports.append(
                    measure_set(
                        sets[name], args.split, store, show, parse_assignments(args.setting)
                    )
                )
    except KeyboardInterrupt:
        progress("howto_benchmark: interrupted")
        return 130
    if args.json:
        print(json.dumps(reports if len(reports) > 1 else reports[0], indent=2))
        return 0
    print("\n".join(describe(r) for r in reports))
    if len([r for r in reports if r["set"] != SQUAD]) > 1:
        print("\n" + table(reports))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
