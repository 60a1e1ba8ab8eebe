#!/usr/bin/env bash
# Simon Willison's `llm` command-line tool in its own virtualenv, .venv-llm, for
# tests/test_openai_endpoint.py, which configures it with an OpenAI-compatible model that
# points at `ragcli serve --openai` (its extra-openai-models.yaml) and asks through it: a
# real client nobody here wrote. Made once per machine and linked.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/tool_venv.sh
VERSION=0.36
install_llm() { "$1/bin/pip" install -q "llm==$VERSION"; }
tool_venv .venv-llm "llm-$VERSION" bin/llm install_llm
