#!/usr/bin/env bash
# The inner loop: ruff, then every test that starts no server and takes at most a few
# seconds (`-m "not slow and not server"`), in under 5 minutes on a 2-core machine.
# CI runs everything with scripts/test.sh. Arguments go to pytest (`-x`, a path, `-k`).
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/ruff check ragcli tests
exec .venv/bin/python -m pytest -m "not slow and not server" -q "$@"
