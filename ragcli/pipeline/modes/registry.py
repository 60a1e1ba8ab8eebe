"""Mode names to the functions that run them; compare and the service layer read this."""

from collections.abc import Callable
from functools import partial

from ragcli.pipeline.context import RunContext
from ragcli.pipeline.modes import both, standard
from ragcli.pipeline.modes.agentic import mode as agentic_mode
from ragcli.pipeline.modes.auto import mode as auto_mode
from ragcli.pipeline.modes.crag import mode as crag_mode
from ragcli.pipeline.modes.reflect import mode as reflect_mode
from ragcli.pipeline.modes.tos import mode as tos_mode
from ragcli.pipeline.results import AskResult

Mode = Callable[[RunContext, str], AskResult]

MODES: dict[str, Mode] = {
    "standard": standard.run,
    "crag": crag_mode.run,
    "reflect": reflect_mode.run,
    "both": both.run,
    "tos": tos_mode.run,
    "agentic": agentic_mode.run,
}


def runnable() -> dict[str, Mode]:
    """What `--mode` accepts: the modes, and auto, which picks one of them per question
    (compare runs MODES only). Read at call time, so a mode registered later counts."""
    return {**MODES, "auto": partial(auto_mode.run, modes=MODES)}
