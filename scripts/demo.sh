#!/usr/bin/env bash
# Set everything up and run the main job on the embedded defaults:
# create .venv, install, ingest sample_corpus/, ask a sample question, show its trace.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install.sh
export PATH="$PWD/.venv/bin:$PATH"
ragcli ingest sample_corpus                                   # docs and policies into `docs`
ragcli ingest sample_corpus/faq/faq.yaml --collection qna     # the FAQ, for --mode tos
ragcli ask "How long do I have to get a refund on an annual plan?"
ragcli trace
echo
echo "ragcli is in .venv/bin: run 'source .venv/bin/activate' to put it on your PATH."
