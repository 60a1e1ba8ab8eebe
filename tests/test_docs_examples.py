"""scripts/docs_examples.py: what a fresh run may change (times, ids, dates) is masked, and
anything else in a block (an answer, a score) makes --check fail. The full run is CI's
`scripts/docs_examples.py --check` in scripts/test.sh; these tests need no model."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("docs_examples", ROOT / "scripts/docs_examples.py")
assert spec and spec.loader
docs_examples = importlib.util.module_from_spec(spec)
spec.loader.exec_module(docs_examples)

HEADER = "step      score vs threshold   decision          ms  llm  tokens"
MS_END = HEADER.index(" ms ") + 3  # right-aligned numbers end under the header's "s"


def run_output(a: str, b: str, total: str, trace: str, when: str) -> str:
    rows = [
        ("retrieve  best 0.53, chunks 3  3 chunks", a),
        ("generate                       481 characters", b),
    ]
    return "\n".join(
        [
            "Routing",
            HEADER,
            "─" * len(HEADER),
            *(f"{cells:<{MS_END - 4}}{ms:>4}    -       -" for cells, ms in rows),
            f"{total} ms · 0 model calls · 0 tokens · trace {trace}",
            f"time      {when}",
        ]
    )


def test_volatile_parts_are_masked(tmp_path: Path) -> None:
    first = docs_examples.mask(
        run_output("77", "494", "3436", "6f0e1f1312dc", "2026-11-25 21:26:32"), tmp_path
    )
    second = docs_examples.mask(
        run_output("120", "512", "980", "0a1b2c3d4e5f", "2027-01-02 08:00:01"), tmp_path
    )
    assert first == second
    assert "best 0.53, chunks 3" in first and "481 characters" in first
    assert "… ms · 0 model calls" in first and "trace 0123456789ab" in first


def test_temp_folder_is_masked(tmp_path: Path) -> None:
    assert docs_examples.mask(f"store  {tmp_path}/.ragcli", tmp_path) == (
        "store  /path/to/project/.ragcli"
    )


def block(cmd: str, output: str) -> str:
    return f"<!-- output: {cmd} -->\n{docs_examples.render(cmd, output)}<!-- /output -->\n"


def test_check_fails_on_a_changed_answer_not_on_layout() -> None:
    cmd = 'ragcli ask "Q"'
    committed = block(cmd, "answer: 30 days [1]\nretrieve   best 0.53        …")
    rel = Path("README.md")
    same = {cmd: "answer: 30 days [1]\nretrieve best 0.53   …"}  # only spacing moved
    text, stale = docs_examples.refresh(committed, same, rel, report=False)
    assert stale == 0 and text == committed
    changed = {cmd: "answer: 60 days [1]\nretrieve best 0.53 …"}
    text, stale = docs_examples.refresh(committed, changed, rel, report=False)
    assert stale == 1 and "60 days" in text and "30 days" not in text
