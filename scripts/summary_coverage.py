"""A whole-document summary's coverage and support marks, measured: each file is ingested
into a temporary store and summarised with `ask --file` (the backend configured, the
offline one by default), one run a file; printed per file: its sections, those read and
cited, the answer's sentences and how many the support check marked, and the time.

    .venv/bin/python scripts/summary_coverage.py FILE [FILE ...] [--json]
    .venv/bin/python scripts/summary_coverage.py ../shared/eval/docs/pydantic/migration.md

The question is "Summarise the document." unless --question gives another."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragcli import service  # noqa: E402
from ragcli.config import load_settings  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--question", default="Summarise the document.")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    overrides = dict(item.split("=", 1) for item in args.set)
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        settings = load_settings(None, {"store.path": f"{scratch}/store", **overrides})
        service.ingestor(settings).run([f.resolve() for f in args.files], "docs")
        for path in args.files:
            started = time.perf_counter()
            result = service.ask(settings, args.question, files=[str(path.resolve())])
            seconds = time.perf_counter() - started
            details = result.documents_details
            (read,) = details.documents if details else (None,)
            marked = [s for s in result.support if not s.supported or s.uncited]
            rows.append(
                {
                    "file": str(path),
                    "strategy": details.strategy if details else None,
                    "sections": read.sections if read else 0,
                    "read": read.sections_read if read else 0,
                    "cited": read.sections_cited if read else 0,
                    "sentences": len(result.support),
                    "marked": len(marked),
                    "llm_calls": result.usage.llm_calls,
                    "seconds": round(seconds, 1),
                }
            )
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    for row in rows:
        print(
            f"{row['file']}: {row['strategy']}, {row['read']} of {row['sections']} sections "
            f"read, {row['cited']} cited; {row['sentences']} sentences, {row['marked']} "
            f"marked; {row['llm_calls']} model calls, {row['seconds']} s"
        )


if __name__ == "__main__":
    main()
