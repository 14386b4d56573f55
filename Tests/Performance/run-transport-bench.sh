#!/usr/bin/env bash
# Builds fetchd in release mode and the C transport benchmark, then runs it over real pipes.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
swift build -c release --product fetchd >&2
mkdir -p .build/perf
cc -O2 -pthread -o .build/perf/transport-bench Tests/Performance/transport-bench.c
.build/perf/transport-bench .build/release/fetchd "${1:-20000}"
