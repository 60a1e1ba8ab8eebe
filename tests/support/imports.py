"""Which heavy libraries a piece of ragcli imports, seen from a fresh interpreter (in this
one, other tests have imported everything already)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.support.storecheck import cli_env

# The libraries a light path must not load: torch alone takes seconds to import.
HEAVY = ("torch", "sentence_transformers", "transformers")


@dataclass
class FreshRun:
    heavy: list[str]  # the heavy top-level packages imported by the end
    exit: object  # the CLI's exit code (None for plain code)
    stdout: str  # what the code printed
    stderr: str


def fresh_imports(code: str, heavy=HEAVY, cwd: Path | None = None) -> FreshRun:
    """Runs `code` in a fresh interpreter, then lists which of `heavy` it imported. `code`
    may set `exit_code`."""
    probe = (
        f"{code}\nimport json as _json, sys as _sys\n"
        f"_heavy = sorted({{m.split('.')[0] for m in _sys.modules}} & set({tuple(heavy)!r}))\n"
        "print(_json.dumps({'exit': globals().get('exit_code'), 'heavy': _heavy}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=cli_env(),
        timeout=300,
    )
    lines = out.stdout.strip().splitlines()
    assert lines, out.stderr[-2000:]
    status = json.loads(lines[-1])
    return FreshRun(status["heavy"], status["exit"], "\n".join(lines[:-1]), out.stderr)


def cli_imports(*args: str, heavy=HEAVY, cwd: Path | None = None) -> FreshRun:
    """`ragcli ARGS` in a fresh interpreter, and the heavy libraries it imported."""
    code = (
        f"import sys\nsys.argv = ['ragcli', *{list(args)!r}]\n"
        "from ragcli.cli import app\n"
        "try:\n    app()\nexcept SystemExit as exit:\n    exit_code = exit.code\n"
        "else:\n    exit_code = 0\n"
    )
    return fresh_imports(code, heavy, cwd)
