#!/usr/bin/env bash
# Set up (as scripts/install.sh) and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install.sh
./scripts/install_infinity.sh  # the real embedding engine tests/test_embedding_server.py starts
./scripts/install_phoenix.sh   # the OTLP receiver tests/test_otel_phoenix.py starts
./scripts/install_chromium.sh  # the browser tests/test_report_browser.py opens reports in
./scripts/install_llama.sh     # a real answer model (llama.cpp's server) for HyDE and the llm reranker
.venv/bin/ruff check ragcli tests
.venv/bin/mypy  # type-checks ragcli/ (settings in pyproject.toml)
if [ $# -eq 0 ]; then  # the whole run (CI); `test.sh tests/test_x.py` skips to the tests
    # The docs: every output block matches a fresh run; the site builds, no broken link.
    .venv/bin/python scripts/docs_examples.py --check
    site=$(mktemp -d)
    NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet --site-dir "$site"
    rm -rf "$site"
    ./scripts/check_wheel.sh  # pipx-style install from the wheel, run outside the repository
fi
exec .venv/bin/python -m pytest "$@"
