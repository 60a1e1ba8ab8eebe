"""Two runs side by side: their steps aligned by name, and what differs between them.

Steps are aligned with difflib, so a step that only one run took (a rewrite, a second
reflection round) sits opposite an empty cell instead of shifting every later row."""

from __future__ import annotations

import difflib
from itertools import zip_longest
from typing import Any

from ragcli.trace.recorder import StepRecord, Trace

SUMMARY_FIELDS = ("question", "mode", "answer_type", "backend", "total_ms", "usage")


def _rounded(value: Any) -> Any:
    """Scores are compared as shown (two decimals), so a difference is one the user can see."""
    if isinstance(value, float):
        return round(value, 2)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def _side(step: StepRecord | None) -> dict[str, Any] | None:
    if step is None:
        return None
    return {
        "name": step.name,
        "scores": step.scores,
        "threshold": step.threshold,
        "decision": step.decision,
        "ms": step.ms,
        "llm_calls": step.llm_calls,
        "tokens": step.prompt_tokens + step.completion_tokens,
        "web_searches": step.web_searches,
    }


def _pair(a: StepRecord | None, b: StepRecord | None) -> dict[str, Any]:
    left, right = _side(a), _side(b)
    differs: list[str] = []
    if left is None or right is None:
        differs.append("only in " + ("B" if left is None else "A"))
    else:
        if left["name"] != right["name"]:
            differs.append("step")
        if _rounded(left["scores"]) != _rounded(right["scores"]):
            differs.append("scores")
        if _rounded(left["threshold"]) != _rounded(right["threshold"]):
            differs.append("threshold")
        if left["decision"] != right["decision"]:
            # A decision taken against a threshold is a route; otherwise it is a result.
            routed = left["threshold"] or right["threshold"]
            differs.append("route" if routed else "result")
    return {"a": left, "b": right, "differs": differs}


def _summary(trace: Trace) -> dict[str, Any]:
    return {
        "question": trace.question,
        "mode": trace.mode,
        "answer_type": trace.answer_type or "answer",
        "backend": trace.backend,
        "total_ms": trace.total_ms,
        "usage": trace.usage(),
    }


def diff_traces(a: Trace, b: Trace) -> dict[str, Any]:
    """Summary fields and aligned steps of runs A and B, each flagged with what differs."""
    summary_a, summary_b = _summary(a), _summary(b)
    summary = [
        {
            "field": field,
            "a": summary_a[field],
            "b": summary_b[field],
            # Time always differs; flagging it would drown the differences that matter.
            "differs": field != "total_ms" and summary_a[field] != summary_b[field],
        }
        for field in SUMMARY_FIELDS
    ]
    matcher = difflib.SequenceMatcher(
        a=[s.name for s in a.steps], b=[s.name for s in b.steps], autojunk=False
    )
    steps: list[dict[str, Any]] = []
    for _, a_start, a_end, b_start, b_end in matcher.get_opcodes():
        for left, right in zip_longest(a.steps[a_start:a_end], b.steps[b_start:b_end]):
            steps.append(_pair(left, right))
    return {
        "a": a.id,
        "b": b.id,
        "summary": summary,
        "steps": steps,
        "answers": {"a": a.answer, "b": b.answer},
        "steps_differing": sum(1 for s in steps if s["differs"]),
    }
