"""Trace records: each pipeline step records itself; model calls add their usage to the
step they run in, so mode code never touches the trace directly."""

from __future__ import annotations

import contextvars
import logging
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

log = logging.getLogger("ragcli")

_current_step: contextvars.ContextVar[StepRecord | None] = contextvars.ContextVar(
    "ragcli_step", default=None
)
# Concurrent workers (agentic sub-questions) add usage to one step: `+=` is not atomic.
_usage_lock = threading.Lock()


@dataclass
class StepRecord:
    name: str
    inputs: dict[str, Any] = field(default_factory=dict)
    scores: dict[str, Any] = field(default_factory=dict)
    threshold: dict[str, Any] = field(default_factory=dict)
    decision: str = ""
    ms: float = 0.0
    # When the step began, in ms after the trace's created_at: spans and the report's
    # timeline place steps by it (0 in traces saved before it was recorded).
    start_ms: float = 0.0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    web_searches: int = 0
    notes: list[str] = field(default_factory=list)
    # Step-specific tables (per-chunk grades, web results, reflection verdicts ...).
    details: dict[str, Any] = field(default_factory=dict)

    def note(self, message: str) -> None:
        self.notes.append(message)
        log.info(message)


@dataclass
class Trace:
    question: str
    mode: str
    thresholds: dict[str, Any] = field(default_factory=dict)
    backend: dict[str, str] = field(default_factory=dict)
    # The filters every retrieval of the run was restricted to (--path, --type, --since).
    filters: dict[str, Any] = field(default_factory=dict)
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    created_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat())
    steps: list[StepRecord] = field(default_factory=list)
    answer: str = ""
    answer_type: str = ""
    sources: list[dict[str, Any]] = field(default_factory=list)
    total_ms: float = 0.0
    result: dict[str, Any] = field(default_factory=dict)
    # The conversation the run is a turn of, and which turn (1 for its first question).
    conversation_id: str = ""
    turn: int = 0
    standalone: str = ""  # the question retrieval searched for, when it was rewritten

    @contextmanager
    def step(self, name: str, **inputs: Any) -> Iterator[StepRecord]:
        record = StepRecord(name=name, inputs=inputs, start_ms=self.elapsed_ms())
        self.steps.append(record)
        token = _current_step.set(record)
        started = time.perf_counter()
        try:
            yield record
        finally:
            record.ms = round((time.perf_counter() - started) * 1000, 1)
            _current_step.reset(token)
            log.info("%s", step_line(record))

    def elapsed_ms(self) -> float:
        since = datetime.now(UTC) - datetime.fromisoformat(self.created_at)
        return round(since.total_seconds() * 1000, 1)

    def usage(self) -> dict[str, int]:
        return {
            "llm_calls": sum(s.llm_calls for s in self.steps),
            "prompt_tokens": sum(s.prompt_tokens for s in self.steps),
            "completion_tokens": sum(s.completion_tokens for s in self.steps),
            "web_searches": sum(s.web_searches for s in self.steps),
        }

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["usage"] = self.usage()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Trace:
        data = dict(data)
        data.pop("usage", None)
        steps = [StepRecord(**step) for step in data.pop("steps", [])]
        return cls(steps=steps, **data)


def _short(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, dict):
        return ", ".join(f"{k} {_short(v)}" for k, v in value.items())
    return "-" if value is None else str(value)


def step_line(step: StepRecord) -> str:
    """A finished step in one line (the `-v` step log): scores vs threshold, decision, cost."""
    parts = [f"step {step.name}"]
    if step.scores:
        scored = _short(step.scores)
        if step.threshold:
            scored += f" vs {_short(step.threshold)}"
        parts.append(scored)
    if step.decision:
        parts.append(f"-> {step.decision}")
    cost = f"{step.ms:.0f} ms"
    if step.llm_calls:
        tokens = step.prompt_tokens + step.completion_tokens
        cost += f", {step.llm_calls} model call{'s' * (step.llm_calls != 1)}, {tokens} tokens"
    if step.web_searches:
        cost += f", {step.web_searches} web search{'es' * (step.web_searches != 1)}"
    return " · ".join(parts) + f" ({cost})"


def current_step() -> StepRecord | None:
    return _current_step.get()


def record_llm_call(prompt_tokens: int = 0, completion_tokens: int = 0) -> None:
    step = _current_step.get()
    if step is not None:
        with _usage_lock:
            step.llm_calls += 1
            step.prompt_tokens += prompt_tokens
            step.completion_tokens += completion_tokens


def record_web_search() -> None:
    step = _current_step.get()
    if step is not None:
        with _usage_lock:
            step.web_searches += 1


def note(message: str) -> None:
    """Record a note (a fallback, a failure, a warning) on the step that is running."""
    step = _current_step.get()
    if step is not None:
        step.note(message)
    else:
        log.info(message)
