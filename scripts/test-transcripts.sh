#!/usr/bin/env bash
# Replays every Tests/Transcripts/*.jsonl with the built fetchd; prints each difference.
set -uo pipefail
bin="${1:?usage: test-transcripts.sh path/to/fetchd}"
cd "$(dirname "$0")/.."
failed=0 count=0
for transcript in Tests/Transcripts/*.jsonl; do
  count=$((count + 1))
  "$bin" replay "$transcript" || failed=$((failed + 1))
done
echo "transcripts: $((count - failed))/$count replayed without a difference"
[ "$failed" -eq 0 ]
