#!/usr/bin/env bash
# Create .venv and install ragcli with its test tools. torch is installed first and pinned
# (torch==2.13.0, the CPU build) so that no dependency pulls a multi-GB CUDA build.
# Elsewhere, point pip at PyTorch's CPU index first:
#   PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu ./scripts/install.sh
# --no-compile: byte-compiling all of site-packages (2 GB) was a third of a fresh install
# (125 s against 180 s on 2 cores); Python compiles the modules it imports, once.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q --no-compile torch==2.13.0
.venv/bin/pip install -q --no-compile -e '.[dev]'
