#!/usr/bin/env bash
# Install ragcli as a user would (pipx / uv tool install): build the sdist and, from it, the
# wheel; install the wheel into a fresh virtualenv in a temporary folder; then, outside the
# repository and with nothing of it on sys.path, run `ragcli --help`, `ingest` and `ask`
# offline. Fails when a file read at run time is missing from the wheel.
#
# Dependencies are kept as wheels in a wheelhouse (RAGCLI_WHEELHOUSE, default
# ~/.cache/ragcli/wheelhouse) and installed from it with --no-index: pip's HTTP cache does not
# keep this index's downloads, and fetching ~500 MB again costs minutes. When the wheelhouse
# lacks a dependency (the first run, a new requirement) it is filled from the index first.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
py=.venv/bin/python
wheelhouse=${RAGCLI_WHEELHOUSE:-$HOME/.cache/ragcli/wheelhouse}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ragcli-wheel.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS

# sdist, then the wheel built from the sdist: a file the sdist lacks fails here too.
# No build isolation: the dev venv's setuptools builds it, without a download.
"$py" -m build --no-isolation --outdir "$tmp/dist" . >"$tmp/build.log" 2>&1 ||
    { cat "$tmp/build.log"; exit 1; }
wheel=$(ls "$tmp"/dist/ragcli-*.whl)
listing=$("$py" -m zipfile -l "$wheel")
for data in ragcli/data/answer_choice.json ragcli/data/calibration.json ragcli/data/support.json; do
    grep -q "$data" <<<"$listing" || { echo "wheel lacks $data"; exit 1; }
done
echo "built $(basename "$wheel") and $(basename "$(ls "$tmp"/dist/ragcli-*.tar.gz)") ($((SECONDS - start)) s)"

python3 -m venv "$tmp/venv"
# --no-compile: byte-compiling 2 GB of site-packages is most of an install's CPU time, and
# Python compiles what it imports anyway.
pip_install() {
    "$tmp/venv/bin/pip" install -q --no-compile --no-index --find-links "$wheelhouse" "$wheel"
}
if ! pip_install 2>/dev/null; then
    mkdir -p "$wheelhouse"  # `pip wheel`, not `download`: an sdist-only dependency is built once
    "$tmp/venv/bin/pip" wheel -q -w "$wheelhouse" "$wheel"
    rm -f "$wheelhouse"/ragcli-*.whl
    pip_install
fi
echo "installed into a fresh venv: $(du -sh "$tmp/venv" | cut -f1) ($((SECONDS - start)) s)"

# A user's shell: not the repository, no PYTHONPATH, no keys, a cold model cache.
mkdir -p "$tmp/work" "$tmp/home"
cp -r sample_corpus/docs "$tmp/work/notes"
cd "$tmp/work"
run() {
    env -u PYTHONPATH -u OPENAI_API_KEY -u TAVILY_API_KEY -u RAGCLI_STORE \
        XDG_CACHE_HOME="$tmp/home/cache" XDG_DATA_HOME="$tmp/home/data" \
        "$tmp/venv/bin/ragcli" "$@"
}
location=$(env -u PYTHONPATH "$tmp/venv/bin/python" -c 'import ragcli; print(ragcli.__file__)')
case $location in "$tmp/venv/"*) ;; *) echo "ragcli imported from $location"; exit 1 ;; esac
run --help >/dev/null
run ingest notes -q >/dev/null
[ -d .ragcli ] || { echo "no store in ./.ragcli after ingest"; exit 1; }
answer=$(run ask "How do I restore a backup?" --json)
echo "$answer" | "$tmp/venv/bin/python" -c '
import json, sys
result = json.load(sys.stdin)
assert result["answer_type"] == "answer", result["answer_type"]
files = [s["metadata"]["source_file"] for s in result["sources"]]
assert any("backups_and_restore" in f for f in files), files
'
cd "$repo"
echo "wheel install check passed: --help, ingest, ask from $tmp/work ($((SECONDS - start)) s)"
