"""`ragcli --help` imports only what a Typer program needs to print its help.

A wall-time ratio drifts with the machine; the import set does not. A new top-level
import in the CLI's path (Rich's console, logging, sqlite, pydantic, the pipeline) fails
here by name, before it shows up as a slower `--help` in the benchmark."""

from __future__ import annotations

import json
import subprocess
import sys

# What `--help` may add to the modules of `python -c "import typer, rich"`.
ALLOWED_RAGCLI = {
    "ragcli",
    "ragcli.__main__",
    "ragcli.cli",  # the app, and each command group's module, on top of common and options
    "ragcli.cli.ask",
    "ragcli.cli.common",
    "ragcli.cli.evaluate",
    "ragcli.cli.ingest",
    "ragcli.cli.options",
    "ragcli.cli.search",
    "ragcli.cli.serve",
    "ragcli.cli.show",
    "ragcli.cli.status",
    "ragcli.cli.trace",
    "ragcli.completion",
    "ragcli.errors",
    "ragcli.pipeline",
    "ragcli.pipeline.modes",
    "ragcli.pipeline.modes.registry",  # the mode names, no mode code
}
ALLOWED_PACKAGES = {"typer", "click", "shellingham", "json", "_json"}

PROBE = """
import json, runpy, sys
import typer, rich
floor = set(sys.modules)
sys.argv = ["ragcli", "--help"]
try:
    runpy.run_module("ragcli", run_name="__main__")
except SystemExit:
    pass
sys.stderr.write(json.dumps(sorted(set(sys.modules) - floor)))
"""


def help_imports() -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True
    )
    assert "Commands" in out.stdout
    return json.loads(out.stderr)


def test_help_imports_nothing_beyond_typer():
    added = help_imports()
    ragcli = {m for m in added if m.split(".")[0] == "ragcli"}
    others = {m for m in added if m.split(".")[0] not in ALLOWED_PACKAGES | {"ragcli"}}
    assert ragcli <= ALLOWED_RAGCLI, f"--help now imports {sorted(ragcli - ALLOWED_RAGCLI)}"
    assert not others, f"--help now imports {sorted(others)}"
