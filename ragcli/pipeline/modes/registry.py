"""The modes, by name: the one list of them. The command line's choices and completion,
the MCP tools' schema and the report's drawings are read from here (a test checks they
agree). A mode's code is imported when it first runs, so reading the names costs no
pipeline import (`ragcli --help` stays fast)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragcli.pipeline.context import RunContext
    from ragcli.pipeline.results import AskResult

Mode = Callable[["RunContext", str], "AskResult"]

# Each mode's name and the module whose run(ctx, question) runs it, in the order compare,
# eval and the help list them.
RUNS = {
    "standard": "ragcli.pipeline.modes.standard",
    "crag": "ragcli.pipeline.modes.crag.mode",
    "reflect": "ragcli.pipeline.modes.reflect.mode",
    "both": "ragcli.pipeline.modes.both",
    "tos": "ragcli.pipeline.modes.tos.mode",
    "agentic": "ragcli.pipeline.modes.agentic.mode",
}
AUTO = "auto"  # not a mode of its own: it picks one of MODE_NAMES per question
AUTO_RUNS = "ragcli.pipeline.modes.auto.mode"
# Answers over whole documents: what `ask --file` runs, and where auto sends a summary or
# a comparison of documents; not a --mode of its own (it needs its documents).
DOCUMENTS = "documents"
DOCUMENTS_RUNS = "ragcli.pipeline.modes.documents.mode"
MODE_NAMES = tuple(RUNS)
CHOICES = (*MODE_NAMES, AUTO)  # what --mode accepts


def _deferred(module: str) -> Mode:
    def run(ctx: RunContext, question: str) -> AskResult:
        return import_module(module).run(ctx, question)

    run.__qualname__ = run.__name__ = f"run [{module}]"
    return run


MODES: dict[str, Mode] = {name: _deferred(module) for name, module in RUNS.items()}
WHOLE_DOCUMENTS: Mode = _deferred(DOCUMENTS_RUNS)


def _auto(ctx: RunContext, question: str, modes: Mapping[str, Mode]) -> AskResult:
    return import_module(AUTO_RUNS).run(ctx, question, modes)


def runnable() -> dict[str, Mode]:
    """What `--mode` accepts: the modes, and auto, which picks one of them per question
    (compare runs MODES only). Read at call time, so a mode registered later counts."""
    picked = {**MODES, DOCUMENTS: WHOLE_DOCUMENTS}
    return {**MODES, AUTO: lambda ctx, question: _auto(ctx, question, picked)}
