#!/usr/bin/env python
"""How well the offline (extractive) backend answers how-to questions over technical docs.

Ingests a folder of Markdown (Typer's tutorial by default) into a store, asks each question
of scripts/data/typer_howto.yaml in standard mode with the extractive backend, and reports:
- name in answer:  the answer holds a name that solves the problem (a function, parameter,
                   class, option) as code: in backticks, called, assigned or dotted, or, for
                   a name that is not a plain word (`is_eager`, `CliRunner`), anywhere;
- name in sources: one of the retrieved top-k sources holds it (the ceiling of the above);
- the median answer length in characters.

    .venv/bin/python scripts/howto_benchmark.py [--split all|tune|held] [--store DIR] [--show]
        [--set retrieval.expand=prf]

`--store DIR` keeps the ingested store between runs (an ingest of unchanged files is a
no-op); without it a temporary store is used.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

QUESTIONS = ROOT / "scripts" / "data" / "typer_howto.yaml"
DOCS = ROOT.parent / "shared" / "eval" / "typer-docs"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=Path, default=DOCS)
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--split", choices=("all", "tune", "held"), default="all")
    parser.add_argument("--store", type=Path, default=None, help="keep the store here")
    parser.add_argument("--show", action="store_true", help="print every answer")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a setting for the asks, e.g. retrieval.expand=prf (repeatable)",
    )
    args = parser.parse_args()

    from ragcli import service
    from ragcli.config import load_settings
    from ragcli.evaluation.howto import load_howtos, names_any, names_it
    from ragcli.overrides import parse_assignments

    questions = load_howtos(args.questions)
    if args.split != "all":
        questions = [q for q in questions if q.held_out == (args.split == "held")]
    with tempfile.TemporaryDirectory() as work:
        store = args.store or Path(work) / "store"
        overrides = {"store.path": str(store), "llm.provider": "extractive"}
        settings = load_settings(None, overrides | parse_assignments(args.set), environ={})
        files = sorted(p for p in args.docs.rglob("*.md"))
        service.ingestor(settings).run(files, settings.store.collection)
        resources = service.Resources(settings)
        in_answer = in_sources = 0
        lengths = []
        for q in questions:
            result = service.ask(settings, q.question, resources=resources)
            answered = names_any(result.answer, q)
            sourced = any(names_it(s.content, n) for s in result.sources for n in q.names)
            in_answer += answered
            in_sources += sourced
            lengths.append(len(result.answer))
            if args.show:
                mark = "✓" if answered else ("·" if sourced else "✗")
                print(f"\n{mark} {q.question}  [{', '.join(q.names)}]\n{result.answer}")
    report = {
        "docs": args.docs.name,
        "split": args.split,
        "questions": len(questions),
        "name_in_answer": in_answer,
        "name_in_sources": in_sources,
        "median_answer_chars": statistics.median(lengths),
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"{args.docs.name} ({args.split}): {len(questions)} how-to questions · name in "
            f"answer {in_answer} · name in sources {in_sources} · median answer "
            f"{report['median_answer_chars']:.0f} characters"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
