"""A mode that only retrieves and records a grade step, registered by tests that run the
CLI in a fresh interpreter to see how a step is logged."""

from __future__ import annotations

from ragcli.llm.answer_parse import parse_answer
from ragcli.pipeline import steps


def graded(ctx, question):
    chunks = steps.retrieve(ctx, question)
    with ctx.trace.step("grade") as step:
        step.scores = {"relevance": 0.55}
        step.threshold = {"relevant": 0.7}
        step.decision = "ambiguous"
    return ctx.result(parse_answer("reply"), chunks)
