#!/usr/bin/env bash
# Fault injection against the fetchd binary $1 (Tests/Faults, stdlib unittest, the Python client
# from clients/python on sys.path): a full disk (a 2 MiB tmpfs) at a save, a batch insert and an
# insert; read-only (EROFS) and failing (EIO) writes during a session (Tests/Faults/faultinject.c
# built with cc and LD_PRELOADed); a read-only filesystem at open; the store's directory removed
# during a session; controller reads while another process deletes; and kill -9 of a watching
# fetchd at seeded moments while two other fetchd processes and a plain sqlite3 writer go on.
# Each test prints a one-line summary with its figures ("FAULTS name: ..."), recapped at the end.
#
# As root the tests run in a private mount namespace (unshare -m), so their tmpfs mounts exist
# only there and go with it; without root or unshare the mount tests are skipped, loudly.
# FAULTS_KILLS=N kill rounds (default 20), FAULTS_SEED=S (default 1), FAULTS_TIMEOUT=seconds for
# the whole run (default 900 + 10 per round). Extra arguments go to unittest in Tests/Faults
# (e.g. test_kill9, or test_disk_full.DiskFullTests). Every process the tests start is ended by
# its own pid, and the scratch directory is removed, in every outcome (SIGTERM and SIGINT
# included). Non-zero when a test fails.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: scripts/test-faults.sh /path/to/fetchd [unittest args]}
case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
if [ ! -x "$bin" ]; then
  echo "test-faults: no fetchd binary at $bin (build it first: swift build)" >&2
  exit 1
fi
PYTHON=${PYTHON:-python3}
kills=${FAULTS_KILLS:-20}
limit=${FAULTS_TIMEOUT:-$((900 + 10 * kills))}
work=$(mktemp -d "${TMPDIR:-/tmp}/fetchd-faults.XXXXXX")
runner=""

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [ -n "$runner" ] && kill -0 "$runner" 2>/dev/null; then
    # SIGTERM: Python turns it into KeyboardInterrupt, ends its processes and unmounts.
    kill -TERM "$runner" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$runner" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$runner" 2>/dev/null || true
    wait "$runner" 2>/dev/null || true
  fi
  # A process the tests started that outlived them (Python killed with SIGKILL): each by the
  # pid it recorded, and only while that pid still runs $bin.
  if [ -f "$work/pids" ]; then
    while read -r pid _; do
      if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$bin "; then
        kill -KILL "$pid" 2>/dev/null || true
      fi
    done <"$work/pids"
  fi
  if [ -s "$work/summary" ]; then
    echo "== test-faults summary (seed ${FAULTS_SEED:-1}, ${kills} kill rounds)" >&2
    cat "$work/summary" >&2
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

export FAULTS_BIN="$bin" FAULTS_WORKDIR="$work" FAULTS_KILLS="$kills" PYTHONDONTWRITEBYTECODE=1
namespace=()
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && unshare -m --propagation private true 2>/dev/null; then
  export FAULTS_MOUNTS=1
  namespace=(unshare -m --propagation private)
else
  export FAULTS_MOUNTS=0
  echo "test-faults: WARNING: not root or no unshare -m: the disk-full and read-only-filesystem tests are SKIPPED" >&2
fi
if [ $# -gt 1 ]; then
  tests=(-v "${@:2}")
else
  tests=(discover -v -s . -p 'test_*.py')
fi
cd "$repo/Tests/Faults"
# timeout forwards SIGTERM to the runner (Python, exec'd by unshare), so cleanup's TERM reaches it.
timeout -s TERM -k 30 "$limit" "${namespace[@]}" "$PYTHON" -m unittest "${tests[@]}" &
runner=$!
wait "$runner"
