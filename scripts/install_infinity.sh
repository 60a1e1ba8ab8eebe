#!/usr/bin/env bash
# The Infinity embedding engine (infinity-emb) in its own virtualenv, .venv-infinity, for the
# tests that embed or rerank through a real serving engine. Infinity pins older numpy, typer
# and rich than ragcli, so it cannot share .venv. Made once per machine and linked; torch is
# pinned to the CPU build first, as in install.sh, so the torch extra does not pull a
# multi-GB CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/tool_venv.sh
VERSION=0.0.78
install_infinity() {
    "$1/bin/pip" install -q torch==2.13.0
    "$1/bin/pip" install -q "infinity-emb[server,torch]==$VERSION" torch==2.13.0
}
tool_venv .venv-infinity "infinity-$VERSION" bin/infinity_emb install_infinity
