#!/usr/bin/env bash
# A private virtualenv with one pinned PyPI package, made once and kept in .build/NAME; prints
# its python. Used by the interop clients (Tests/Interop/run-pygls.sh, Tests/MCP/run-mcp.sh).
#
#   scripts/pinned-venv.sh NAME PACKAGE VERSION
set -euo pipefail
name=${1:?usage: pinned-venv.sh NAME PACKAGE VERSION}
package=${2:?usage: pinned-venv.sh NAME PACKAGE VERSION}
version=${3:?usage: pinned-venv.sh NAME PACKAGE VERSION}
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.build/$name"
installed() {
  "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('$package') != '$version')" 2>/dev/null
}
if ! installed; then
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    # Debian splits venv out of python3.
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      apt-get update -qq >&2
      apt-get install -y -qq python3-venv >&2
      rm -rf "$venv"
      python3 -m venv "$venv" >&2
    else
      echo "$name needs python3 with venv: sudo apt-get install python3-venv" >&2
      exit 1
    fi
  fi
  "$venv/bin/pip" install -q --disable-pip-version-check "$package==$version" >&2
fi
echo "$venv/bin/python"
