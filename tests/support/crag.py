"""What the crag tests and the tests that drive crag (reflect, the JSON schema) share:
web hits, a question, the grading reply the stub model gives, and settings for the stubs."""

from __future__ import annotations

from ragcli import service
from tests.support.common import settings_for
from tests.support.stubs import OpenAIStub, TavilyStub, WebHit


def grades(*scores: float) -> dict:
    """A grading reply: one entry per source, labels as the thresholds say."""

    def label(score: float) -> str:
        return "correct" if score >= 0.7 else "ambiguous" if score >= 0.4 else "incorrect"

    return {
        "grades": [
            {"id": i, "score": s, "label": label(s), "rationale": f"stub rationale {i}"}
            for i, s in enumerate(scores, start=1)
        ]
    }


HITS = [
    WebHit("Driftwood pricing 2026", "https://example.com/pricing", "Business costs $15 a seat."),
    WebHit("Unrelated", "https://example.com/cats", "Cats sleep sixteen hours a day."),
    WebHit("Driftwood blog", "https://example.com/blog", "Annual billing saves 20 percent."),
]
QUESTION = "How much is the Business edition per seat if we pay for a year up front?"


def settings_with(store, llm: OpenAIStub, web: TavilyStub | None = None, **overrides):
    values = {"llm.base_url": llm.base_url, "llm.api_key": "sk-test", "llm.max_retries": 0}
    if web is not None:
        values.update({"web.base_url": web.url, "web.api_key": "tvly-test", "web.timeout": 1})
    values.update(overrides)
    return settings_for(store, **values)


def steps_named(settings, result, name: str):
    trace = service.trace_store(settings).get(result.trace_id)
    return [s for s in trace.steps if s.name == name]
