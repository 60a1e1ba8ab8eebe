"""Docs that state facts about the code, held to it: the exit codes, the command list,
and the sections the code's comments point to."""

from __future__ import annotations

import re
from pathlib import Path

import typer

from ragcli.cli import app
from ragcli.errors import ExitCode

ROOT = Path(__file__).resolve().parent.parent


def section(doc: str, heading: str) -> str:
    text = (ROOT / doc).read_text(encoding="utf-8")
    start = text.index(f"## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_the_exit_code_table_lists_every_exit_code():
    table = section("docs/configuration.md", "Exit codes")
    listed = {int(code) for code in re.findall(r"^\| (\d+) \|", table, re.MULTILINE)}
    assert listed == {int(code) for code in ExitCode}


def test_every_command_at_a_glance_lists_every_command():
    block = section("docs/getting-started.md", "Every command at a glance")
    shown = set(re.findall(r"^ragcli ([a-z]+)", block, re.MULTILINE))
    commands = typer.main.get_command(app).commands
    public = {name for name, command in commands.items() if not command.hidden}
    assert public - shown == set()


def test_sections_the_code_points_to_exist():
    pointers = []
    for path in sorted((ROOT / "ragcli").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for doc, heading in re.findall(r"(README|docs/[\w/-]+\.md),? \"([^\"]+)\"", text):
            pointers.append((path.name, "README.md" if doc == "README" else doc, heading))
    assert pointers
    missing = [
        (source, doc, heading)
        for source, doc, heading in pointers
        if f"## {heading}\n" not in (ROOT / doc).read_text(encoding="utf-8")
    ]
    assert missing == []
