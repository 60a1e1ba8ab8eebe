#!/usr/bin/env bash
# Debian's headless Chromium and its WebDriver, for tests/test_report_browser.py, which opens
# `ragcli trace --html` pages in a real browser. Skipped when both are installed already.
set -euo pipefail
if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then exit 0; fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -q
$SUDO apt-get install -y -q chromium chromium-driver
