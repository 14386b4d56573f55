#!/usr/bin/env bash
# The Neovim plugin (clients/nvim) against the real binary: a grep for APIs deprecated in
# Neovim 0.10, then three headless nvim runs:
# - clients/nvim/test/run.lua drives the plugin through a series of changes and compares the
#   buffer with controller/rows after each; then several sort keys, and the model rules;
# - clients/nvim/test/path.lua checks that setup({}) starts the fetchd found on PATH (a temp
#   dir holding a `fetchd` symlink to the binary comes first; FETCHD and FETCHD_BIN are unset)
#   and that another protocol version is reported;
# - clients/nvim/test/plugin.lua runs in an nvim that loads plugins as a user's does: the
#   commands exist before setup(), the help file's tags, :checkhealth fetchd, completion.
# nvim and the fetchd processes it started are stopped in every outcome; a run over 45 s is
# killed and fails.
set -uo pipefail
bin=$(realpath "${1:-.build/debug/fetchd}")
root=$(cd "$(dirname "$0")/.." && pwd)
command -v nvim >/dev/null 2>&1 || { echo "test-nvim: nvim is missing (apt-get install neovim)" >&2; exit 1; }
[ -x "$bin" ] || { echo "test-nvim: no fetchd at $bin (swift build first)" >&2; exit 1; }
tmp=$(mktemp -d)
nvim_pid=
watchdog=
stop() {
    if [ -n "$watchdog" ]; then
        pkill -P "$watchdog" 2>/dev/null # its sleep
        kill "$watchdog" 2>/dev/null
    fi
    if [ -n "$nvim_pid" ] && kill -0 "$nvim_pid" 2>/dev/null; then
        pkill -TERM -P "$nvim_pid" 2>/dev/null # its fetchd children, by parent pid
        kill "$nvim_pid" 2>/dev/null
    fi
    watchdog=
    nvim_pid=
}
cleanup() {
    stop
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# run_nvim LUAFILE [VAR=value...]: nvim --headless runs LUAFILE in that environment; its status.
# -u NONE loads no plugin at all (neither the system's nor a fetchd plugin the .deb may have
# put on the packpath), so this checkout's plugin/fetchd.lua is sourced by its path, as
# Neovim's startup would source it. RUN_NVIM_INIT=NORC loads plugins instead (plugin.lua).
run_nvim() {
    local file=$1
    shift
    local init=(-u NONE --cmd "set runtimepath^=$root/clients/nvim"
        --cmd "source $root/clients/nvim/plugin/fetchd.lua")
    if [ "${RUN_NVIM_INIT:-}" = NORC ]; then
        # -u NORC: no init.vim/init.lua, but plugins load (plugin/ of every 'runtimepath'
        # entry, start packages); the XDG dirs of the run keep the user's own out
        init=(-u NORC --cmd "set runtimepath^=$root/clients/nvim")
    fi
    env "$@" nvim --headless "${init[@]}" -i NONE -n -c "luafile $file" </dev/null &
    nvim_pid=$!
    (sleep 45 && echo "test-nvim: $(basename "$file") timed out" >&2 && pkill -TERM -P "$nvim_pid"; kill "$nvim_pid") 2>/dev/null &
    watchdog=$!
    wait "$nvim_pid"
    local status=$?
    nvim_pid=
    stop
    return $status
}

# APIs deprecated in Neovim 0.10 (vim.loop. as a call: `vim.uv or vim.loop` is the way to
# keep 0.7, where vim.uv is missing), searched in every Lua file of the plugin and its tests
deprecated='nvim_(buf|win)_(get|set)_option|nvim_(get|set)_option\(|nvim_exec\(|buf_get_clients|get_active_clients|tbl_islist|tbl_flatten|tbl_add_reverse_lookup|vim\.loop\.|vim\.health\.report_|jump_to_location'
status=0
for sample in 'vim.api.nvim_buf_set_option(0, "x", 1)' 'vim.loop.kill(1)' 'vim.tbl_islist(t)'; do
    printf '%s\n' "$sample" | grep -qE "$deprecated" || { echo "test-nvim: the grep misses $sample" >&2; status=1; }
done
if grep -rnE "$deprecated" "$root/clients/nvim" --include='*.lua'; then
    echo "FAIL the plugin uses APIs deprecated in Neovim 0.10 (above)"
    status=1
else
    echo "ok   no API deprecated in Neovim 0.10 in clients/nvim"
fi

mkdir -p "$tmp/run" "$tmp/path" "$tmp/bin" "$tmp/plugin"
run_nvim "$root/clients/nvim/test/run.lua" FETCHD_BIN="$bin" FETCHD_TEST_DIR="$tmp/run"
run_status=$?
[ "$status" -eq 0 ] && status=$run_status

ln -s "$bin" "$tmp/bin/fetchd"
# the fake fetchd, executable whatever mode the checkout gave it
install -m 755 "$root/clients/nvim/test/fake_fetchd.py" "$tmp/fake_fetchd.py"
run_nvim "$root/clients/nvim/test/path.lua" -u FETCHD -u FETCHD_BIN PATH="$tmp/bin:$PATH" \
    FETCHD_TEST_DIR="$tmp/path" FETCHD_PATH_DIR="$tmp/bin" FETCHD_EXPECT_EXE="$bin" \
    FETCHD_FAKE="$tmp/fake_fetchd.py"
path_status=$?
[ "$status" -eq 0 ] && status=$path_status

RUN_NVIM_INIT=NORC run_nvim "$root/clients/nvim/test/plugin.lua" -u FETCHD FETCHD_BIN="$bin" \
    FETCHD_TEST_DIR="$tmp/plugin" FETCHD_ROOT="$root/clients/nvim" FETCHD_FAKE="$tmp/fake_fetchd.py" \
    XDG_CONFIG_HOME="$tmp/plugin/config" XDG_DATA_HOME="$tmp/plugin/data" \
    XDG_STATE_HOME="$tmp/plugin/state" XDG_CACHE_HOME="$tmp/plugin/cache"
plugin_status=$?
[ "$status" -eq 0 ] && status=$plugin_status
exit $status
