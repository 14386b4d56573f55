#!/usr/bin/env bash
# Runs the pygls 2.1.1 interop client against a built fetchd, in a private virtualenv.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$(cd "$(dirname "${1:?usage: run-pygls.sh path/to/fetchd}")" && pwd)/$(basename "$1")"
venv="$root/.build/interop-venv"
if ! "$venv/bin/python" -c 'import pygls, lsprotocol' 2>/dev/null \
   || [ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("pygls"))')" != 2.1.1 ]; then
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    # Debian splits venv out of python3.
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      apt-get install -y -qq python3-venv >&2
      python3 -m venv "$venv"
    else
      echo "test-interop needs python3 with venv: sudo apt-get install python3-venv" >&2
      exit 1
    fi
  fi
  "$venv/bin/pip" install -q pygls==2.1.1
fi
"$venv/bin/python" "$here/pygls_client.py" "$bin"
