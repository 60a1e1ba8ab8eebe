#!/usr/bin/env bash
# Asciidoctor (Ruby), which reads AsciiDoc files (ragcli/blocks/asciidoc.py): Debian's
# package. Skipped when it is installed already, or on a system without apt (where
# `gem install asciidoctor` or `brew install asciidoctor` does the same).
set -euo pipefail
if command -v asciidoctor >/dev/null && command -v ruby >/dev/null; then exit 0; fi
if ! command -v apt-get >/dev/null; then
    echo "AsciiDoc files need Asciidoctor: gem install asciidoctor (or your package manager's)"
    exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -q
$SUDO apt-get install -y -q asciidoctor
