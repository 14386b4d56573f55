#!/usr/bin/env bash
# Python client checks in a venv under .build/ (never the system Python): installs pytest, mypy
# and clients/python (built by its PEP 517 backend, setuptools), runs mypy --strict on the
# package and its generator, then pytest (pure tests, transport tests against a scripted peer,
# and tests against the real binary $1). Extra arguments go to pytest. Non-zero on any failure.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: scripts/test-python.sh /path/to/fetchd [pytest args]}
case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
if [ ! -x "$bin" ]; then
  echo "test-python: no fetchd binary at $bin (build it first: swift build)" >&2
  exit 1
fi
PYTHON=${PYTHON:-python3}
venv="$repo/.build/python-venv"
pip_quiet=(-q --disable-pip-version-check)

make_venv() {
  rm -rf "$venv"
  "$PYTHON" -m venv "$venv"
}
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import sys" 2>/dev/null; then
  if ! make_venv 2>/dev/null; then
    # Debian's python3 without ensurepip: python3-venv provides it.
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      minor=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
      apt-get update -qq && { apt-get install -y -qq "python$minor-venv" || apt-get install -y -qq python3-venv; }
      make_venv
    else
      echo "test-python: '$PYTHON -m venv' failed; install python3-venv" >&2
      exit 1
    fi
  fi
fi
py="$venv/bin/python"
"$py" -c "import pytest, mypy" 2>/dev/null || "$py" -m pip install "${pip_quiet[@]}" pytest mypy
# A real install (not the source tree), so packaging mistakes show up here.
"$py" -m pip install "${pip_quiet[@]}" --force-reinstall --no-deps "$repo/clients/python"

cd "$repo/clients/python"
MYPY_CACHE_DIR="$repo/.build/mypy-cache" "$py" -m mypy --strict fetchd tools
# Run from tests/ so the installed package (not the source tree) is what gets imported.
cd tests
FETCHD="$bin" "$py" -m pytest -q -p no:cacheprovider "${@:2}" .
