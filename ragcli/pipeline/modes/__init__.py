"""The modes: each a short function composing the shared steps."""

from collections.abc import Callable

from ragcli.models import AskResult
from ragcli.pipeline.context import RunContext
from ragcli.pipeline.modes import agentic, both, crag, reflect, standard, tos

Mode = Callable[[RunContext, str], AskResult]

MODES: dict[str, Mode] = {
    "standard": standard.run,
    "crag": crag.run,
    "reflect": reflect.run,
    "both": both.run,
    "tos": tos.run,
    "agentic": agentic.run,
}
