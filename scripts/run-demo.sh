#!/usr/bin/env bash
# `make run`: the live terminal view of the contacts sample on fetchd's embedded in-memory
# store. $1 is the fetchd binary (the release build). On a terminal it animates in place;
# without one it prints each frame. It exits by itself (about 20 s on a terminal).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$repo/.build/release/fetchd}
case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
if [ ! -x "$bin" ]; then
  echo "run-demo: no fetchd binary at $bin (build it first: swift build -c release)" >&2
  exit 1
fi
PYTHON=${PYTHON:-python3}
# The samples find the client package next to them, so nothing needs installing.
exec "$PYTHON" "$repo/clients/python/samples/live_contacts.py" --fetchd "$bin" "${@:2}"
