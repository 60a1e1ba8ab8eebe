"""agentic: decompose the question, answer the sub-questions concurrently, synthesize one
answer citing their de-duplicated sources. Model calls: 1 + n + 1 (2 when decomposition
falls back to the original question). A sub-question the model fails on (after its
retries) leaves a `limited` answer with a note; if all fail, the run fails."""

from __future__ import annotations

from ragcli.llm.citations import MergedSources
from ragcli.models import SubAnswer
from ragcli.pipeline.context import RunContext
from ragcli.pipeline.modes.agentic import steps
from ragcli.pipeline.modes.agentic.details import AgenticDetails, SubAnswerEntry, SubAnswerSource
from ragcli.pipeline.results import AskResult
from ragcli.text.markdown import render


def run(ctx: RunContext, question: str) -> AskResult:
    sub_questions = steps.decompose(ctx, question)
    sub_answers = steps.answer_sub_questions(ctx, sub_questions)
    answer, merged = steps.synthesize(ctx, question, sub_answers)
    # A part the model failed on leaves the answer incomplete: say so, never hide it.
    notes = [f"not answered: {sub.question} ({sub.error})" for sub in sub_answers if sub.error]
    return ctx.result(
        answer,
        merged.sources,
        agentic_details=details(sub_questions, sub_answers, merged),
        notes=notes,
        answer_type="limited" if notes else "answer",
    )


def details(
    sub_questions: list[str], sub_answers: list[SubAnswer], merged: MergedSources
) -> AgenticDetails:
    """Each sub-answer cites the global source list; its sources point into it by `n`."""
    recited = iter(merged.sub_answers)
    entries = []
    for sub in sub_answers:
        if sub.error:
            entries.append(SubAnswerEntry(question=sub.question, answer=None, error=sub.error))
            continue
        answered = next(recited)
        sources = [
            SubAnswerSource(
                n=merged.numbering[chunk.chunk_id],
                chunk_id=chunk.chunk_id,
                source_file=chunk.metadata.source_file,
                page=chunk.metadata.page,
                locator=chunk.metadata.locator,
                score=chunk.score,
            )
            for chunk in answered.sources
        ]
        entries.append(
            SubAnswerEntry(question=sub.question, answer=render(answered.answer), sources=sources)
        )
    return AgenticDetails(sub_questions=sub_questions, sub_answers=entries)
