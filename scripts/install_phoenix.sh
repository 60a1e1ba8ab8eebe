#!/usr/bin/env bash
# Arize Phoenix (an OpenTelemetry/OpenInference trace viewer) in its own virtualenv,
# .venv-phoenix, for tests/test_otel_phoenix.py, which starts `phoenix serve`, sends it a
# run's spans and reads them back. Phoenix pins its own FastAPI, SQLAlchemy, grpc and
# OpenTelemetry versions, so it does not share .venv. Made once and reused.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv-phoenix
if [ -x "$VENV/bin/phoenix" ]; then exit 0; fi
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q 'arize-phoenix==20.26.1'
