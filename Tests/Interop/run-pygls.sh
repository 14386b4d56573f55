#!/usr/bin/env bash
# Runs the pygls 2.1.1 interop client against a built fetchd, in a private virtualenv.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$(cd "$(dirname "${1:?usage: run-pygls.sh path/to/fetchd}")" && pwd)/$(basename "$1")"
python=$("$root/scripts/pinned-venv.sh" interop-venv pygls 2.1.1)
"$python" "$here/pygls_client.py" "$bin"
