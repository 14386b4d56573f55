#!/usr/bin/env bash
# PostgreSQL faults a fetchd must survive (Tests/Soak/pg_faults.py; what each case does and
# expects is in its docstring and Tests/Soak/README.md): its backend terminated during a save
# (at the writers' lock, half done, at COMMIT, after the commit record), during a batch
# insert's COPY and while idle, and the server stopped and started again.
#
#   scripts/test-pg-faults.sh BIN [CASES]     CASES: a1,a2,a3,a4,b,c,d (default: all)
#
# Runs against a throwaway cluster (scripts/pg-cluster.sh: Unix socket only), which is stopped
# and removed in every outcome, as is the work directory; fetchd's logs are printed on failure.
# The PostgreSQL sessions use psycopg2 from a venv under .build/soak-venv (made on first use).
# Prints figures per case; exit 0 when every case passed. A loud SKIPPED without a server.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export PYTHONDONTWRITEBYTECODE=1
repo=$(cd "$here/.." && pwd)
bin=${1:?usage: scripts/test-pg-faults.sh /path/to/fetchd [CASES]}
cases=${2:-a1,a2,a3,a4,b,c,d}
case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
[ -x "$bin" ] || { echo "test-pg-faults: no fetchd binary at $bin" >&2; exit 1; }
if ! "$here/pg-cluster.sh" bindir >/dev/null 2>&1; then
    echo "################################################################" >&2
    echo "# SKIPPED: PostgreSQL faults: no PostgreSQL server (initdb/pg_ctl)" >&2
    echo "# is installed. Install it: apt-get install postgresql" >&2
    echo "################################################################" >&2
    exit 0
fi
py=$("$here/soak.sh" --venv)

# Two directories: the cluster's (chowned to postgres by pg-cluster.sh) and ours.
cluster=$(mktemp -d /tmp/fetchd-pgfaults.XXXXXX)
work=$(mktemp -d /tmp/fetchd-pgfaults-work.XXXXXX)
child=
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
        kill -TERM "$child" 2>/dev/null || true
        wait "$child" 2>/dev/null || true
    fi
    if [ "$status" != 0 ] && [ -d "$work" ]; then
        for f in "$work"/*.log; do
            [ -s "$f" ] || continue
            echo "---- $(basename "$f") (last 40 lines) ----" >&2
            tail -n 40 "$f" >&2
        done
    fi
    "$here/pg-cluster.sh" stop "$cluster" || true
    rm -rf "$cluster" "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
url=$("$here/pg-cluster.sh" start "$cluster")
echo "PostgreSQL faults: cluster $url, fetchd $bin" >&2
# In the background and waited for, so a TERM reaches the trap at once (which stops it by pid).
"$py" "$repo/Tests/Soak/pg_faults.py" --fetchd "$bin" --url "$url" --cluster "$cluster" \
    --workdir "$work" --cases "$cases" &
child=$!
wait "$child"
