#!/usr/bin/env bash
# The Infinity embedding engine (infinity-emb) in its own virtualenv, .venv-infinity, for the
# tests that embed through a real serving engine. Infinity pins older numpy, typer and rich
# than ragcli, so it cannot share .venv. Made once and reused; torch is pinned to the CPU
# build first, as in install.sh, so the torch extra does not pull a multi-GB CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv-infinity
if [ -x "$VENV/bin/infinity_emb" ]; then exit 0; fi
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q torch==2.13.0
"$VENV/bin/pip" install -q 'infinity-emb[server,torch]==0.0.78' torch==2.13.0
