#!/usr/bin/env python
"""`ragcli ingest` of the benchmark's long-Markdown corpus by two source trees, interleaved.

    .venv/bin/python scripts/compare_ingest.py --before ../wt-old [--after .] [--rounds 3]

Builds the corpus once (scripts/benchmark.py's long_markdown_corpus: this repository's
README and docs/, `--copies` times), then ingests it into a fresh store with each tree in
turn (before, after, before, after, ...), each run in its own process with PYTHONPATH set
to its tree, so both meet the same machine load. Prints each run and the ratio of the
medians (after / before: above 1 is slower), wall and CPU seconds, and the chunks each
made (a reading that writes more text makes more chunks to embed)."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.benchmark import long_markdown_corpus, ragcli_command, run_timed  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="the tree measured against")
    parser.add_argument("--after", type=Path, default=ROOT, help="the tree measured")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--copies", type=int, default=8)
    args = parser.parse_args()
    runs: dict[str, list[tuple[float, float, int]]] = {"before": [], "after": []}
    with tempfile.TemporaryDirectory(prefix="ragcli-compare-") as tmp:
        work = Path(tmp)
        corpus = work / "markdown"
        long_markdown_corpus(corpus, args.copies)
        for round_ in range(args.rounds):
            for name, tree in (("before", args.before), ("after", args.after)):
                store = work / f"store-{name}-{round_}"
                env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
                cmd = [*ragcli_command(), "ingest", str(corpus), "--store", str(store), "--json"]
                seconds, out, cpu = run_timed(cmd, work, env)
                chunks = json.loads(out)["chunks_added"]
                runs[name].append((seconds, cpu, chunks))
                print(
                    f"{name} round {round_ + 1}: {seconds:.1f} s wall, {cpu:.1f} s CPU, "
                    f"{chunks} chunks",
                    flush=True,
                )
    wall = {n: statistics.median(r[0] for r in runs[n]) for n in runs}
    cpu = {n: statistics.median(r[1] for r in runs[n]) for n in runs}
    chunks = {n: runs[n][0][2] for n in runs}
    print(
        f"median wall: before {wall['before']:.1f} s, after {wall['after']:.1f} s "
        f"= {wall['after'] / wall['before']:.3f} x"
    )
    print(
        f"median CPU:  before {cpu['before']:.1f} s, after {cpu['after']:.1f} s "
        f"= {cpu['after'] / cpu['before']:.3f} x"
    )
    print(
        f"chunks: before {chunks['before']}, after {chunks['after']}; per second "
        f"{chunks['before'] / wall['before']:.1f} -> {chunks['after'] / wall['after']:.1f}"
    )


if __name__ == "__main__":
    main()
