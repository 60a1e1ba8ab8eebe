#!/usr/bin/env python
"""What each query expansion adds to an `ask`: the sample corpus's answerable questions
(tests/data/labelled_questions.yaml) asked in standard mode, warm, once per option, and
each option's time as a ratio of the time without expansion (one run; the same process).

Offline (the extractive backend) it times retrieval.expand: prf. Given a model
(`--set llm.base_url=... --set llm.model=...`) every option answers with it, and
retrieval.hyde is timed too.

    .venv/bin/python scripts/expansion_latency.py [--store DIR] [--set KEY=VALUE ...]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SAMPLE = ROOT / "sample_corpus"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=None, help="keep the store here")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from ragcli import service
    from ragcli.config import load_settings
    from ragcli.llm import chosen_provider
    from ragcli.overrides import parse_assignments

    labelled = yaml.safe_load((ROOT / "tests/data/labelled_questions.yaml").read_text())
    questions = [item["question"] for item in labelled["answerable"]]
    rows = []
    with tempfile.TemporaryDirectory() as work:
        store = args.store or Path(work) / "store"
        base = {"store.path": str(store)} | parse_assignments(args.set)
        settings = load_settings(None, base, environ={})
        service.ingestor(settings).run([SAMPLE / "docs", SAMPLE / "policies"], "docs")
        options = {"none": {}, "prf": {"retrieval.expand": "prf"}}
        if chosen_provider(settings) != "extractive":
            options["hyde"] = {"retrieval.hyde": True}
        # A first pass, not timed: what is cached on first use (the sentence vectors the
        # offline answers read, the model's prompt cache) is cached for every option alike.
        warm = service.Resources(settings)
        for question in questions:
            service.ask(settings, question, mode="standard", resources=warm)
        for name, extra in options.items():
            settings = load_settings(None, base | extra, environ={})
            resources = service.Resources(settings)
            service.ask(settings, questions[0], mode="standard", resources=resources)
            started = time.perf_counter()
            calls = 0
            for question in questions:
                result = service.ask(settings, question, mode="standard", resources=resources)
                calls += result.usage.llm_calls
            seconds = (time.perf_counter() - started) / len(questions)
            rows.append({"option": name, "seconds_per_ask": round(seconds, 3), "llm_calls": calls})
    for row in rows:
        row["ratio"] = round(row["seconds_per_ask"] / rows[0]["seconds_per_ask"], 2)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{len(questions)} questions, standard mode, backend {settings.llm.provider}")
    for row in rows:
        print(
            f"{row['option']:<6} {row['seconds_per_ask']:>7.3f} s/ask  x{row['ratio']:.2f}"
            f"  ({row['llm_calls']} model calls)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
