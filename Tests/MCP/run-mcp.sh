#!/usr/bin/env bash
# Runs the official MCP Python SDK (mcp 2.3.0) against `fetchd mcp`, in a private virtualenv;
# with --latency, measures how fast an external commit reaches a subscribed client instead.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$(cd "$(dirname "${1:?usage: run-mcp.sh path/to/fetchd [--latency]}")" && pwd)/$(basename "$1")"
python=$("$root/scripts/pinned-venv.sh" mcp-venv mcp 2.3.0)
if [ "${2:-}" = --latency ]; then
  exec "$python" "$here/latency.py" "$bin"
fi
exec "$python" "$here/mcp_client.py" "$bin"
