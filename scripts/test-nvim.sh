#!/usr/bin/env bash
# The Neovim sample (clients/nvim) against the real binary: nvim --headless runs
# clients/nvim/test/run.lua, which drives the plugin through a series of changes and compares
# the buffer with controller/rows after each. nvim and the fetchd processes it started are
# stopped in every outcome; a run over 45 s is killed and fails.
set -uo pipefail
bin=$(realpath "${1:-.build/debug/fetchd}")
root=$(cd "$(dirname "$0")/.." && pwd)
command -v nvim >/dev/null 2>&1 || { echo "test-nvim: nvim is missing (apt-get install neovim)" >&2; exit 1; }
[ -x "$bin" ] || { echo "test-nvim: no fetchd at $bin (swift build first)" >&2; exit 1; }
tmp=$(mktemp -d)
nvim_pid=
watchdog=
cleanup() {
    if [ -n "$watchdog" ]; then
        pkill -P "$watchdog" 2>/dev/null # its sleep
        kill "$watchdog" 2>/dev/null
    fi
    if [ -n "$nvim_pid" ] && kill -0 "$nvim_pid" 2>/dev/null; then
        pkill -TERM -P "$nvim_pid" 2>/dev/null # its fetchd children, by parent pid
        kill "$nvim_pid" 2>/dev/null
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

FETCHD_BIN=$bin FETCHD_TEST_DIR=$tmp nvim --headless -u NONE -i NONE -n \
    --cmd "set runtimepath^=$root/clients/nvim" -c "luafile $root/clients/nvim/test/run.lua" </dev/null &
nvim_pid=$!
(sleep 45 && echo "test-nvim: timed out" >&2 && pkill -TERM -P "$nvim_pid"; kill "$nvim_pid") 2>/dev/null &
watchdog=$!
wait "$nvim_pid"
status=$?
nvim_pid=
exit $status
