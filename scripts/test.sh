#!/usr/bin/env bash
# Set up (as scripts/install.sh) and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install.sh
./scripts/install_infinity.sh  # the real embedding engine tests/test_embedding_server.py starts
./scripts/install_phoenix.sh   # the OTLP receiver tests/test_otel_phoenix.py starts
./scripts/install_chromium.sh  # the browser tests/test_report_browser.py opens reports in
.venv/bin/ruff check ragcli tests
.venv/bin/mypy  # type-checks ragcli/ (settings in pyproject.toml)
exec .venv/bin/python -m pytest "$@"
