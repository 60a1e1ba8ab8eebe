"""Estimated cost: priced from config's `prices:` table at display time, never stored."""

import pytest
from typer.testing import CliRunner

from ragcli import cost
from ragcli.config import ModelPrice

runner = CliRunner()
PRICES = {"gpt-4o-mini": ModelPrice(input=0.15, output=0.60)}


def test_estimate_uses_input_and_output_prices_per_million():
    assert cost.estimate(PRICES, "gpt-4o-mini", 1_000_000, 0) == pytest.approx(0.15)
    assert cost.estimate(PRICES, "gpt-4o-mini", 2000, 1000) == pytest.approx(0.0009)


def test_unpriced_models_and_the_extractive_backend_have_no_cost():
    assert cost.estimate(PRICES, "llama3", 1000, 1000) is None
    assert cost.estimate(PRICES, None, 1000, 1000) is None
    usage = {"prompt_tokens": 1000, "completion_tokens": 10}
    assert cost.estimate_usage(PRICES, {"llm": "extractive", "model": "gpt-4o-mini"}, usage) is None
    assert cost.estimate_usage(PRICES, {"llm": "openai", "model": "gpt-4o-mini"}, usage) > 0


def test_dated_snapshots_take_their_family_price_but_other_models_do_not():
    prices = {"gpt-4o": ModelPrice(input=2.5, output=10)}
    assert cost.price_for(prices, "gpt-4o-2024-08-06") is prices["gpt-4o"]
    assert cost.price_for(prices, "gpt-4o-mini") is None  # never priced as its bigger sibling
