#!/usr/bin/env bash
# Arize Phoenix (an OpenTelemetry/OpenInference trace viewer) in its own virtualenv,
# .venv-phoenix, for tests/test_otel_phoenix.py, which starts `phoenix serve`, sends it a
# run's spans and reads them back. Phoenix pins its own FastAPI, SQLAlchemy, grpc and
# OpenTelemetry versions, so it does not share .venv. Made once per machine and linked.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/tool_venv.sh
VERSION=20.26.1
install_phoenix() { "$1/bin/pip" install -q "arize-phoenix==$VERSION"; }
tool_venv .venv-phoenix "phoenix-$VERSION" bin/phoenix install_phoenix
