"""One list of modes, the registry's: the command line's choices and completion, the MCP
tools' schema and the report's drawings are read from it and agree with it."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from typing import get_args

from pydantic import TypeAdapter
from typer.testing import CliRunner

from ragcli.cli import app
from ragcli.completion import complete_mode
from ragcli.pipeline.modes.registry import AUTO, CHOICES, MODE_NAMES, RUNS, runnable
from ragcli.report.flow import DRAWINGS, auto_flow
from ragcli.serve.tools import ModeName
from ragcli.trace.recorder import Trace

PACKAGE = Path(__file__).resolve().parent.parent / "ragcli"


def test_the_registry_names_each_mode_once_and_where_it_runs():
    assert CHOICES == (*MODE_NAMES, AUTO) == tuple(runnable())
    assert len(set(CHOICES)) == len(CHOICES)
    for module in RUNS.values():
        assert callable(importlib.import_module(module).run)


def test_the_command_line_offers_and_accepts_the_registrys_modes(tmp_path):
    assert complete_mode("") == list(CHOICES)
    shown = CliRunner().invoke(app, ["ask", "--help"], terminal_width=200).output
    assert all(mode in shown for mode in CHOICES)
    refused = CliRunner().invoke(app, ["ask", "q", "--mode", "wild", "--store", str(tmp_path)])
    assert refused.exit_code == 2
    assert f"choose one of {', '.join(CHOICES)}" in refused.output


def test_the_mcp_schema_lists_the_registrys_modes():
    assert get_args(ModeName) == CHOICES
    assert TypeAdapter(ModeName).json_schema()["enum"] == list(CHOICES)


def test_the_report_draws_every_mode_and_auto_routes_to_each():
    assert list(DRAWINGS) == list(MODE_NAMES)
    trace = Trace(question="q", mode=AUTO)
    trace.result = {"auto_details": {"mode": "crag", "rule": "r", "reason": "why"}}
    routes = auto_flow(trace).nodes
    assert [name for name in routes if name not in ("question", "route")] == list(MODE_NAMES)


def test_no_other_module_spells_out_the_list():
    """A list, tuple, set or Literal of most mode names outside the registry is a second
    list to keep in step (a mapping from each mode to its own code is checked above)."""
    spelled = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "registry.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.List | ast.Tuple | ast.Set):
                names = {e.value for e in node.elts if isinstance(e, ast.Constant)}
                if len(names & set(CHOICES)) >= 4:
                    spelled.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    assert spelled == []
