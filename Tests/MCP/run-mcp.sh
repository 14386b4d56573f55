#!/usr/bin/env bash
# Runs the official MCP Python SDK (mcp 2.3.0) against `fetchd mcp`, in a private virtualenv;
# with --latency, measures how fast an external commit reaches a subscribed client instead.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$(cd "$(dirname "${1:?usage: run-mcp.sh path/to/fetchd [--latency]}")" && pwd)/$(basename "$1")"
venv="$root/.build/mcp-venv"
if ! "$venv/bin/python" -c 'import mcp' 2>/dev/null \
   || [ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))')" != 2.3.0 ]; then
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    # Debian splits venv out of python3.
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      apt-get update -qq >&2
      apt-get install -y -qq python3-venv >&2
      rm -rf "$venv"
      python3 -m venv "$venv"
    else
      echo "test-mcp needs python3 with venv: sudo apt-get install python3-venv" >&2
      exit 1
    fi
  fi
  "$venv/bin/pip" install -q mcp==2.3.0
fi
if [ "${2:-}" = --latency ]; then
  exec "$venv/bin/python" "$here/latency.py" "$bin"
fi
exec "$venv/bin/python" "$here/mcp_client.py" "$bin"
