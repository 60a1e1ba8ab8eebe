from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragcli.cli import app
from ragcli.config import load_settings
from ragcli.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent


def test_defaults_match_the_reference_thresholds():
    s = load_settings(None, environ={})
    assert (s.crag.relevant_threshold, s.crag.ambiguous_threshold) == (0.7, 0.4)
    assert (s.reflect.min_score, s.reflect.max_retries) == (0.8, 2)
    assert (
        s.tos.qna_threshold,
        s.tos.qna_mid_threshold,
        s.tos.tos_threshold,
        s.tos.tos_mid_threshold,
        s.tos.tos_low_threshold,
        s.tos.verification_threshold,
    ) == (0.80, 0.70, 0.65, 0.55, 0.40, 0.70)
    assert (s.agentic.min_sub_questions, s.agentic.max_sub_questions, s.agentic.top_k) == (2, 4, 5)
    assert (s.retrieval.top_k, s.llm.model, s.llm.max_tokens, s.web.max_results) == (
        5,
        "gpt-4o-mini",
        500,
        3,
    )


def test_shipped_config_yaml_equals_builtin_defaults():
    assert load_settings(ROOT / "config.yaml", environ={}) == load_settings(None, environ={})


def test_precedence_defaults_file_env_flags(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("retrieval:\n  top_k: 7\ncrag:\n  relevant_threshold: 0.8\n")
    s = load_settings(config, environ={})
    assert s.retrieval.top_k == 7 and s.crag.relevant_threshold == 0.8
    env = {"RAGCLI_RETRIEVAL__TOP_K": "9", "RAGCLI_STORE": "/tmp/x"}
    s = load_settings(config, environ=env)
    assert s.retrieval.top_k == 9 and s.store.path == "/tmp/x"
    s = load_settings(config, {"retrieval.top_k": 3}, environ=env)
    assert s.retrieval.top_k == 3 and s.crag.relevant_threshold == 0.8


def test_config_yaml_in_working_directory_is_read(isolated):
    (isolated / "config.yaml").write_text("retrieval:\n  top_k: 11\n")
    assert load_settings(None, environ={}).retrieval.top_k == 11


@pytest.mark.parametrize(
    "text, expected",
    [
        ("crag:\n  relevant_treshold: 0.5\n", "crag.relevant_treshold: unknown key"),
        ("retrieval:\n  top_k: many\n", "retrieval.top_k"),
        ("crag:\n  relevant_threshold: 1.5\n", "crag.relevant_threshold"),
        ("tos:\n  tos_mid_threshold: 0.9\n", "tos: tos thresholds must satisfy"),
        ("crag:\n  ambiguous_threshold: 0.9\n", "ambiguous_threshold must not be above"),
        ("bogus:\n  x: 1\n", "bogus: unknown key"),
        ("crag: [1, 2\n", "not valid YAML"),
    ],
)
def test_bad_values_are_one_error_naming_the_key(tmp_path, text, expected):
    config = tmp_path / "bad.yaml"
    config.write_text(text)
    with pytest.raises(ConfigError) as error:
        load_settings(config, environ={})
    assert expected in str(error.value)
    assert str(config) in str(error.value)
    assert "\n" not in str(error.value)


def test_bad_environment_value_names_the_key():
    with pytest.raises(ConfigError, match="reflect.min_score"):
        load_settings(None, environ={"RAGCLI_REFLECT__MIN_SCORE": "2"})


@pytest.mark.parametrize(
    "args, env, said",
    [
        (["--llm", "nope"], {}, "error: --llm: llm.provider"),
        (["--top-k", "5"], {"RAGCLI_RETRIEVAL__TOP_K": "500"}, None),  # the flag wins
        ([], {"RAGCLI_RETRIEVAL__TOP_K": "500"}, "error: RAGCLI_RETRIEVAL__TOP_K: retrieval.top_k"),
        (["--set", "retrieval.top_k=500"], {}, "error: --set retrieval.top_k"),
    ],
)
def test_a_bad_value_names_the_flag_or_variable_it_came_from(tmp_path, args, env, said):
    """Not config.yaml, which the user never touched: the place they typed the value."""
    (tmp_path / "config.yaml").write_text("retrieval:\n  top_k: 6\n")
    result = CliRunner().invoke(
        app, ["ask", "q", *args, "--store", str(tmp_path / "none")], env=env
    )
    assert result.exit_code == 2
    if said is None:
        assert "top_k" not in result.output  # failed later, on the missing store
    else:
        assert result.output.startswith(said) and "config.yaml" not in result.output


def test_config_command_redacts_secrets_and_fails_cleanly(tmp_path):
    runner = CliRunner()
    result = runner.invoke(
        app,
        ["config", "--json"],
        env={"OPENAI_API_KEY": "sk-secret-123", "TAVILY_API_KEY": "tvly-abc"},
    )
    assert result.exit_code == 0
    assert "sk-secret-123" not in result.output and "tvly-abc" not in result.output
    assert '"api_key": "***"' in result.output
    bad = tmp_path / "bad.yaml"
    bad.write_text("llm:\n  temperature: hot\n")
    result = runner.invoke(app, ["config", "--config", str(bad)])
    assert result.exit_code == 2
    assert "llm.temperature" in result.output and "Traceback" not in result.output


def test_a_rule_across_a_sections_keys_names_where_they_came_from():
    with pytest.raises(ConfigError) as raised:
        load_settings(None, environ={"RAGCLI_EMBEDDING__PROVIDER": "openai"})
    assert str(raised.value).startswith("RAGCLI_EMBEDDING__PROVIDER: embedding: ")
    assert "needs embedding.url" in str(raised.value)


def test_the_embedding_key_and_store_token_come_from_the_environment_and_are_never_shown():
    settings = load_settings(
        None, environ={"RAGCLI_EMBEDDING_API_KEY": "sk-abc", "RAGCLI_STORE_TOKEN": "tok-abc"}
    )
    assert settings.embedding.api_key is not None
    assert settings.embedding.api_key.get_secret_value() == "sk-abc"
    shown = str(settings.redacted())
    assert "sk-abc" not in shown and "tok-abc" not in shown


@pytest.mark.parametrize(
    "variable, raw, read",
    [
        ("RAGCLI_STORE__COLLECTION", "2024", lambda s: s.store.collection),
        ("RAGCLI_STORE__TENANT", "no", lambda s: s.store.tenant),
        ("RAGCLI_STORE__DATABASE", "1.5", lambda s: s.store.database),
        ("RAGCLI_TOS__HANDOFF_MESSAGE", "true", lambda s: s.tos.handoff_message),
        ("RAGCLI_INGEST__OCR", "off", lambda s: s.ingest.ocr),  # a choice of words
        ("RAGCLI_EMBEDDING__TOKENIZER", "007", lambda s: s.embedding.tokenizer),  # str | None
    ],
)
def test_a_string_setting_from_the_environment_keeps_the_text(variable, raw, read):
    """YAML would read these as a number or a boolean; the field wants the text."""
    assert read(load_settings(None, environ={variable: raw})) == raw


def test_other_settings_from_the_environment_still_parse_by_their_type():
    settings = load_settings(
        None,
        environ={
            "RAGCLI_RETRIEVAL__TOP_K": "9",
            "RAGCLI_CRAG__RELEVANT_THRESHOLD": "0.75",
            "RAGCLI_TOS__HYBRID": "yes",
            "RAGCLI_SUPPORT__ENABLED": "false",
            "RAGCLI_INGEST__WORKERS": "3",
            "RAGCLI_STORE__URL": "~",  # optional: null stays None, the local store
        },
    )
    assert settings.retrieval.top_k == 9 and settings.crag.relevant_threshold == 0.75
    assert settings.tos.hybrid == ["bm25"] and settings.support.enabled is False
    assert settings.ingest.workers == 3 and settings.store.url is None


def test_numeric_looking_collection_and_tenant_work_through_the_command_line(tmp_path):
    """The background `ragcli sync` passes tenant and database through these variables."""
    import json
    import os
    import subprocess
    import sys

    env = {
        **os.environ,
        "RAGCLI_STORE__COLLECTION": "2024",
        "RAGCLI_STORE__TENANT": "no",
        "PYTHONPATH": str(ROOT),
    }

    def ragcli(*args: str) -> dict:
        done = subprocess.run(
            [sys.executable, "-m", "ragcli", *args, "--store", str(tmp_path / "s"), "--json"],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    assert ragcli("status")["store"]["default_collection"] == "2024"
    assert ragcli("config")["store"]["tenant"] == "no"
