#!/usr/bin/env bash
# Set up (as scripts/install.sh) and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install.sh
./scripts/install_infinity.sh  # the real embedding engine tests/test_embedding_server.py starts
./scripts/install_phoenix.sh   # the OTLP receiver tests/test_otel_phoenix.py starts
./scripts/install_chromium.sh  # the browser tests/test_report_browser.py opens reports in
./scripts/install_llama.sh     # a real answer model (llama.cpp's server) for HyDE and the llm reranker
./scripts/install_llm_cli.sh   # the `llm` tool, a client of `serve --openai` nobody here wrote
./scripts/install_python_docs.sh  # Python's HTML docs, the site tests/test_remote_site.py crawls
.venv/bin/ruff check ragcli tests
if [ $# -eq 0 ]; then  # the whole run (CI); `test.sh tests/test_x.py` skips to the tests
    # The pipx-style install from the wheel, run outside the repository, mostly unpacks
    # packages: it runs beside the type check and the docs checks (a minute less on 2
    # cores), and its output is shown when it ends.
    wheel_log=$(mktemp)
    ./scripts/check_wheel.sh >"$wheel_log" 2>&1 &
    wheel_check=$!
    # A failure or Ctrl-C before it ends stops it too (and the step it is running).
    trap 'pkill -P "$wheel_check" 2>/dev/null; kill "$wheel_check" 2>/dev/null; rm -f "$wheel_log"' EXIT
fi
.venv/bin/mypy  # type-checks ragcli/ (settings in pyproject.toml)
if [ $# -eq 0 ]; then
    # The docs: every output block matches a fresh run; the site builds, no broken link.
    .venv/bin/python scripts/docs_examples.py --check
    site=$(mktemp -d)
    NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet --site-dir "$site"
    rm -rf "$site"
    wheel_ok=0
    wait "$wheel_check" || wheel_ok=$?
    trap - EXIT
    cat "$wheel_log"
    rm -f "$wheel_log"
    [ "$wheel_ok" -eq 0 ] || { echo "scripts/check_wheel.sh failed (exit $wheel_ok)"; exit 1; }
fi
[ $# -eq 0 ] || exec .venv/bin/python -m pytest "$@"

# Every test, in two lanes side by side. One pytest keeps only about one of the two cores
# busy (its tests mostly wait on the ragcli processes and servers they start), so the files
# that ingest the most, and the llama.cpp and Infinity servers, run in a second pytest in
# the background: about 20 minutes instead of 30 and more on 2 cores. Its output is shown
# when it ends.
heavy_lane=(
    tests/test_benchmark.py tests/test_interrupt.py tests/test_scale.py
    tests/test_hostile_documents.py tests/test_hostile_files.py
    tests/test_crash_recovery.py tests/test_renames.py
    tests/test_embedding_server.py tests/test_llama_server.py tests/test_hyde_server.py
    tests/test_rerank_llm.py
)
heavy_log=$(mktemp)
# `trap - INT`: a background job starts with Ctrl-C ignored; this one must get it (as the
# foreground lane does) to stop its servers on the way out.
(trap - INT; exec .venv/bin/python -m pytest -p no:cacheprovider --durations=10 "${heavy_lane[@]}") \
    >"$heavy_log" 2>&1 &
heavy=$!
trap 'kill -INT "$heavy" 2>/dev/null; wait "$heavy"; rm -f "$heavy_log"' EXIT
rest_ok=0
.venv/bin/python -m pytest --durations=15 "${heavy_lane[@]/#/--ignore=}" || rest_ok=$?
heavy_ok=0
wait "$heavy" || heavy_ok=$?
trap - EXIT
echo "---- the other lane: ${heavy_lane[*]#tests/}"
cat "$heavy_log"
rm -f "$heavy_log"
[ "$rest_ok" -eq 0 ] && [ "$heavy_ok" -eq 0 ]
