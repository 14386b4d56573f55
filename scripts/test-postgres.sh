#!/usr/bin/env bash
# Runs the Swift suites matching FILTER (make's POSTGRES_TEST_FILTER) against a throwaway
# PostgreSQL cluster: starts it (scripts/pg-cluster.sh), exports FETCHD_TEST_POSTGRES_URL,
# and stops and removes it in every outcome. Expects `swift build --build-tests` done.
set -euo pipefail
filter=${1:?usage: test-postgres.sh FILTER}
here=$(cd "$(dirname "$0")" && pwd)
if ! "$here/pg-cluster.sh" bindir >/dev/null 2>&1; then
    echo "################################################################" >&2
    echo "# SKIPPED: PostgreSQL suites ($filter): no PostgreSQL server    " >&2
    echo "# (initdb/pg_ctl) is installed. Install it: apt-get install postgresql" >&2
    echo "################################################################" >&2
    exit 0
fi
dir=$(mktemp -d /tmp/fetchd-pg.XXXXXX)
trap '"$here/pg-cluster.sh" stop "$dir"' EXIT
trap 'exit 130' INT TERM
FETCHD_TEST_POSTGRES_URL=$("$here/pg-cluster.sh" start "$dir")
export FETCHD_TEST_POSTGRES_URL
echo "PostgreSQL test cluster: $FETCHD_TEST_POSTGRES_URL" >&2
${SWIFT:-swift} test --skip-build --filter "$filter"
# The PostgreSQL benchmark's smoke run: a few rows, its own mirror check (make bench runs it
# at full size against pg-baseline's floors).
"${PYTHON:-python3}" "$here/../Benchmarks/python/pg_bench.py" --fetchd "$here/../.build/debug/fetchd" \
    --url "$FETCHD_TEST_POSTGRES_URL" --rows 2000 --iterations 1 --notifies 5 >/dev/null
