#!/usr/bin/env bash
# The soak (Tests/Soak/soak.py; Tests/Soak/README.md says what it does and checks): 8 fetchd
# processes, each with controllers whose mirrors are built only from notifications, and 2
# plain SQL writers, all writing at random to ONE SQLite file, then the same on ONE PostgreSQL
# dataset (a throwaway cluster, scripts/pg-cluster.sh). SECONDS is the whole run: half for
# each phase (setup and the final checks included). Seeded: the seed is printed, and
# FETCHD_SOAK_SEED=N repeats a run's choices.
#
#   scripts/soak.sh BIN SECONDS         `make soak SECONDS=600` (`make test` runs `make test-soak`, 60 s)
#   scripts/soak.sh --venv              make the venv, print its python (scripts/test-pg-faults.sh)
#
# Exit non-zero on any lost acknowledged write, mirror mismatch, unexpected error or a fetchd
# that did not exit 0. Every process is stopped by its pid, the cluster and the temp directory
# removed, in every outcome (failure, SIGINT, SIGTERM); FETCHD_SOAK_KEEP=1 keeps the directory
# (logs, results, diagnoses; FETCHD_SOAK_TRACE=1 adds every notification). Without a
# PostgreSQL server the PostgreSQL phase is SKIPPED loudly and the file phase takes the whole
# time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export PYTHONDONTWRITEBYTECODE=1
repo=$(cd "$here/.." && pwd)

# The venv of the soak and the fault test: psycopg2 (PyPI's psycopg2-binary) for the
# PostgreSQL sessions; the fetchd client comes from the source tree (clients/python).
venv() {
    local venv="$repo/.build/soak-venv" python=${PYTHON:-python3}
    if ! "$venv/bin/python" -c "import psycopg2" >/dev/null 2>&1; then
        rm -rf "$venv"
        if ! "$python" -m venv "$venv" >/dev/null 2>&1; then
            # Debian's python3 without ensurepip: python3-venv provides it.
            if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
                local minor
                minor=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
                apt-get update -qq >&2
                apt-get install -y -qq "python$minor-venv" >&2 || apt-get install -y -qq python3-venv >&2
                rm -rf "$venv"
                "$python" -m venv "$venv" >&2
            else
                echo "soak: '$python -m venv' failed; install python3-venv" >&2
                return 1
            fi
        fi
        "$venv/bin/python" -m pip install -q --disable-pip-version-check psycopg2-binary >&2 || {
            echo "soak: cannot install psycopg2-binary from PyPI into $venv" >&2
            return 1
        }
    fi
    echo "$venv/bin/python"
}

if [ "${1:-}" = "--venv" ]; then
    venv
    exit
fi

bin=${1:?usage: scripts/soak.sh /path/to/fetchd SECONDS}
seconds=${2:?usage: scripts/soak.sh /path/to/fetchd SECONDS}
case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
[ -x "$bin" ] || { echo "soak: no fetchd binary at $bin" >&2; exit 1; }
case "$seconds" in '' | *[!0-9]*) echo "soak: SECONDS must be a whole number" >&2; exit 2 ;; esac
py=$(venv)

work=$(mktemp -d /tmp/fetchd-soak.XXXXXX)
cluster=
child=
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
        # soak.py stops its workers and their fetchd processes by pid on TERM.
        kill -TERM "$child" 2>/dev/null || true
        wait "$child" 2>/dev/null || true
    fi
    if [ "$status" != 0 ]; then
        for f in "$work"/*/*.log; do
            [ -s "$f" ] || continue
            echo "---- $f (last 20 lines) ----" >&2
            tail -n 20 "$f" >&2
        done
    fi
    if [ -n "$cluster" ]; then "$here/pg-cluster.sh" stop "$cluster" || true; fi
    if [ "${FETCHD_SOAK_KEEP:-0}" = 1 ]; then
        echo "soak: kept $work (logs, NAME.json results, NAME.diagnosis, NAME.trace with FETCHD_SOAK_TRACE=1)" >&2
    else
        rm -rf "$work"
    fi
    if [ -n "$cluster" ]; then rm -rf "$cluster"; fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

seed=${FETCHD_SOAK_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
args=(--fetchd "$bin" --seconds "$seconds" --seed "$seed" --workdir "$work")
if "$here/pg-cluster.sh" bindir >/dev/null 2>&1; then
    cluster=$(mktemp -d /tmp/fetchd-soak-pg.XXXXXX)
    args+=(--pg-url "$("$here/pg-cluster.sh" start "$cluster")")
else
    echo "################################################################" >&2
    echo "# SKIPPED: the soak's PostgreSQL phase: no PostgreSQL server     " >&2
    echo "# (initdb/pg_ctl) is installed. Install it: apt-get install postgresql" >&2
    echo "################################################################" >&2
fi
# In the background and waited for, so a TERM reaches the trap at once.
"$py" "$repo/Tests/Soak/soak.py" "${args[@]}" &
child=$!
wait "$child"
