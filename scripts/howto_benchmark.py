#!/usr/bin/env python
"""How well the offline (extractive) backend answers questions over documentation sets.

Each set is a documentation site with a YAML file of labelled questions (scripts/data/,
format in ragcli/evaluation/howto.py; the sites: ragcli/evaluation/doc_sets.py). Each set is
ingested into its own store, and its questions are asked in standard mode with the
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

Which questions are asked is the split's (scripts/data/split.yaml): `--part train` (the
default) asks the train questions and reports each figure per fold with its spread (the
folds' largest minus smallest); `--part test` asks the test questions, once per change
that lands, and records that it did in scripts/data/test_reads.tsv.

    .venv/bin/python scripts/howto_benchmark.py [--set NAME|docs|all] [--part train|test]
        [--stores DIR] [--sources DIR] [--show] [--json] [--check-questions]
        [--setting KEY=VALUE] [--rule-off RULE] [--answer-model JSON] [--fold N]

`--stores DIR` keeps each set's store in DIR/NAME between runs (an ingest of unchanged
files is a no-op; a store made by other reading code is made again:
ragcli/evaluation/kept_stores.py); without it temporary stores are used. `--sources DIR`
holds the sites read from a package (fetched there when absent; default DIR/_sources with
--stores). `--docs` and `--questions` measure one site of your own, every question of it.
`--json` prints one object for one set, a list for `docs` and `all`, each with every
question's outcome. `--check-questions` ingests nothing: it checks that each question's
names or values are written in its set's pages, outside include directives. Progress goes
to stderr.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import subprocess
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

from ragcli.evaluation.doc_sets import SETS, fetch  # noqa: E402
from ragcli.evaluation.split import Split, load_split  # noqa: E402
from ragcli.llm.offline.rules import RULES  # noqa: E402

SQUAD = "squad-rhine"
# The pages of a site given with --docs: its Markdown, reST or built HTML.
DOCS_OF_YOUR_OWN = frozenset({".md", ".markdown", ".mdx", ".rst", ".html", ".htm"})
CHOICES = (*SETS, SQUAD, "docs", "all")
TEST_READS = ROOT / "scripts" / "data" / "test_reads.tsv"


@dataclass(frozen=True)
class Target:
    """A site to measure: its name, its pages and its questions."""

    name: str
    files: list[Path]
    docs: Path
    questions: Path
    split: bool  # its questions are split (a registered set); else all are asked


def progress(message: str, transient: bool = False) -> None:
    """A line on stderr; in a terminal, a `transient` one is overwritten by the next."""
    if sys.stderr.isatty():
        end = "" if transient else "\n"
        print(f"\r{message}\x1b[K", end=end, file=sys.stderr, flush=True)
    elif not transient:
        print(message, file=sys.stderr, flush=True)


def selected(target: Target, split: Split, part: str) -> list[tuple[Any, int]]:
    """The questions of `target` in `part`, each with its train fold (-1 for test, or for
    an unsplit site's questions)."""
    from ragcli.evaluation.howto import load_howtos

    questions = load_howtos(target.questions)
    if not target.split:
        return [(q, -1) for q in questions]
    return [
        (q, split.fold(target.name, q.question) if part == "train" else -1)
        for q in questions
        if split.part(target.name, q.question) == part
    ]


def measure_set(
    target: Target,
    questions: list[tuple[Any, int]],
    part: str,
    store: Path,
    show: TextIO | None,
    settings_given: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Ingest `target` into `store` and ask `questions`; the set's figures and each
    question's outcome. With `show`, every answer is written there with its sources and the
    raw markup found in it."""
    from ragcli import service
    from ragcli.config import load_settings
    from ragcli.evaluation import kept_stores
    from ragcli.evaluation.answer_defects import defects
    from ragcli.evaluation.howto import answers_it
    from ragcli.evaluation.markup import markup_examples, raw_markup

    overrides = {"store.path": str(store), "llm.provider": "extractive"}
    settings = load_settings(None, overrides | (settings_given or {}), environ={})
    if note := kept_stores.prepare(store, kept_stores.reading_fingerprint()):
        progress(note)
    progress(f"{target.name}: ingesting {len(target.files)} files into {store} …")
    started = time.perf_counter()
    report = service.ingestor(settings).run(target.files, settings.store.collection)
    ingest_seconds = time.perf_counter() - started
    if report.interrupted:
        raise KeyboardInterrupt
    resources = service.Resources(settings)
    outcomes: list[dict[str, Any]] = []
    started = time.perf_counter()
    for number, (q, fold) in enumerate(questions, 1):
        progress(f"{target.name}: question {number}/{len(questions)}", transient=True)
        result = service.ask(settings, q.question, resources=resources)
        answered = answers_it(result.answer, q)
        sourced = any(answers_it(s.content, q) for s in result.sources)
        kinds = raw_markup(result.answer)
        typed = result.typed_answer()
        outcomes.append(
            {
                "question": q.question,
                "kind": q.kind,
                "fold": fold,
                "in_answer": answered,
                "in_sources": sourced,
                "chars": len(result.answer),
                "raw_markup": kinds,
                "defects": defects(typed) if typed else [],
                "declined": typed is None or typed.empty,
            }
        )
        if show:
            mark = "✓" if answered else ("·" if sourced else "✗")
            print(f"\n{mark} [{q.kind}] {q.question}  [{', '.join(q.names)}]", file=show)
            for s in result.sources:
                where = Path(s.metadata.source_file)
                if where.is_relative_to(target.docs):
                    where = where.relative_to(target.docs)
                print(f"    source: {where} > {s.metadata.place}", file=show)
            if kinds:
                examples = markup_examples(result.answer)
                print(f"    raw markup: {', '.join(kinds)}: {examples}", file=show)
            print(result.answer, file=show, flush=True)
    ask_seconds = time.perf_counter() - started
    progress(f"{target.name}: {len(questions)} questions asked")
    return {
        "set": target.name,
        "docs": str(target.docs),
        "part": part if target.split else "all",
        "files": len(target.files),
        "chunks_added": report.chunks_added,
        **figures(outcomes),
        "folds": fold_figures(outcomes) if part == "train" and target.split else None,
        "ingest_seconds": round(ingest_seconds, 1),
        "seconds_per_question": round(ask_seconds / len(questions), 2) if questions else 0,
        "questions": outcomes,
    }


def figures(outcomes: list[dict[str, Any]]) -> dict[str, Any]:
    """A set's figures from its questions' outcomes."""
    tally = {kind: Counter[str]() for kind in ("howto", "factoid")}
    markup_kinds, defect_kinds = Counter[str](), Counter[str]()
    for o in outcomes:
        counts = tally[o["kind"]]
        counts["questions"] += 1
        counts["in_answer"] += o["in_answer"]
        counts["in_sources"] += o["in_sources"]
        markup_kinds.update(o["raw_markup"])
        defect_kinds.update(o.get("defects", ()))
    lengths = [o["chars"] for o in outcomes]
    return {
        "howto": dict(tally["howto"]),
        "factoid": dict(tally["factoid"]),
        "median_answer_chars": statistics.median(lengths) if lengths else 0,
        "raw_markup_answers": sum(bool(o["raw_markup"]) for o in outcomes),
        "raw_markup_kinds": dict(markup_kinds),
        "flawed_answers": sum(bool(o.get("defects")) for o in outcomes),
        "defect_kinds": dict(defect_kinds),
        "declined_answerable": sum(o.get("declined", False) and o["in_sources"] for o in outcomes),
    }


def fold_figures(outcomes: list[dict[str, Any]]) -> dict[str, Any]:
    """Per train fold: the share of questions whose name or value is in the answer, and
    the median answer length."""
    folds = sorted({o["fold"] for o in outcomes})
    found = {f: [o for o in outcomes if o["fold"] == f] for f in folds}
    return {
        str(f): {
            "questions": len(found[f]),
            "in_answer": round(sum(o["in_answer"] for o in found[f]) / len(found[f]), 3),
            "median_answer_chars": statistics.median(o["chars"] for o in found[f]),
        }
        for f in folds
    }


def spread(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """Every documentation set's train questions pooled by fold: per fold the share of
    questions answered (name or value in the answer) and the median answer length; their
    mean and spread (largest minus smallest)."""
    pooled: dict[int, list[dict[str, Any]]] = {}
    for r in reports:
        if r["set"] == SQUAD or r.get("part") != "train":
            continue
        for o in r["questions"]:
            pooled.setdefault(o["fold"], []).append(o)
    if len(pooled) < 2:
        return {}
    answered = {f: sum(o["in_answer"] for o in os) / len(os) for f, os in pooled.items()}
    medians = {f: statistics.median(o["chars"] for o in os) for f, os in pooled.items()}
    flawed = {f: sum(bool(o.get("defects")) for o in os) / len(os) for f, os in pooled.items()}
    # declined though the sources hold the answer
    declined = {
        f: sum(bool(o.get("declined")) and o["in_sources"] for o in os) / len(os)
        for f, os in pooled.items()
    }
    return {
        "folds": {
            str(f): {
                "in_answer": round(answered[f], 3),
                "median": medians[f],
                "flawed": round(flawed[f], 3),
                "declined": round(declined[f], 3),
            }
            for f in sorted(pooled)
        },
        "in_answer_mean": round(statistics.fmean(answered.values()), 3),
        "in_answer_spread": round(max(answered.values()) - min(answered.values()), 3),
        "median_mean": round(statistics.fmean(medians.values()), 1),
        "median_spread": max(medians.values()) - min(medians.values()),
    }


def measure_squad(
    stores: Path | None, split: Split, part: str, fold: int | None = None
) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "scripts"))
    from answer_benchmark import measure

    progress(f"{SQUAD}: ingesting the article and asking its {part} questions …")
    started = time.perf_counter()
    report = measure(
        shared_eval_dir() / SQUAD,
        workdir=stores / SQUAD if stores else None,
        keep=lambda question: (
            split.part(SQUAD, question) == part
            and (fold is None or split.fold(SQUAD, question) == fold)
        ),
        fold=(lambda question: split.fold(SQUAD, question)) if part == "train" else None,
    )
    return {
        "set": SQUAD,
        "part": part,
        **report,
        "seconds": round(time.perf_counter() - started, 1),
    }


def train_run(stores: Path, *options: str, failed: str, name: str = "all") -> str:
    """This script on the train part of set `name` (`--set all --part train --json`, with
    `options`) in a process of its own: its JSON. A run that fails is one line, `failed`
    and its last line of stderr (SystemExit). scripts/crossfit_answers.py and
    scripts/ablate_rules.py measure with it."""
    command = [sys.executable, str(Path(__file__).resolve()), "--set", name, "--part", "train"]
    command += ["--stores", str(stores), "--json", *options]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        tail = result.stderr.strip().splitlines()[-1:] or ["no output"]
        raise SystemExit(f"{failed}: {tail[0]}")
    return result.stdout


def shared_eval_dir() -> Path:
    from ragcli.evaluation.doc_sets import shared_eval

    return shared_eval()


def check_questions(target: Target) -> list[str]:
    """The questions of `target` whose names or values no page states outside an include
    directive (a question the docs cannot answer measures nothing)."""
    from ragcli.evaluation.howto import answers_it, load_howtos
    from ragcli.evaluation.markup import PATTERNS

    pages = [PATTERNS["include"].sub(" ", page_text(p)) for p in target.files]
    # reST writes a literal in two backticks (``params``), as an answer writes it in one.
    pages = [PATTERNS["rest-literal"].sub(lambda m: m.group()[1:-1], page) for page in pages]
    return [
        f"{target.name}: {q.question} [{', '.join(q.names)}]"
        for q in load_howtos(target.questions)
        if not any(answers_it(page, q) for page in pages)
    ]


def page_text(path: Path) -> str:
    """A page's text as a question is checked against it: Markdown and reST as written; a
    built HTML page as ragcli's ingest reads it (its main content, its tags gone, `<code>`
    as a code span)."""
    if path.suffix not in (".html", ".htm"):
        return path.read_text(encoding="utf-8")
    from ragcli.ingest.loaders.markup import load_html

    return "\n\n".join(section.text for section in load_html(path).sections)


def describe(report: dict[str, Any]) -> str:
    if report["set"] == SQUAD:
        folds = ""
        if report.get("folds"):
            values = [f["answer_contains_gold"] for f in report["folds"].values()]
            folds = f" (folds {min(values):.3f}–{max(values):.3f})"
        return textwrap.fill(
            f"{SQUAD} ({report['part']}): {report['questions']} answerable questions · gold "
            f"answer in the answer {report['answer_contains_gold']:.3f}{folds} · hit@5 "
            f"{report['hit_at_5']:.3f} · median answer {report['median_answer_chars']:.0f} "
            f"characters · {report['seconds']:.0f} s",
            width=78,
            subsequent_indent="  ",
        )
    howto, factoid = report["howto"], report["factoid"]
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(report["raw_markup_kinds"].items()))
    lines = [
        f"{report['set']} ({report['part']}; {report['files']} files, ingest "
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
    flaws = ", ".join(f"{k} {n}" for k, n in sorted(report.get("defect_kinds", {}).items()))
    lines.append(
        f"  flawed answers {report.get('flawed_answers', 0)}"
        + (f" ({flaws})" if flaws else "")
        + f"; declined though the sources hold it {report.get('declined_answerable', 0)}"
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


def record_test_read(names: list[str]) -> None:
    """A line in scripts/data/test_reads.tsv: when the test part was read, at which commit,
    for which sets. Reading it once per change that lands is the rule; this makes it seen."""
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    new = not TEST_READS.exists()
    with TEST_READS.open("a", encoding="utf-8") as ledger:
        if new:
            ledger.write("when\tcommit\tsets\n")
        ledger.write(f"{when}\t{commit}{'+changes' if dirty else ''}\t{','.join(names)}\n")


def targets(args: argparse.Namespace, names: list[str], sources: Path | None) -> dict[str, Target]:
    found = {}
    for name in names:
        if name == SQUAD:
            continue
        if args.docs or args.questions:
            base = SETS.get(name)
            docs = args.docs or (fetch(base, sources) if base and sources else base.docs(sources))  # type: ignore[union-attr]
            questions = args.questions or base.questions  # type: ignore[union-attr]
            files = sorted(p for p in docs.rglob("*") if p.suffix in DOCS_OF_YOUR_OWN)
            found[name] = Target(name, files, docs, questions, split=False)
            continue
        doc_set = SETS[name]
        docs = fetch(doc_set, sources) if sources else doc_set.docs(sources)
        if not docs.is_dir():
            raise SystemExit(f"howto_benchmark: {docs}: no such folder")
        found[name] = Target(name, doc_set.files(docs), docs, doc_set.questions, split=True)
    return found


def chosen(name: str) -> list[str]:
    if name == "all":
        return [*SETS, SQUAD]
    if name == "docs":
        return list(SETS)
    return [name]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--set",
        choices=CHOICES,
        default="typer",
        dest="name",
        metavar="SET",
        help=f"one of {', '.join(CHOICES)} (docs: every site; all: and {SQUAD})",
    )
    parser.add_argument(
        "--part",
        choices=("train", "test"),
        default="train",
        help="the split's train questions (default), or its test questions: once per change "
        "that lands, recorded in scripts/data/test_reads.tsv",
    )
    parser.add_argument(
        "--stores", type=Path, metavar="DIR", help="keep each set's store in DIR/SET"
    )
    parser.add_argument(
        "--sources",
        type=Path,
        metavar="DIR",
        help="the sites read from packages (default DIR/_sources of --stores)",
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
    parser.add_argument(
        "--answer-model",
        type=Path,
        metavar="JSON",
        help="answer with this model file in place of ragcli/data/answer_choice.json "
        "(train part only: scripts/crossfit_answers.py measures fits on other folds)",
    )
    parser.add_argument("--fold", type=int, help="train part: the questions of this fold only")
    parser.add_argument(
        "--rule-off",
        action="append",
        default=[],
        choices=sorted(RULES),
        metavar="RULE",
        help="switch off one of the offline answer's hand rules (ragcli/llm/offline/rules.py;"
        " train part only: scripts/ablate_rules.py measures each)",
    )
    args = parser.parse_args()
    names = chosen(args.name)
    if (args.store or args.docs or args.questions) and (len(names) > 1 or names == [SQUAD]):
        parser.error("--store, --docs and --questions apply to one documentation set")
    from ragcli.overrides import parse_assignments

    split = load_split()
    sources = args.sources or (args.stores / "_sources" if args.stores else None)
    sets = targets(args, names, sources)
    if args.check_questions:
        missing = [line for t in sets.values() for line in check_questions(t)]
        print("\n".join(missing) or f"every question of {', '.join(sets)} is stated in its docs")
        return 1 if missing else 0
    if args.part == "test" and (args.rule_off or args.answer_model or args.fold is not None):
        parser.error("--rule-off, --answer-model and --fold measure on the train part only")
    if args.part == "test" and not (args.docs or args.questions):
        record_test_read(names)
    from ragcli.llm.offline import rules
    from ragcli.llm.offline.model import AnswerModel, bundled, measuring

    try:
        answer_model = (
            AnswerModel.from_dict(json.loads(args.answer_model.read_text(encoding="utf-8")))
            if args.answer_model
            else bundled()
        )
    except (OSError, ValueError, KeyError, TypeError) as error:
        parser.error(f"--answer-model {args.answer_model}: not a model file ({error})")
    reports = []
    try:
        with (
            tempfile.TemporaryDirectory() as work,
            rules.switched_off(*args.rule_off),
            measuring(answer_model),
        ):
            for name in names:
                if name == SQUAD:
                    reports.append(measure_squad(args.stores, split, args.part, args.fold))
                    continue
                store = args.store or (args.stores or Path(work)) / name
                show = (sys.stderr if args.json else sys.stdout) if args.show else None
                target = sets[name]
                questions = [
                    (q, fold)
                    for q, fold in selected(target, split, args.part)
                    if args.fold is None or fold == args.fold
                ]
                if not questions:
                    continue
                reports.append(
                    measure_set(
                        target,
                        questions,
                        args.part,
                        store,
                        show,
                        parse_assignments(args.setting),
                    )
                )
    except KeyboardInterrupt:
        progress("howto_benchmark: interrupted")
        return 130
    pooled = spread(reports)
    if args.json:
        out: Any = reports if len(reports) > 1 else reports[0]
        if pooled:
            out = {"sets": reports, "train_folds": pooled}
        print(json.dumps(out, indent=2))
        return 0
    print("\n".join(describe(r) for r in reports))
    if len([r for r in reports if r["set"] != SQUAD]) > 1:
        print("\n" + table(reports))
    if pooled:
        print(
            f"\ntrain folds, every site pooled: name or value in the answer "
            f"{pooled['in_answer_mean']:.3f} (spread {pooled['in_answer_spread']:.3f}), "
            f"median answer {pooled['median_mean']:.0f} (spread {pooled['median_spread']:.0f})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
