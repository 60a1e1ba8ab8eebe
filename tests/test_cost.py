"""Estimated cost: priced from config's `prices:` table at display time, never stored."""

import json

import pytest
from typer.testing import CliRunner

from ragcli import cost
from ragcli.cli import app
from ragcli.config import ConfigError, ModelPrice, load_settings
from tests.conftest import settings_for
from tests.stubs import OpenAIStub

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


def test_format_cost_keeps_small_amounts_readable():
    assert cost.format_cost(0.000123) == "~$0.000123"
    assert cost.format_cost(1.5) == "~$1.5000"
    assert cost.format_cost(0) == "~$0"


def test_price_table_comes_from_config_and_bad_prices_name_the_key(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("prices:\n  my-model: {input: 1.0, output: 2.0}\n")
    settings = load_settings(config, environ={})
    assert set(settings.prices) == {"my-model"}  # the table replaces the built-in one
    assert settings.prices["my-model"].output == 2.0
    assert load_settings(None, environ={}).prices["gpt-4o-mini"].input == 0.15
    config.write_text("prices:\n  my-model: {input: -1, output: 2.0}\n")
    with pytest.raises(ConfigError, match="prices.my-model.input"):
        load_settings(config, environ={})


def test_ask_shows_cost_for_a_priced_model_only(sample_store, tmp_path):
    config = tmp_path / "config.yaml"
    question = "How long is the refund window for annual plans?"
    with OpenAIStub(default="Within 30 days [1].") as stub:
        base = ["--store", str(sample_store), "--config", str(config)]
        env = {"OPENAI_BASE_URL": stub.base_url, "OPENAI_API_KEY": "sk-test"}
        config.write_text("prices:\n  gpt-4o-mini: {input: 1000000, output: 1000000}\n")
        result = runner.invoke(app, ["ask", question, "--json", *base], env=env)
        assert result.exit_code == 0, result.output
        data = json.loads(result.output)
        tokens = data["usage"]["prompt_tokens"] + data["usage"]["completion_tokens"]
        # $1 per token: the estimate is the token count in dollars.
        assert data["estimated_cost_usd"] == pytest.approx(tokens)
        result = runner.invoke(app, ["ask", question, *base], env=env)
        assert f"~${tokens:.4f}" in result.output
        trace = runner.invoke(app, ["trace", *base], env=env)
        assert f"~${tokens:.4f}" in trace.output
        # The trace stores raw counts only: the cost is computed when shown.
        stored = runner.invoke(app, ["trace", "--json", *base], env=env)
        assert "cost" not in stored.output

        config.write_text("prices:\n  other-model: {input: 1, output: 1}\n")
        result = runner.invoke(app, ["ask", question, "--json", *base], env=env)
        assert "estimated_cost_usd" not in json.loads(result.output)
        result = runner.invoke(app, ["ask", question, *base], env=env)
        assert "~$" not in result.output and "tokens" in result.output
    settings = settings_for(sample_store)
    assert settings.prices  # built-in defaults when no config is given
