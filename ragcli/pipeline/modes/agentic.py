"""agentic: decompose the question, answer the sub-questions concurrently, synthesize one
answer citing their de-duplicated sources. Model calls: 1 + n + 1 (2 when decomposition
falls back to the original question)."""

from __future__ import annotations

from typing import Any

from ragcli.llm.citations import MergedSources
from ragcli.models import AskResult
from ragcli.pipeline import steps
from ragcli.pipeline.context import RunContext


def run(ctx: RunContext, question: str) -> AskResult:
    sub_questions = steps.decompose(ctx, question)
    sub_answers = steps.answer_sub_questions(ctx, sub_questions)
    answer, merged = steps.synthesize(ctx, question, sub_answers)
    return ctx.result(answer, merged.sources, agentic_details=details(sub_questions, merged))


def details(sub_questions: list[str], merged: MergedSources) -> dict[str, Any]:
    """Each sub-answer cites the global source list; its sources point into it by `n`."""
    return {
        "sub_questions": sub_questions,
        "sub_answers": [
            {
                "question": sub.question,
                "answer": sub.answer,
                "sources": [
                    {
                        "n": merged.numbering[chunk.chunk_id],
                        "chunk_id": chunk.chunk_id,
                        "source_file": chunk.metadata.source_file,
                        "page": chunk.metadata.page,
                        "score": chunk.score,
                    }
                    for chunk in sub.sources
                ],
            }
            for sub in merged.sub_answers
        ],
    }
