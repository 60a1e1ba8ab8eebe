"""Guard rails for loops: iterations, web searches and model calls per run.

Modes and steps ask before work a loop would repeat (another round, a web search, a
model call); a refusal is recorded once in the trace and kept as the reason the run
stopped early, so the output can say why the answer is the best so far."""

from __future__ import annotations

from dataclasses import dataclass, field

from ragcli.config import LimitsSettings
from ragcli.trace.recorder import Trace


@dataclass
class Budget:
    limits: LimitsSettings
    trace: Trace
    iterations: int = 0
    # Why work was refused, in order; each reason once.
    stops: list[str] = field(default_factory=list)

    def start_iteration(self, what: str) -> bool:
        """Count one more loop round (a rewrite, a reflection round ...), if allowed."""
        limit = self.limits.max_iterations
        if self.iterations >= limit:
            return self._refuse(f"stopped before {what}: --max-iterations {limit} reached")
        self.iterations += 1
        return True

    def allow_web_call(self) -> bool:
        limit = self.limits.max_web_calls
        if self.trace.usage()["web_searches"] >= limit:
            return self._refuse(f"web search skipped: --max-web-calls {limit} reached")
        return True

    def allow_llm_calls(self, calls: int, what: str) -> bool:
        """Whether `calls` more model calls fit; the extractive backend makes none."""
        if not self.fits_llm_calls(calls):
            limit = self.limits.max_llm_calls
            return self._refuse(f"stopped before {what}: --max-llm-calls {limit} reached")
        return True

    def fits_llm_calls(self, calls: int) -> bool:
        """Whether `calls` more model calls fit, for optional work: nothing is recorded."""
        return self.trace.usage()["llm_calls"] + calls <= self.limits.max_llm_calls

    @property
    def stopped(self) -> bool:
        return bool(self.stops)

    def _refuse(self, reason: str) -> bool:
        if reason not in self.stops:
            self.stops.append(reason)
            with self.trace.step("limit", reason=reason) as step:
                step.decision = "stop"
                step.note(reason)
        return False
