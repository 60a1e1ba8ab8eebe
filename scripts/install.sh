#!/usr/bin/env bash
# Create .venv and install ragcli with its test tools. torch is installed first and pinned
# (torch==2.13.0, the CPU build) so that no dependency pulls a multi-GB CUDA build.
# Elsewhere, point pip at PyTorch's CPU index first:
#   PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu ./scripts/install.sh
# pip byte-compiles what it installs (a third of a fresh install): not skipped, since with
# PYTHONDONTWRITEBYTECODE set, as on the CI machine, Python would never write a .pyc and
# every test process would compile numpy, torch and chromadb from source again.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q torch==2.13.0
.venv/bin/pip install -q -e '.[dev]'
./scripts/install_asciidoctor.sh  # reads AsciiDoc (a Debian package; docs/ingest.md)
