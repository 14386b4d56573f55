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
# The whole build log is kept: a failed build shows its errors, not only its last line.
if ! (cd Fuzz && swift build -c debug -Xswiftc -sanitize=fuzzer,address) >"$work/build.log" 2>&1; then
  echo "fuzz: the build failed ($work/build.log):" >&2
  grep -E "error:|Error|crash|Stack dump" -A3 "$work/build.log" | head -60 >&2 || tail -40 "$work/build.log" >&2
  exit 1
fi
grep -v "Cannot export local symbol" "$work/build.log" | tail -1
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
