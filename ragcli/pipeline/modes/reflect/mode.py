"""The reflect mode: generate, check the answer against its sources, refine and retrieve
again until the reflection score reaches `reflect.min_score` or the rounds run out. The
loop itself is loop.py, shared with the both mode."""

from ragcli.pipeline import steps
from ragcli.pipeline.context import RunContext
from ragcli.pipeline.modes.reflect.loop import finish, reflective_loop
from ragcli.pipeline.results import AskResult


def run(ctx: RunContext, question: str) -> AskResult:
    chunks = steps.retrieve(ctx, question)
    loop = reflective_loop(ctx, question, chunks, lambda query: steps.retrieve(ctx, query))
    return finish(ctx, loop)
