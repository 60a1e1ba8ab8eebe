"""standard: retrieve top-k, generate a cited answer."""

from ragcli.pipeline import steps
from ragcli.pipeline.context import RunContext
from ragcli.pipeline.results import AskResult


def run(ctx: RunContext, question: str) -> AskResult:
    chunks = steps.retrieve(ctx, question)
    answer = steps.generate(ctx, question, chunks)
    return ctx.result(answer, chunks)
