"""API keys never appear in traces, `ragcli config`, logs (-v) or error messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.storecheck import cli_env, ragcli
from tests.support.stubs import Fault, OpenAIStub

OPENAI_KEY = "sk-test-SECRET-6f1d2c9e8b7a"
TAVILY_KEY = "tvly-SECRET-0a9b8c7d6e5f"


@pytest.mark.slow
def test_keys_appear_nowhere(sample_store, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Keys\nRotate keys every 90 days.\n")
    outputs: list[str] = []
    with OpenAIStub(default="Rotate them every 90 days [1].") as stub:
        env = cli_env(
            OPENAI_API_KEY=OPENAI_KEY, TAVILY_API_KEY=TAVILY_KEY, RAGCLI_LLM__BASE_URL=stub.base_url
        )
        store = str(sample_store)
        runs = [
            ("config",),
            ("config", "--json"),
            ("ingest", str(docs), "--store", store, "-v"),
            ("ask", "How often are keys rotated?", "--store", store, "-v"),
            ("ask", "How often are keys rotated?", "--store", store, "--json", "-v"),
            ("trace", "--store", store, "--json"),
            ("trace", "--list", "--store", store),
        ]
        for args in runs:
            out = ragcli(*args, cwd=tmp_path, env=env)
            assert out.returncode == 0, (args, out.stderr)
            outputs.append(out.stdout + out.stderr)
        stub.enqueue(*[Fault(401, '{"error": {"message": "Incorrect API key sk-test-SECRET"}}')])
        failing = ragcli(
            "ask",
            "How often are keys rotated?",
            "--store",
            store,
            "-v",
            cwd=tmp_path,
            env={**env, "RAGCLI_LLM__MAX_RETRIES": "0"},
        )
        assert failing.returncode == 1 and "HTTP 401" in failing.stderr
        outputs.append(failing.stdout + failing.stderr)
    # A key the configuration rejects is not echoed back either.
    bad = ragcli("config", cwd=tmp_path, env={**env, "RAGCLI_LLM__API_KEY": "[1, 2]"})
    outputs.append(bad.stdout + bad.stderr)
    assert stub.headers[0]["authorization"] == f"Bearer {OPENAI_KEY}"  # it was in force
    assert any("api_key: '***'" in o for o in outputs)
    for text in outputs:
        assert "6f1d2c9e8b7a" not in text and "0a9b8c7d6e5f" not in text
    for path in Path(sample_store).rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert b"6f1d2c9e8b7a" not in data and b"0a9b8c7d6e5f" not in data, path
