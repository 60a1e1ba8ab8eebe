# Sourced by the install_*.sh of the servers the tests start. A server's virtualenv is
# made once per machine, under ~/.cache/ragcli-test/venvs/NAME-VERSION, and linked into
# the checkout, so a clean clone (CI) or a second worktree links it instead of
# reinstalling; a lock keeps two checkouts from building it at once.
#
#   tool_venv .venv-phoenix phoenix-20.26.1 bin/phoenix install_phoenix
#
# links CHECKOUT/.venv-phoenix to the shared venv, first calling the function
# install_phoenix with the venv's path unless an earlier install ran to its end (a
# `.complete` mark; bin/phoenix tells a venv made in the checkout by an older script).
tool_venv() {
    local link=$1 key=$2 probe=$3 install=$4
    if [ -e "$link/$probe" ] && [ ! -L "$link" ]; then return 0; fi  # a venv made in place
    local shared="${XDG_CACHE_HOME:-$HOME/.cache}/ragcli-test/venvs/$key"
    mkdir -p "$(dirname "$shared")"
    (
        flock 9
        if [ ! -e "$shared/.complete" ]; then
            rm -rf "$shared"
            python3 -m venv "$shared"
            "$install" "$shared"
            touch "$shared/.complete"
        fi
    ) 9>"$shared.lock"
    rm -rf "$link"
    ln -s "$shared" "$link"
}
