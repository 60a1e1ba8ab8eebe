#!/usr/bin/env python
"""Count the hand-set rules and constants of the offline answer backend (issue 67), the
same way before and after a change:

- named constants: module-level assignments to an UPPER_CASE name (of them, regular
  expressions: a value that calls re.compile);
- bare numbers: numeric literals inside functions other than 0, 1, -1 and 2 (an index, a
  count, a halving) and other than a default argument;
- branch points: `if`/`elif`, conditional expressions and comprehension filters inside
  functions, each a decision someone wrote.

    .venv/bin/python scripts/count_rules.py [FILE ...] [--json]

Without files it counts the answer backend's modules (ANSWER_MODULES).
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ANSWER_MODULES = (
    "ragcli/llm/extractive.py",
    "ragcli/llm/offline/candidates.py",
    "ragcli/llm/offline/code_blocks.py",
    "ragcli/llm/offline/brought.py",
    "ragcli/llm/offline/evidence.py",
    "ragcli/llm/offline/scoring.py",
    "ragcli/llm/offline/selection.py",
    "ragcli/llm/offline/rendering.py",
    "ragcli/llm/offline/questions.py",
    "ragcli/llm/offline/features.py",
    "ragcli/llm/offline/model.py",
    "ragcli/llm/offline/rules.py",
    "ragcli/llm/heading_names.py",
    "ragcli/llm/subject.py",
    "ragcli/llm/table_rows.py",
    "ragcli/llm/segment.py",
)
PLAIN_NUMBERS = {0, 1, -1, 2}


def _is_compile(node: ast.AST) -> bool:
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "compile"
        and isinstance(n.func.value, ast.Name)
        and n.func.value.id == "re"
        for n in ast.walk(node)
    )


def count(path: Path) -> dict[str, int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    constants = regexes = 0
    for node in tree.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign) and node.value is not None
            else []
        )
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if names and all(n.isupper() for n in names):
            constants += 1
            regexes += _is_compile(node)
    numbers = branches = 0
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        defaults = {id(d) for d in function.args.defaults + function.args.kw_defaults if d}
        for node in ast.walk(function):
            if node is not function and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue  # counted as its own function
            if isinstance(node, (ast.If, ast.IfExp)):
                branches += 1
            elif isinstance(node, ast.comprehension):
                branches += len(node.ifs)
            elif (
                isinstance(node, ast.Constant)
                and type(node.value) in (int, float)
                and node.value not in PLAIN_NUMBERS
                and id(node) not in defaults
            ):
                numbers += 1
    lines = len(path.read_text(encoding="utf-8").splitlines())
    return {
        "lines": lines,
        "named_constants": constants,
        "regexes": regexes,
        "bare_numbers": numbers,
        "branch_points": branches,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    files = args.files or [ROOT / m for m in ANSWER_MODULES]
    report = {str(f.relative_to(ROOT) if f.is_absolute() else f): count(f) for f in files}
    total = {k: sum(r[k] for r in report.values()) for k in next(iter(report.values()))}
    if args.json:
        print(json.dumps({"files": report, "total": total}, indent=2))
        return 0
    header = (
        f"{'module':<32} {'lines':>6} {'consts':>7} {'regexes':>8} {'numbers':>8} {'branches':>9}"
    )
    print(header)
    for name, r in {**report, "total": total}.items():
        print(
            f"{name:<32} {r['lines']:>6} {r['named_constants']:>7} {r['regexes']:>8} "
            f"{r['bare_numbers']:>8} {r['branch_points']:>9}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
