#!/usr/bin/env bash
# Python client tests: installs clients/python into the current Python, then runs pytest
# (pure tests, transport tests against a scripted peer, and tests against the real binary $1).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: scripts/test-python.sh /path/to/fetchd}
case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
if [ ! -x "$bin" ]; then
  echo "test-python: no fetchd binary at $bin (build it first: swift build)" >&2
  exit 1
fi
PYTHON=${PYTHON:-python3}
"$PYTHON" -m pip install -q --disable-pip-version-check --root-user-action=ignore "$repo/clients/python"
"$PYTHON" -c "import pytest" 2>/dev/null ||
  "$PYTHON" -m pip install -q --disable-pip-version-check --root-user-action=ignore pytest
# Run from tests/ so the installed package (not the source tree) is what gets imported.
cd "$repo/clients/python/tests"
FETCHD="$bin" exec "$PYTHON" -m pytest -q -p no:cacheprovider "${@:2}" .
