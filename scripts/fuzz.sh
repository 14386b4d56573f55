#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/, address sanitizer) and runs each for SECONDS.
# usage: scripts/fuzz.sh SECONDS [FuzzFraming FuzzJSON FuzzPredicate FuzzAnswers]
# Seeds come from the transcripts plus Fuzz/Regressions/<target>/ (inputs that once failed);
# new inputs go to .build/fuzz/corpus/<target>/, a failing one to .build/fuzz/crash-<target>-*
# (copy it to Fuzz/Regressions/<target>/ once fixed: FuzzRegressionTests replays those).
set -euo pipefail
seconds="${1:?usage: fuzz.sh SECONDS [targets...]}"
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzFraming FuzzJSON FuzzPredicate FuzzAnswers)
cd "$(dirname "$0")/.."
work=.build/fuzz
mkdir -p "$work"
(cd Fuzz && swift build -c debug -Xswiftc -sanitize=fuzzer,address 2>&1 | grep -v "Cannot export local symbol" | tail -1)
python3 Fuzz/seed-corpus.py "$work/corpus"
failed=0
for target in "${targets[@]}"; do
  mkdir -p "$work/corpus/$target" "Fuzz/Regressions/$target"
  echo "fuzz: $target for ${seconds}s"
  if ! Fuzz/.build/debug/"$target" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=3072 \
      -print_final_stats=1 -artifact_prefix="$work/crash-$target-" \
      "$work/corpus/$target" "Fuzz/Regressions/$target" 2>"$work/$target.log"; then
    failed=1
    tail -40 "$work/$target.log"
  fi
  grep -E "^stat::number_of_executed_units|^Done|^stat::peak_rss_mb" "$work/$target.log" || true
done
exit "$failed"
