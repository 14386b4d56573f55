#!/usr/bin/env bash
# make sanitize: the Swift test suite built and run under the address sanitizer, each
# sanitizer in its own scratch directory (.build/sanitize-*).
# usage: sanitize.sh [address thread ...]   (default: address)
# `undefined` is refused by swiftc 6.3 on Linux ("unsupported option '-sanitize=undefined'");
# Swift itself traps on overflow and out-of-bounds access, and the C libraries are the
# system's, so the address sanitizer is the one that finds what Swift cannot.
set -uo pipefail
cd "$(dirname "$0")/.."
sanitizers=("$@")
[ ${#sanitizers[@]} -gt 0 ] || sanitizers=(address)
# Timing-only suites say nothing under a sanitizer and take long there.
skip=(--skip 'PerformanceTests|BenchmarkTests|FetchBenchmarkTests|StoreBenchmarkTests')
# The PostgreSQL suites (the Makefile's POSTGRES_TEST_FILTER) run sanitized too, on a
# throwaway cluster; without a PostgreSQL server they are skipped, loudly.
pg_filter=${POSTGRES_TEST_FILTER:-$(sed -n 's/^POSTGRES_TEST_FILTER ?= //p' Makefile)}
pg_dir=""
trap '[ -n "$pg_dir" ] && scripts/pg-cluster.sh stop "$pg_dir"' EXIT
if scripts/pg-cluster.sh bindir >/dev/null 2>&1; then
  pg_dir=$(mktemp -d /tmp/fetchd-pg.XXXXXX)
  FETCHD_TEST_POSTGRES_URL=$(scripts/pg-cluster.sh start "$pg_dir") || exit 1
  export FETCHD_TEST_POSTGRES_URL
else
  echo "sanitize: SKIPPED the PostgreSQL suites ($pg_filter): no PostgreSQL server installed" >&2
  skip=(--skip "PerformanceTests|BenchmarkTests|FetchBenchmarkTests|StoreBenchmarkTests|$pg_filter")
fi
failed=0
for s in "${sanitizers[@]}"; do
  scratch=.build/sanitize-$s
  echo "sanitize: $s (build in $scratch)"
  if ! swift build --build-tests --sanitize="$s" --scratch-path "$scratch"; then failed=1; continue; fi
  # The end-to-end tests spawn the sanitized fetchd from the same build directory.
  if ! FETCHD_BIN="$PWD/$scratch/debug/fetchd" ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      swift test --skip-build --sanitize="$s" --scratch-path "$scratch" "${skip[@]}"; then
    failed=1
  fi
done
[ "$failed" -eq 0 ] && echo "sanitize: ${sanitizers[*]}: no findings"
exit "$failed"
