#!/usr/bin/env python
"""tos mode's documents-stage signals (`tos.hybrid`) on labelled ToS questions.

Ingests the sample corpus (its documents into `docs`, its FAQ into `qna`, as the tests do),
asks every ToS question of tests/data/labelled_questions.yaml (`tos:`) and
tests/data/tos_questions.yaml in tos mode with the offline backend, once per signal set,
and reports per set:
- band accuracy: the outcome is right for the question's kind (a FAQ paraphrase gets the
  FAQ's answer; a policy question an answer or a limited answer; a vague one no confident
  answer; an off-topic or uncovered one a clarification or a handoff);
- evidence in sources: a policy question's expected text is in the chunks the answer drew
  on (top_k), and the same at rank 1;
- seconds per question.

    .venv/bin/python scripts/tos_signals_benchmark.py [--store DIR] [--rules FILE] [--json]
        [--signals bm25,rules] [--set retrieval.expand=prf] [--part train|test]

tests/data/tos_questions.yaml's questions are split by scripts/data/split.yaml (set `tos`):
`--part train` (the default) asks its train questions, `--part test` its test ones (once
per change that lands); labelled_questions.yaml's ToS questions are the tests' and always
asked.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SAMPLE = ROOT / "sample_corpus"
RULES = SAMPLE / "tos_rules.yaml"
SIGNAL_SETS = [
    [],
    ["bm25"],
    ["rules"],
    ["triplets"],
    ["bm25", "rules"],
    ["bm25", "triplets"],
    ["rules", "triplets"],
    ["bm25", "rules", "triplets"],
]
ANSWERED = ("tos_answer", "tos_limited", "qna_answer", "qna_limited")
DECLINED = ("clarification", "handoff")


@dataclass
class Case:
    question: str
    kind: str  # faq | policy | vague | off_topic | declined
    expect: str | None = None
    earlier: bool = False  # in labelled_questions.yaml, written before the signals


def cases(part: str = "train") -> list[Case]:
    from ragcli.evaluation.split import load_split

    split = load_split()
    labelled = yaml.safe_load((ROOT / "tests/data/labelled_questions.yaml").read_text())["tos"]
    found = [Case(c["question"], "faq") for c in labelled["faq_exact"]]
    found += [Case(c["question"], "policy", c["expect"], True) for c in labelled["policy_only"]]
    found += [Case(c["question"], "vague") for c in labelled["vague"]]
    found += [Case(c["question"], "off_topic") for c in labelled["off_topic"]]
    written = yaml.safe_load((ROOT / "tests/data/tos_questions.yaml").read_text())
    found += [
        Case(c["question"], "policy", c["expect"])
        for c in written["answerable"]
        if split.part("tos", c["question"]) == part
    ]
    found += [
        Case(c["question"], "declined")
        for c in written["declined"]
        if split.part("tos", c["question"]) == part
    ]
    return found


def right(case: Case, outcome: str) -> bool:
    if case.kind == "faq":
        return outcome == "qna_answer"
    if case.kind == "policy":
        return outcome in ANSWERED
    if case.kind == "vague":
        return outcome not in ("qna_answer", "tos_answer")
    return outcome in DECLINED


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=None, help="keep the store here")
    parser.add_argument("--rules", type=Path, default=RULES)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--show", action="store_true", help="each question's outcome")
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="another setting"
    )
    parser.add_argument(
        "--signals", action="append", default=None, help="only this set, e.g. bm25,rules"
    )
    parser.add_argument("--part", choices=("train", "test"), default="train")
    args = parser.parse_args()

    from ragcli import service
    from ragcli.config import load_settings
    from ragcli.overrides import parse_assignments

    questions = cases(args.part)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        store = args.store or Path(work) / "store"
        base = {"store.path": str(store), "llm.provider": "extractive"}
        base |= parse_assignments(args.set)
        settings = load_settings(None, base, environ={})
        service.ingestor(settings).run([SAMPLE], "docs")
        service.ingestor(settings).run([SAMPLE / "faq" / "faq.yaml"], "qna")
        chosen = [[s for s in x.split(",") if s] for x in args.signals or []]
        for signals in chosen or SIGNAL_SETS:
            values = {**base, "tos.hybrid": signals, "tos.rules_file": str(args.rules)}
            settings = load_settings(None, values, environ={})
            resources = service.Resources(settings)
            correct = evidence = first = policy = 0
            earlier = [0, 0, 0]  # questions, evidence in sources, evidence at 1
            started = time.perf_counter()
            for case in questions:
                result = service.ask(settings, case.question, mode="tos", resources=resources)
                outcome = result.tos_details.answer_type
                correct += right(case, outcome)
                if case.kind == "policy" and case.expect:
                    policy += 1
                    texts = [s.content.lower() for s in result.sources]
                    wanted = case.expect.lower()
                    found_any = any(wanted in t for t in texts)
                    found_first = bool(texts) and wanted in texts[0]
                    evidence += found_any
                    first += found_first
                    if case.earlier:
                        earlier[0] += 1
                        earlier[1] += found_any
                        earlier[2] += found_first
                if args.show:
                    print(
                        f"{'+'.join(signals) or 'dense'}\t{case.kind}\t{outcome}\t{case.question}"
                    )
            seconds = (time.perf_counter() - started) / len(questions)
            rows.append(
                {
                    "signals": "+".join(signals) or "(dense only)",
                    "band_accuracy": round(correct / len(questions), 3),
                    "correct": correct,
                    "questions": len(questions),
                    "evidence_in_sources": round(evidence / policy, 3),
                    "evidence_at_1": round(first / policy, 3),
                    "policy_questions": policy,
                    "earlier_questions": earlier[0],
                    "earlier_evidence_in_sources": earlier[1],
                    "earlier_evidence_at_1": earlier[2],
                    "seconds_per_question": round(seconds, 3),
                }
            )
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(
        f"{'signals':<24} {'band acc.':>10} {'evidence@k':>11} {'evidence@1':>11} {'s/q':>6}"
        f"   {'earlier 5: @k, @1':>18}"
    )
    for row in rows:
        print(
            f"{row['signals']:<24} {row['correct']:>4}/{row['questions']:<5}"
            f" {row['evidence_in_sources']:>11.3f} {row['evidence_at_1']:>11.3f}"
            f" {row['seconds_per_question']:>6.2f}"
            f"   {row['earlier_evidence_in_sources']:>9}/{row['earlier_questions']}"
            f" {row['earlier_evidence_at_1']:>5}/{row['earlier_questions']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
