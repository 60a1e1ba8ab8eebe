"""The `hyde` step (`retrieval.hyde`): before a search, the answer model writes a short
passage that would answer the query, and dense retrieval ranks by it with the query
(retrieval/expansion.py). One model call per distinct query of a run (a rewritten or
refined query gets its own), within `limits.max_llm_calls`; optional work, so a run out of
calls, a backend without a model or a model that fails retrieves as usual and says why."""

from __future__ import annotations

import logging

from ragcli import cost
from ragcli.errors import BackendError
from ragcli.pipeline.context import RunContext
from ragcli.retrieval.expansion import Hyde

log = logging.getLogger("ragcli")
NO_MODEL = (
    "retrieval.hyde: the offline extractive backend has no model to write a passage; "
    "retrieving as usual"
)
_said_no_model = False


def passage(ctx: RunContext, query: str) -> Hyde | None:
    """The query's hypothetical passage (written once per run), or None."""
    if query in ctx.passages:
        return ctx.passages[query]
    found = _write(ctx, query)
    ctx.passages[query] = found
    return found


def _write(ctx: RunContext, query: str) -> Hyde | None:
    global _said_no_model
    with ctx.trace.step("hyde", query=query) as step:
        if ctx.llm.name == "extractive":
            step.decision = "skipped: no model"
            step.note(NO_MODEL)
            if not _said_no_model:  # once per process on stderr; every run's trace has it
                _said_no_model = True
                log.warning(NO_MODEL)
            return None
        if not ctx.budget.fits_llm_calls(2):  # its own call and the answer it serves
            limit = ctx.settings.limits.max_llm_calls
            step.decision = f"skipped: --max-llm-calls {limit} reached"
            step.note(f"hyde skipped: --max-llm-calls {limit} reached; retrieving as usual")
            return None
        try:
            text = ctx.llm.hypothesize(query)
        except BackendError as exc:
            step.decision = "skipped: the model failed"
            step.note(f"hyde skipped: {exc}; retrieving as usual")
            return None
        usd = cost.estimate(
            ctx.settings.prices, ctx.llm.model, step.prompt_tokens, step.completion_tokens
        )
        step.details["passage"] = [
            {
                "passage": text,
                "prompt_tokens": step.prompt_tokens,
                "completion_tokens": step.completion_tokens,
                "cost_usd": "no price for this model" if usd is None else f"{usd:.6f}",
            }
        ]
        if not text:
            step.decision = "skipped: the model wrote nothing"
            return None
        step.decision = f"passage of {len(text)} characters"
        return Hyde(text)
