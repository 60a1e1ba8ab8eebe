"""A small trace of one ask, as the trace store keeps it."""

from __future__ import annotations

from ragcli.trace.recorder import Trace, record_llm_call


def make_trace(question="q?") -> Trace:
    trace = Trace(question=question, mode="standard", thresholds={"crag": {"x": 0.7}})
    with trace.step("retrieve", query=question) as step:
        step.scores = {"best": 0.61}
        step.threshold = {"relevant": 0.7}
        step.decision = "5 chunks"
        record_llm_call(10, 3)
    trace.answer = "an answer [1]"
    trace.total_ms = 12.5
    return trace
