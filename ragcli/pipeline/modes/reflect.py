"""reflect: generate, check the answer against its sources, refine and retrieve again
until the reflection score reaches `reflect.min_score` or the rounds run out."""

from ragcli.models import AskResult
from ragcli.pipeline import steps
from ragcli.pipeline.context import RunContext
from ragcli.pipeline.modes.reflective import finish, reflective_loop


def run(ctx: RunContext, question: str) -> AskResult:
    chunks = steps.retrieve(ctx, question)
    loop = reflective_loop(ctx, question, chunks, lambda query: steps.retrieve(ctx, query))
    return finish(ctx, loop)
