#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and benchmarks.
#
#   scripts/pg-cluster.sh start DIR   initdb in DIR, start a server listening only on a Unix
#                                      socket in DIR, print its connection URL
#   scripts/pg-cluster.sh stop DIR    stop that server (pg_ctl -D DIR, fast) and remove DIR
#   scripts/pg-cluster.sh bindir      print the server binaries' directory (fails if none)
#
# PostgreSQL refuses to run as root: as root the cluster belongs to the `postgres` user (DIR
# is chowned to it); otherwise to the current user. No TCP port is opened, so parallel clusters
# never collide, and only the server whose data directory is DIR is ever stopped.
set -euo pipefail

bindir() {
    if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
        dirname "$(command -v pg_ctl)"
        return
    fi
    # Debian/Ubuntu keep the server binaries per major version; take the newest.
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    if [ -n "$dir" ] && [ -x "$dir/pg_ctl" ] && [ -x "$dir/initdb" ]; then
        echo "$dir"
        return
    fi
    echo "pg-cluster: PostgreSQL server binaries (initdb, pg_ctl) not found" >&2
    return 1
}

# Runs a command as the cluster's owner.
as_owner() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

owner() {
    if [ "$(id -u)" = 0 ]; then echo postgres; else id -un; fi
}

start() {
    local dir=$1 bin
    bin=$(bindir)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [ "$(id -u)" = 0 ]; then
        chown postgres: "$dir"
        # The postgres user must be able to reach DIR (e.g. under a root-only 0700 parent).
        local parent
        parent=$(dirname "$dir")
        while [ "$parent" != / ]; do
            if ! runuser -u postgres -- test -x "$parent"; then
                echo "pg-cluster: $parent is not searchable by postgres; use a directory under /tmp" >&2
                return 1
            fi
            parent=$(dirname "$parent")
        done
    fi
    chmod 700 "$dir"
    as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 || {
        cat "$dir/initdb.log" >&2
        return 1
    }
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100" \
        start >/dev/null || {
        cat "$dir/server.log" >&2
        return 1
    }
    # libpq URI: an empty host part, the socket directory in the `host` query parameter.
    echo "postgresql:///postgres?host=$dir&user=postgres"
}

stop() {
    local dir=$1 bin
    [ -d "$dir" ] || return 0
    bin=$(bindir)
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    fi
    rm -rf "$dir"
}

case "${1:-}" in
start) start "${2:?usage: pg-cluster.sh start DIR}" ;;
stop) stop "${2:?usage: pg-cluster.sh stop DIR}" ;;
bindir) bindir ;;
*)
    echo "usage: pg-cluster.sh start DIR | stop DIR | bindir" >&2
    exit 2
    ;;
esac
