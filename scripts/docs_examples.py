"""Regenerate the command output shown in README.md and docs/*.md, or check it (--check).

A block of output in the docs is written between two markers:

    <!-- output: ragcli ask "How do I restore a backup?" -->
    ```text
    $ ragcli ask "How do I restore a backup?"
    ...what the command printed...
    ```
    <!-- /output -->

A marker may name commands to run first, whose output is not shown:
`<!-- output: ragcli trace ; after: ragcli ask "Q" -->`.

Every command runs with bash in one temporary folder holding a copy of sample_corpus/, after
the SETUP ingests, with the built-in configuration (no config.yaml there, no RAGCLI_* or API
keys in the environment: the offline extractive backend), 120 columns, output piped, and
the step timings' clock stopped (see SHIM). Run ids, times, dates and the temporary path
are masked so that a fresh run reproduces the
committed text. Only stdout is shown; a marker's `2>&1` adds stderr (progress lines of
`ingest` go there and vary). --check compares with runs of spaces collapsed (a time that gained a
digit can widen a table column) and exits 1 with a diff when a block is stale.

    .venv/bin/python scripts/docs_examples.py           # rewrite the blocks
    .venv/bin/python scripts/docs_examples.py --check   # CI: fail if a block is stale
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETUP = [
    "ragcli ingest sample_corpus",
    "ragcli ingest sample_corpus/faq/faq.yaml --collection qna",
]
BLOCK = re.compile(
    r"(?P<open><!-- output: (?P<cmd>.+?) -->\n)(?P<body>.*?)(?P<close><!-- /output -->)",
    re.S,
)
DATE = "2026-01-01T12:00:00.000000+00:00"


def _same_width_date(m: re.Match[str]) -> str:
    """The date's digits replaced by DATE's, so columns keep their width."""
    return "".join(DATE[i] if c.isdigit() else c for i, c in enumerate(m.group()))


MASKS = [  # (pattern, replacement): what differs from one run to the next
    (
        re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?([+-]\d\d:\d\d|Z)?"),
        _same_width_date,
    ),
    (re.compile(r"\b[0-9a-f]{12}\b"), "0123456789ab"),  # run and conversation ids
    (re.compile(r"\b\d+(\.\d+)? ?(ms|s)\b"), r"… \2"),  # durations
    (re.compile(r"\(\d+ ms\)"), "(… ms)"),
    (re.compile(r"\b\d+(\.\d+)? chunks/s\b"), "… chunks/s"),
]
# A table column headed "ms" holds times: right-aligned numbers ending under the header.
MS_HEADER = re.compile(r"\bms\b")


def docs_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


# `ragcli` as the blocks run it: the same CLI, with the clock its step timings read stopped,
# so every step takes 0 ms. A time's width would otherwise move a table's columns, and a
# wrapped cell then breaks at another word. Nothing else reads these modules' clock.
# (The guard matters: ingest's worker processes import this file as their __main__.)
SHIM = """#!{python}
import time, types
import ragcli.pipeline.modes.agentic.steps, ragcli.service.asking, ragcli.trace.recorder
stopped = types.SimpleNamespace(**{{**vars(time), "perf_counter": lambda: 0.0}})
for module in (ragcli.pipeline.modes.agentic.steps, ragcli.service.asking, ragcli.trace.recorder):
    module.time = stopped
if __name__ == "__main__":
    from ragcli.cli import main
    main()
