"""both: corrective retrieval once, then the self-reflective loop over its working chunks,
whose re-retrieval is corrective too (grade, route, search the web when needed)."""

import logging

from ragcli.models import RetrievedChunk
from ragcli.pipeline.context import RunContext
from ragcli.pipeline.modes.crag.details import ReRetrieval
from ragcli.pipeline.modes.crag.retrieval import CragOutcome, corrective_retrieval, not_covered
from ragcli.pipeline.modes.reflect.loop import finish, reflective_loop
from ragcli.pipeline.results import AskResult

log = logging.getLogger("ragcli")


def run(ctx: RunContext, question: str) -> AskResult:
    first = corrective_retrieval(ctx, question)
    if not first.covered:
        return not_covered(ctx, first)
    outcomes: list[CragOutcome] = [first]
    _log_working(first)

    def re_retrieve(query: str) -> list[RetrievedChunk] | None:
        web_seen = sum(len(o.web_rows) for o in outcomes)
        again = corrective_retrieval(
            ctx, question, query=query, first_web_number=web_seen, allow_rewrite=False
        )
        outcomes.append(again)
        if not again.covered:
            return None
        _log_working(again)
        return again.working

    loop = reflective_loop(ctx, question, first.working, re_retrieve)
    # The routing that produced the final chunks decides whether the answer is limited.
    final_outcome = next(
        (o for o in reversed(outcomes) if o.covered and o.working == loop.final.chunks), first
    )
    details = first.details()
    details.used_web_search = any(o.web_used for o in outcomes)
    details.web_results = [row for o in outcomes for row in o.web_rows]
    details.re_retrievals = [
        ReRetrieval(
            query=o.query,
            evaluation=o.evaluation.verdict(),
            route=o.evaluation.route,
            web_results=len(o.web_rows),
            chunks=len(o.working),
        )
        for o in outcomes[1:]
    ]
    notes = [n for o in outcomes for n in o.notes]
    return finish(
        ctx,
        loop,
        answer_type="limited" if final_outcome.limited else "answer",
        notes=list(dict.fromkeys(notes)),
        crag_details=details,
    )


def _log_working(outcome: CragOutcome) -> None:
    log.info(
        "Mode=both: Using %d chunks for Self-Reflective (%d from web search)",
        len(outcome.working),
        outcome.web_used,
    )
