"""The typed `reflection_details` block of a reflect or both result: every round's
reflection and what the loop did next."""

from __future__ import annotations

from pydantic import Field

from ragcli.models import Record, Reflection


class ReflectionRound(Record):
    iteration: int
    query: str
    score: float | None = None  # None: the round's answer was not checked (a limit)
    grounded: bool | None = None
    hallucination: bool | None = None
    reason: str = ""
    action: str = ""
    # The sentence-support check beside the model's verdict: the share of the answer's
    # sentences its sources back. Absent in runs stored before the check existed.
    support: float | None = Field(default=None, exclude_if=lambda v: v is None)


class ReflectionDetails(Record):
    final_answer: str
    iterations: int
    approved: bool
    min_score: float
    chosen_iteration: int
    history: list[ReflectionRound] = Field(default_factory=list)
    reflection: Reflection | None = None
