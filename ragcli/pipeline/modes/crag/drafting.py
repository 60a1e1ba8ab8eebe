"""Grade web results while an answer is drafted from all of them.

When every web result joins, which is the common case, the draft is the answer and crag's
web route costs two model round trips (grade, then grade-and-draft together) plus the
search. When the grader drops a result the draft is discarded and the answer is generated
again from what joined: one round trip more, as if nothing had been drafted.
"""

from __future__ import annotations

import contextvars
import dataclasses
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from ragcli.answer import Answer
from ragcli.errors import BackendError
from ragcli.models import ChunkGrade, RetrievedChunk
from ragcli.pipeline import steps
from ragcli.pipeline.context import RunContext
from ragcli.pipeline.modes.crag import steps as crag_steps


class HeldTokens:
    """Holds a draft's streamed tokens until the draft is kept, so that a reader never
    sees the start of an answer that is then thrown away."""

    def __init__(self, forward: Callable[[str], None]):
        self._forward = forward
        self._held: list[str] = []
        self._state = "holding"  # holding | released | dropped
        self._lock = threading.Lock()

    def __call__(self, token: str) -> None:
        with self._lock:
            if self._state == "holding":
                self._held.append(token)
            elif self._state == "released":
                self._forward(token)

    def release(self) -> None:
        with self._lock:
            for token in self._held:
                self._forward(token)
            self._held.clear()
            self._state = "released"

    def drop(self) -> None:
        with self._lock:
            self._held.clear()
            self._state = "dropped"


def worth_drafting(ctx: RunContext) -> bool:
    """Only a remote model gains from the overlap, and only if the budget has room for a
    draft that may be discarded (the grading call plus two generations)."""
    return ctx.llm.remote and ctx.budget.fits_llm_calls(3)


def grade_while_drafting(
    ctx: RunContext,
    question: str,
    documents: list[RetrievedChunk],
    web: list[RetrievedChunk],
) -> tuple[list[ChunkGrade], Answer | None]:
    """The web results' grades, and the answer drafted from `documents + web` when every
    web result joined (None when the draft was discarded)."""
    held = HeldTokens(ctx.on_token) if ctx.on_token else None
    draft_ctx = dataclasses.replace(ctx, on_token=held)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragcli-draft") as pool:
        drafting = pool.submit(
            contextvars.copy_context().run,
            steps.generate,
            draft_ctx,
            question,
            documents + web,
            "generate_draft",
        )
        grades, _ = crag_steps.grade(ctx, question, web, name="grade_web", joining=True)
        all_join = all(g.label != "incorrect" for g in grades)
        if held is not None:
            held.release() if all_join else held.drop()
        try:
            draft = drafting.result()
        except BackendError:
            if all_join:
                raise
            draft = None  # discarded anyway
    with ctx.trace.step("draft", web_results=len(web)) as step:
        step.decision = (
            "kept: every web result joined"
            if all_join
            else "discarded: a web result was dropped, so the answer is generated again"
        )
    return grades, draft if all_join else None
