#!/usr/bin/env bash
# JavaScript client tests (node --test): pure tests, transport tests against a scripted peer,
# tests against the real binary $1, and `tsc --strict` over index.d.ts (TypeScript comes from
# Debian's node-typescript, installed here when missing: there is no npm registry).
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
if ! command -v tsc >/dev/null; then
  echo "test-js: installing node-typescript (apt-get) for the type checks" >&2
  if [ "$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi
  $sudo apt-get install -y --no-install-recommends node-typescript >/dev/null ||
    { $sudo apt-get update >/dev/null && $sudo apt-get install -y --no-install-recommends node-typescript >/dev/null; }
fi
cd "$repo/clients/js"
FETCHD="$bin" exec node --test tests/