"""


def install_shim(work: Path) -> Path:
    bin_dir = work / ".bin"
    bin_dir.mkdir()
    shim = bin_dir / "ragcli"
    shim.write_text(SHIM.format(python=sys.executable))
    shim.chmod(0o755)
    return bin_dir


def clean_env(work: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("RAGCLI_") and k not in {"OPENAI_API_KEY", "TAVILY_API_KEY"}
    }
    env |= {
        "PATH": str(install_shim(work)) + os.pathsep + env.get("PATH", ""),
        "PYTHONPATH": str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""),  # this checkout
        "COLUMNS": "120",
        "NO_COLOR": "1",
        "XDG_DATA_HOME": str(work / ".data"),  # chat history and the like stay in the temp dir
    }
    return env


def mask(text: str, work: Path) -> str:
    text = text.replace(str(work), "/path/to/project")
    lines = []
    ms_end = None
    for line in text.splitlines():
        line = line.rstrip()
        for pattern, repl in MASKS:  # first: an id masked is no column of digits below
            line = pattern.sub(repl, line)
        if ms_end is not None:
            # A cell: digits ending under the header, a space (or the line's end) after them.
            m = re.search(r"(?<= )\d+$", line[: ms_end + 1])
            if m and line[ms_end + 1 : ms_end + 2] in ("", " "):
                line = line[: m.start()] + "…".rjust(len(m.group())) + line[ms_end + 1 :]
        header = MS_HEADER.search(line)
        if header and not re.search(r"\d", line):  # a header row names columns, no figures
            ms_end = header.end() - 1
        elif line[:1] not in ("", " ", "─", "━") and ("  " not in line or line[0] in "╭│╰"):
            # Flush left with no column gap (a title, a footer) or a panel: the table ended.
            # (A cell's wrapped lines start indented; a table's rows have gaps.)
            ms_end = None
        lines.append(line.rstrip())
    return "\n".join(lines).strip("\n")


def run(cmd: str, work: Path, env: dict[str, str]) -> str:
    proc = subprocess.run(
        ["bash", "-c", cmd], cwd=work, env=env, capture_output=True, text=True, timeout=600
    )
    return proc.stdout  # a block that shows stderr says so: `CMD 2>&1`


def normalise(block: str) -> list[str]:
    """Lines with runs of spaces and rules collapsed, and words cut short with "…" dropped:
    a time with one more digit widens its column, and a table at full width then cuts a
    neighbouring cell a character earlier."""
    out = []
    for line in block.splitlines():
        line = re.sub(r"\S*…", "", line)
        line = re.sub(r"[ ─━]+", " ", line).strip()
        if line:
            out.append(line)
    return out


def render(cmd: str, output: str) -> str:
    return f"```text\n$ {cmd}\n{output}\n```\n"


def refresh(text: str, outputs: dict[str, str], rel: Path, report: bool) -> tuple[str, int]:
    """`text` with each block's output replaced by the fresh one; and how many were stale."""
    stale = 0

    def fill(m: re.Match[str]) -> str:
        nonlocal stale
        shown = m.group("cmd").partition(" ; after: ")[0]
        if m.group("cmd") not in outputs:  # added during the runs: the next run fills it
            return m.group(0)
        fresh = render(shown, outputs[m.group("cmd")])
        committed = normalise(m.group("body"))
        if committed == normalise(fresh):
            return m.group(0)
        stale += 1
        if report:
            diff = difflib.unified_diff(
                committed, normalise(fresh), "committed", "fresh", lineterm=""
            )
            print(f"{rel}: stale output of `{shown}`:\n" + "\n".join(diff))
        return m.group("open") + fresh + m.group("close")

    return BLOCK.sub(fill, text), stale


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if a block is stale")
    args = parser.parse_args()

    files = {path: path.read_text() for path in docs_files()}
    wanted = [m.group("cmd") for text in files.values() for m in BLOCK.finditer(text)]
    if not wanted:
        print("no output blocks found", file=sys.stderr)
        return 1

    outputs: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="ragcli-docs-") as tmp:
        work = Path(tmp).resolve()
        shutil.copytree(ROOT / "sample_corpus", work / "sample_corpus")
        env = clean_env(work)
        for cmd in SETUP:
            outputs[cmd] = mask(run(cmd, work, env), work)
        for marker in wanted:
            if marker in outputs:
                continue
            shown, _, before = marker.partition(" ; after: ")
            if before:
                run(before, work, env)
            started = time.monotonic()
            outputs[marker] = mask(run(shown, work, env), work)
            print(f"{time.monotonic() - started:5.1f} s  {shown}", file=sys.stderr)

    stale = 0
    for path in files:
        text = path.read_text()  # as it is now: it may have been edited during the runs
        new, n = refresh(text, outputs, path.relative_to(ROOT), report=args.check)
        stale += n
        if new != text and not args.check:
            path.write_text(new)
    if args.check and stale:
        print(f"{stale} stale block(s): run scripts/docs_examples.py and commit the result")
        return 1
    done = f"{stale} stale, rewritten" if stale else "all match a fresh run"
    print(f"{len(wanted)} output blocks in {len(files)} files: {done}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
