"""Generated documents for ingest tests, a real `ragcli ingest` of them, and the parts of a
store's state two runs are compared by."""

from __future__ import annotations

import random
from pathlib import Path

from tests.support.storecheck import cli_env, ragcli

WORDS = (
    "backup restore archive sync node cluster token quota invoice refund policy schedule "
    "replica snapshot latency export import mirror ledger audit billing region zone"
).split()


def write_doc(path: Path, seed: int, paragraphs: int = 6) -> None:
    rng = random.Random(seed)
    body = []
    for p in range(paragraphs):
        sentence = " ".join(rng.choice(WORDS) for _ in range(60))
        body.append(f"## Part {p}\n\n{sentence.capitalize()}.")
    path.write_text(f"# Document {seed}\n\n" + "\n\n".join(body) + "\n")


def make_corpus(docs: Path, seeds: list[int]) -> None:
    docs.mkdir(parents=True, exist_ok=True)
    for seed in seeds:
        write_doc(docs / f"doc{seed}.md", seed)


def ingest(docs: Path, store: Path, *extra: str, crash_at: str | None = None):
    env = cli_env(**({"RAGCLI_CRASH_AT": crash_at} if crash_at else {}))
    return ragcli(
        "ingest", str(docs), "--store", str(store), "--json", *extra, cwd=docs.parent, env=env
    )


def comparable(state: dict) -> dict:
    return {k: v for k, v in state.items() if k != "journal"}


# A small Python module: code is split at its definitions, with line ranges.
PYTHON_SOURCE = '''"""Billing helpers."""

import math

RATE = 0.2


# Rounds half up, as invoices must.
def round_total(amount):
    return math.floor(amount * 100 + 0.5) / 100


class Invoice:
    def __init__(self, lines):
        self.lines = lines

    def total(self):
        return round_total(sum(self.lines) * (1 + RATE))
'''
