"""ragcli.service offers its modules' calls under one name, each imported on first use:
every name the type checker sees is one the package gives at run time, and the same one."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import ragcli.service as service

INIT = Path(service.__file__)


def type_checked_names() -> dict[str, str]:
    """name -> module, from the imports under `if TYPE_CHECKING:`."""
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    guard = next(n for n in tree.body if isinstance(n, ast.If))
    return {
        alias.asname or alias.name: node.module or ""
        for node in guard.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


def test_every_name_the_type_checker_sees_is_given_at_run_time():
    names = type_checked_names()
    assert names and set(service.__all__) == set(names)
    for name, module in names.items():
        assert getattr(service, name) is getattr(importlib.import_module(module), name)


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_call"):
        service.no_such_call  # noqa: B018
