#!/usr/bin/env bash
# Debian's python3-doc: Python's HTML documentation, a real Sphinx build that
# tests/test_remote_site.py serves from a local HTTP server and crawls. Skipped when it is
# installed already, and (with a note) where apt-get is not available: those tests skip.
set -euo pipefail
if dpkg-query -W -f='${Status}' python3-doc 2>/dev/null | grep -q "install ok installed"; then
    exit 0
fi
if ! command -v apt-get >/dev/null; then
    echo "install_python_docs.sh: no apt-get here; the site crawl tests will skip" >&2
    exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q python3-doc
