#!/usr/bin/env bash
# Interim `make run`: drives fetchd through a scripted JSON-RPC session over real pipes and
# prints each message it sends (-->) and each one fetchd writes back (<--). Requests wait for
# their answer; notifications get none. Replaced by the live controller demo once the store
# and controllers are wired into the server.
set -euo pipefail
bin="${1:?usage: run-demo.sh path/to/fetchd}"

# Each entry: "answered|message" or "silent|message" (notifications get no reply).
session=(
  'answered|{"jsonrpc":"2.0","method":"initialize","params":{"clientInfo":{"name":"make run"}},"id":1}'
  'silent|{"jsonrpc":"2.0","method":"initialized","params":{}}'
  'answered|{"jsonrpc":"2.0","method":"server/echo","params":{"value":{"text":"héllo 😀","n":[1,0.1,-0.0,9223372036854775807]}},"id":2}'
  'answered|[{"jsonrpc":"2.0","method":"server/ping","id":"a"},{"jsonrpc":"2.0","method":"server/ping"},{"jsonrpc":"2.0","method":"no/such","id":"b"}]'
  'answered|{"jsonrpc":"2.0","method":"server/echo","params":[1,2],"id":3}'
  'answered|{"jsonrpc":"2.0","method":"server/echo","params":{"value":1}'
  'answered|{"jsonrpc":"2.0","method":"shutdown","id":4}'
  'silent|{"jsonrpc":"2.0","method":"exit"}'
)

coproc FETCHD { "$bin" --framing ndjson 2>/dev/null; }
for entry in "${session[@]}"; do
  kind="${entry%%|*}"
  message="${entry#*|}"
  printf -- '--> %s\n' "$message"
  printf '%s\n' "$message" >&"${FETCHD[1]}"
  if [ "$kind" = answered ]; then
    IFS= read -r reply <&"${FETCHD[0]}"
    printf '<-- %s\n' "$reply"
  fi
done
pid=$FETCHD_PID
wait "$pid" && status=0 || status=$?
echo "fetchd exited with status $status"
