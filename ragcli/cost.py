"""Estimated cost of a run from the `prices:` table in config.yaml.

Traces keep raw token counts only; a cost is computed when it is shown, so a price
change never rewrites history and a model without a price shows no cost at all."""

from __future__ import annotations

import re
from typing import Any

from ragcli.config import ModelPrice

PER_TOKENS = 1_000_000  # prices are quoted in dollars per million tokens
DATED_SNAPSHOT = re.compile(r"^(?P<family>.+)-\d{4}-\d{2}-\d{2}$")


def price_for(prices: dict[str, ModelPrice], model: str | None) -> ModelPrice | None:
    """The model's price; a dated snapshot (gpt-4o-mini-2024-07-18) falls back to its family."""
    if not model:
        return None
    if model in prices:
        return prices[model]
    dated = DATED_SNAPSHOT.match(model)
    return prices.get(dated.group("family")) if dated else None


def estimate(
    prices: dict[str, ModelPrice], model: str | None, prompt_tokens: int, completion_tokens: int
) -> float | None:
    """Dollars for these tokens, or None when the model has no price."""
    price = price_for(prices, model)
    if price is None:
        return None
    return (prompt_tokens * price.input + completion_tokens * price.output) / PER_TOKENS


def estimate_usage(
    prices: dict[str, ModelPrice], backend: dict[str, str], usage: dict[str, Any]
) -> float | None:
    """Cost of a run's usage, priced by the model that answered (none for extractive)."""
    if backend.get("llm") == "extractive":
        return None
    return estimate(
        prices,
        backend.get("model"),
        int(usage.get("prompt_tokens", 0) or 0),
        int(usage.get("completion_tokens", 0) or 0),
    )
