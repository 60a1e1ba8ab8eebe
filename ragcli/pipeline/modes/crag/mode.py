"""The crag mode: grade the retrieved chunks, then answer from the documents, the
documents plus web results, or web results only; say so plainly when nothing covers the
question. The grading and routing are corrective retrieval (retrieval.py)."""

from ragcli.pipeline import steps
from ragcli.pipeline.context import RunContext
from ragcli.pipeline.modes.crag.retrieval import corrective_retrieval, not_covered
from ragcli.pipeline.results import AskResult


def run(ctx: RunContext, question: str) -> AskResult:
    outcome = corrective_retrieval(ctx, question, draft=True)
    if not outcome.covered:
        return not_covered(ctx, outcome)
    answer = outcome.draft or steps.generate(ctx, question, outcome.working)
    return ctx.result(
        answer,
        outcome.working,
        answer_type="limited" if outcome.limited else "answer",
        notes=outcome.notes,
        crag_details=outcome.details(),
    )
