"""standard: retrieve top-k, generate a cited answer."""

from ragcli.models import AskResult
from ragcli.pipeline import steps
from ragcli.pipeline.context import RunContext


def run(ctx: RunContext, question: str) -> AskResult:
    chunks = steps.retrieve(ctx, question)
    answer = steps.generate(ctx, question, chunks)
    return ctx.result(answer, chunks)
