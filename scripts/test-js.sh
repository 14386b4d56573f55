#!/usr/bin/env bash
# JavaScript client tests (node --test): pure tests, transport tests against a scripted peer,
# and tests against the real binary $1.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: scripts/test-js.sh /path/to/fetchd}
case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
if [ ! -x "$bin" ]; then
  echo "test-js: no fetchd binary at $bin (build it first: swift build)" >&2
  exit 1
fi
if ! command -v node >/dev/null; then
  echo "test-js: node (>= 18) is required" >&2
  exit 1
fi
cd "$repo/clients/js"
FETCHD="$bin" exec node --test tests/
