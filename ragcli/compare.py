"""Run every registered mode on one question and summarise each run in one row.

Modes register themselves in MODES; nothing here names a mode. What a row shows is read
from the result and its trace generically: the deciding step is the last one that
compared a score with a threshold (a grade, a band, a reflection), and its decision is
the route."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ragcli import cost
from ragcli.config import Settings
from ragcli.errors import ConfigError, EmptyStoreError, RagcliError
from ragcli.pipeline.results import AskResult
from ragcli.trace.recorder import StepRecord, Trace


def _first_number(values: dict[str, Any]) -> float | None:
    for value in values.values():
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    return None


# Steps that check an answer once it is given: they decide nothing about its route.
AFTER_THE_ANSWER = ("support",)


def route_steps(trace: Trace) -> list[StepRecord]:
    return [s for s in trace.steps if s.name not in AFTER_THE_ANSWER]


def deciding_step(trace: Trace) -> StepRecord | None:
    return next((s for s in reversed(route_steps(trace)) if s.threshold), None)


def summarise(
    mode: str, result: AskResult | None, trace: Trace | None, settings: Settings, error: str = ""
) -> dict[str, Any]:
    """One comparison row; `error` when the mode failed instead of answering."""
    row: dict[str, Any] = {"mode": mode}
    if result is None:
        row.update(answer_type="failed", error=error)
        return row
    usage = result.usage
    row.update(
        answer_type=result.answer_type,
        route=None,
        score=None,
        threshold=None,
        llm_calls=usage.llm_calls,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        web_searches=usage.web_searches,
        ms=result.timings_ms.get("total", 0.0),
        trace_id=result.trace_id,
        answer=result.answer,
    )
    if trace is not None:
        step = deciding_step(trace)
        if step is not None:
            row.update(
                route=f"{step.name}: {step.decision}" if step.decision else step.name,
                score=_first_number(step.scores),
                threshold=_first_number(step.threshold),
            )
        else:
            row["route"] = " > ".join(s.name for s in route_steps(trace))
            steps = route_steps(trace)
            scored = next((s for s in steps if _first_number(s.scores) is not None), None)
            row["score"] = _first_number(scored.scores) if scored else None
    usd = cost.estimate_usage(settings.prices, result.backend.model_dump(), usage.model_dump())
    if usd is not None:
        row["estimated_cost_usd"] = usd
    return row


def compare(
    settings: Settings,
    question: str,
    ask: Callable[..., AskResult],
    load_trace: Callable[[str], Trace | None],
    on_run: Callable[[str], None] | None = None,
) -> list[dict[str, Any]]:
    """Every mode in the registry on the same question, in registry order. A mode that
    fails is reported in its row and the others still run."""
    from ragcli.pipeline.modes.registry import MODES

    rows = []
    for mode in MODES:
        if on_run:
            on_run(mode)
        try:
            result = ask(settings, question, mode=mode)
        except (ConfigError, EmptyStoreError):
            raise  # the same for every mode: one error, not six rows of it
        except Exception as exc:  # one broken mode must not hide the others' results
            rows.append(summarise(mode, None, None, settings, error=_describe(exc)))
            continue
        rows.append(summarise(mode, result, load_trace(result.trace_id), settings))
    return rows


def _describe(exc: Exception) -> str:
    return str(exc) if isinstance(exc, RagcliError) else f"{type(exc).__name__}: {exc}"
