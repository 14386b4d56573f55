#!/usr/bin/env bash
# make bench: release-build fetchd and the baselines package (Benchmarks/), run every baseline
# and fetchd's own measurements on the same workload (Benchmarks/WORKLOAD.md), print one table
# with ratios and write bench-results.json. Result line format: Benchmarks/README.md.
#
# Knobs (environment):
#   BENCH_SIZES=10000,100000,1000000   table sizes (BENCH_QUICK=1: 1000,10000, few iterations)
#   BENCH_OUT=bench-results.json       where the run is written
#   BENCH_NICE=19                      run everything at this niceness (shared machines)
#   BENCH_SKIP_BUILD=1                 use the binaries already built
#   FETCHD_CONTROLLER_BENCH="cmd args" in-process controller timings (suite "fetchd"); default:
#                                      .build/release/fetchd-controller-bench when it exists, else
#                                      the controllers' release benchmark test through
#                                      Benchmarks/python/controller_bench.py (BENCH_INPROCESS=0: off)
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-python3}
BENCH_PY=$ROOT/Benchmarks/python
OUT=${BENCH_OUT:-$ROOT/bench-results.json}
FETCHD=$ROOT/.build/release/fetchd
GRDB_BASELINE=$ROOT/Benchmarks/.build/release/grdb-baseline
CYCLE_CHANGES=${BENCH_CYCLE_CHANGES:-10000}

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
  SIZES=${BENCH_SIZES:-1000,10000}
  CYCLE_MIN_ROWS=${BENCH_CYCLE_MIN_ROWS:-10000}
  CYCLE_CHANGES=${BENCH_CYCLE_CHANGES:-1000}
else
  SIZES=${BENCH_SIZES:-10000,100000,1000000}
  CYCLE_MIN_ROWS=${BENCH_CYCLE_MIN_ROWS:-1000000}
fi

log() { echo "bench: $*" >&2; }

# Iterations per size for one tool: fewer where a single sample is slow (O(n) baselines).
# Usage: iterations_for SMALL MEDIUM LARGE  (n <= 10k, n <= 100k, larger)
iterations_for() {
  local out="" n
  IFS=, read -ra ns <<<"$SIZES"
  for n in "${ns[@]}"; do
    if ((n <= 10000)); then out+="$1,"; elif ((n <= 100000)); then out+="$2,"; else out+="$3,"; fi
  done
  echo "${out%,}"
}

# swift-driver does not keep a parent's niceness for its compiler jobs, so re-apply it to the
# whole process tree while the run lasts.
WATCHER=""
if [[ -n ${BENCH_NICE:-} ]]; then
  renice -n "$BENCH_NICE" -p $$ >/dev/null
  (
    descendants() { local c; for c in $(pgrep -P "$1"); do echo "$c"; descendants "$c"; done; }
    while kill -0 $$ 2>/dev/null; do
      for p in $(descendants $$); do renice -n "$BENCH_NICE" -p "$p" >/dev/null 2>&1; done
      sleep 0.5
    done
  ) &
  WATCHER=$!
fi

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/fetchd-bench.XXXXXX")
PG_DIR=""
cleanup() {
  [[ -n $WATCHER ]] && kill "$WATCHER" 2>/dev/null
  [[ -n $PG_DIR ]] && "$ROOT/scripts/pg-cluster.sh" stop "$PG_DIR"
  rm -rf "$SCRATCH"
}
trap cleanup EXIT

STATUS=0
FETCHD_BUILT=1
if [[ ${BENCH_SKIP_BUILD:-0} != 1 ]]; then
  log "building fetchd (release)"
  if ! swift build -c release --product fetchd >&2; then
    log "fetchd release build failed"; FETCHD_BUILT=0; STATUS=1
  fi
  log "building the baselines package (release, Benchmarks/.build)"
  if ! swift build -c release --package-path Benchmarks --scratch-path Benchmarks/.build >&2; then
    log "baselines build failed"; STATUS=1
  fi
fi

started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

if [[ -x $GRDB_BASELINE ]]; then
  log "GRDB re-query + diff baseline and the floors, sizes $SIZES"
  # With fetchd built, the same process also times it through its Swift pipe client.
  SWIFT_CLIENT=()
  [[ $FETCHD_BUILT == 1 && -x $FETCHD ]] && SWIFT_CLIENT=(--fetchd "$FETCHD")
  "$GRDB_BASELINE" --sizes "$SIZES" --iterations "$(iterations_for 200 50 15)" \
    --cycle-changes "$CYCLE_CHANGES" --cycle-min-rows "$CYCLE_MIN_ROWS" --dir "$SCRATCH" \
    "${SWIFT_CLIENT[@]}" >"$SCRATCH/grdb.jsonl" || { log "grdb-baseline failed"; STATUS=1; }
fi

log "Python sqlite3 + difflib baseline, sizes $SIZES"
"$PY" "$BENCH_PY/requery_difflib.py" --sizes "$SIZES" --iterations "$(iterations_for 30 5 3)" \
  --dir "$SCRATCH" >"$SCRATCH/python.jsonl" || { log "python baseline failed"; STATUS=1; }

if [[ $FETCHD_BUILT == 1 && -x $FETCHD ]]; then
  log "fetchd end to end over the pipe, sizes $SIZES"
  "$PY" "$BENCH_PY/fetchd_driver.py" --fetchd "$FETCHD" --sizes "$SIZES" \
    --iterations "$(iterations_for 1000 1000 1000)" --cycle-changes "$CYCLE_CHANGES" \
    --cycle-min-rows "$CYCLE_MIN_ROWS" --dir "$SCRATCH" >"$SCRATCH/fetchd-e2e.jsonl" \
    || { log "fetchd driver failed"; STATUS=1; }
else
  "$PY" "$BENCH_PY/unavailable.py" --suite fetchd-e2e --sizes "$SIZES" \
    --metrics bulk_load,initial_fetch,memory_per_row,change_e2e,cycle_latency \
    --cycle-min-rows "$CYCLE_MIN_ROWS" --reason "fetchd release binary not built" \
    >"$SCRATCH/fetchd-e2e.jsonl"
fi

CONTROLLER_BENCH=${FETCHD_CONTROLLER_BENCH:-}
if [[ -z $CONTROLLER_BENCH && -x $ROOT/.build/release/fetchd-controller-bench ]]; then
  CONTROLLER_BENCH=$ROOT/.build/release/fetchd-controller-bench
fi
# Else the controllers' own release benchmark test, when the tree has it (BENCH_INPROCESS=0: skip).
if [[ -z $CONTROLLER_BENCH && ${BENCH_INPROCESS:-1} != 0 && -f Tests/ControllersTests/BenchmarkTests.swift ]]; then
  CONTROLLER_BENCH="$PY $BENCH_PY/controller_bench.py --root $ROOT"
fi
if [[ -n $CONTROLLER_BENCH ]]; then
  log "fetchd in-process controller timings: $CONTROLLER_BENCH"
  # shellcheck disable=SC2086  # the command may carry its own arguments
  $CONTROLLER_BENCH --sizes "$SIZES" --iterations "$(iterations_for 10000 10000 10000)" \
    --cycle-changes "$CYCLE_CHANGES" --cycle-min-rows "$CYCLE_MIN_ROWS" --dir "$SCRATCH" \
    >"$SCRATCH/fetchd.jsonl" || { log "in-process controller bench failed"; STATUS=1; }
else
  "$PY" "$BENCH_PY/unavailable.py" --suite fetchd --sizes "$SIZES" \
    --metrics change_latency,initial_fetch,memory_per_row,cycle_latency \
    --cycle-min-rows "$CYCLE_MIN_ROWS" \
    --reason "no in-process controller tool (set FETCHD_CONTROLLER_BENCH)" >"$SCRATCH/fetchd.jsonl"
fi

echo
echo "fetchd benchmarks: $started, $(nproc) cores, load average before: $load_before"
"$PY" "$BENCH_PY/report.py" "$SCRATCH"/*.jsonl --json-out "$OUT" \
  --meta "started=$started" --meta "finished=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
  --meta "commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
  --meta "cores=$(nproc)" --meta "loadavg_before=$load_before" \
  --meta "loadavg_after=$(cut -d' ' -f1-3 /proc/loadavg)" --meta "sizes=$SIZES" \
  --meta "nice=${BENCH_NICE:-0}" || STATUS=1
if [[ $FETCHD_BUILT == 1 && -x $FETCHD ]]; then
  # Predicate size vs time: parsing, compiling and running are linear (protocol.md §7.4).
  echo
  "$PY" "$BENCH_PY/predicate_size.py" --fetchd "$FETCHD" --dir "$SCRATCH" || { log "predicate size bench failed"; STATUS=1; }
  # Other processes on the file: commit -> notification (inotify, polling), idle CPU, the
  # history's cost on fetchd's own saves, a 10k-row external transaction (BENCH_EXTERNAL=0: off).
  if [[ ${BENCH_EXTERNAL:-1} != 0 ]]; then
    echo
    EXTERNAL_ROWS=$([[ ${BENCH_QUICK:-0} == 1 ]] && echo 10000 || echo 1000000)
    "$PY" "$BENCH_PY/external_bench.py" --fetchd "$FETCHD" --rows "${BENCH_EXTERNAL_ROWS:-$EXTERNAL_ROWS}" \
      --dir "$SCRATCH" | grep '^#' || { log "external bench failed"; STATUS=1; }
  fi
  # Bulk work through the Python client against SQLite's own statements: batch requests
  # under each controller variant (none, difference objects: false, difference and rows mode
  # with values), predicate batches on a tenth and on half of the rows, then 1000 controllers
  # on one entity; printed as one table (BENCH_BULK=0: off, BENCH_BULK_ROWS: size).
  if [[ ${BENCH_BULK:-1} != 0 ]]; then
    echo
    BULK_ROWS=$([[ ${BENCH_QUICK:-0} == 1 ]] && echo 20000 || echo 200000)
    echo "# Bulk work, ${BENCH_BULK_ROWS:-$BULK_ROWS} rows (bulk_bench.py; times until the client's mirror has the cycle)"
    "$PY" "$BENCH_PY/bulk_bench.py" --fetchd "$FETCHD" --rows "${BENCH_BULK_ROWS:-$BULK_ROWS}" --dir "$SCRATCH" \
      >"$SCRATCH/bulk.results" || { log "bulk bench failed"; STATUS=1; }
    "$PY" "$BENCH_PY/report.py" --bulk "$SCRATCH/bulk.results" || STATUS=1
    # The floor under those figures: plain SQLite writing the history rows fetchd's layout
    # requires, against the raw statement alone (history_floor.py; instructions too when
    # valgrind is there).
    echo
    FLOOR_ARGS=(--rows "${BENCH_BULK_ROWS:-$BULK_ROWS}" --dir "$SCRATCH")
    command -v valgrind >/dev/null && FLOOR_ARGS+=(--callgrind)
    "$PY" "$BENCH_PY/history_floor.py" "${FLOOR_ARGS[@]}" >"$SCRATCH/history-floor.results" \
      || { log "history floor failed"; STATUS=1; }
    grep '^#' "$SCRATCH/history-floor.results"
  fi
  # The work of one change: syscalls (strace -c) and instructions (callgrind) per update + save
  # on a 10k-row store with a live controller, against bare SQLite's UPDATE + COMMIT
  # (scripts/measure-change-cost.py; goal: <= 18 syscalls per change, Benchmarks/README.md
  # "The work of one change"; about a minute; BENCH_COST=0: off).
  if [[ ${BENCH_COST:-1} != 0 ]]; then
    echo
    COST_ARGS=()
    [[ ${BENCH_QUICK:-0} == 1 ]] && COST_ARGS=(--changes 300 --callgrind-changes 100 --answer-changes 50)
    "$PY" scripts/measure-change-cost.py "$FETCHD" "${COST_ARGS[@]}" --dir "$SCRATCH" \
      >"$SCRATCH/change-cost.results" || { log "change cost failed"; STATUS=1; }
    grep '^#' "$SCRATCH/change-cost.results"
  fi
fi
# PostgreSQL floors (raw libpq): COPY and ordered SELECT of BENCH_PG_ROWS rows, another
# process's commit -> notification read, on a throwaway cluster (scripts/pg-cluster.sh).
# Printed beside the table with fetchd's own figures on the same cluster.
PG_BASELINE=$ROOT/Benchmarks/.build/release/pg-baseline
if [[ ${BENCH_POSTGRES:-1} == 0 ]]; then
  :
elif ! scripts/pg-cluster.sh bindir >/dev/null 2>&1; then
  log "PostgreSQL server not installed: the PostgreSQL baselines are SKIPPED (apt-get install postgresql)"
elif [[ -x $PG_BASELINE ]]; then
  PG_ROWS=${BENCH_PG_ROWS:-$([[ ${BENCH_QUICK:-0} == 1 ]] && echo 10000 || echo 1000000)}
  PG_DIR=$(mktemp -d /tmp/fetchd-bench-pg.XXXXXX)
  if PG_URL=$(scripts/pg-cluster.sh start "$PG_DIR"); then
    echo
    echo "# PostgreSQL floors (pg-baseline, $PG_ROWS rows; us)"
    "$PG_BASELINE" --url "$PG_URL" --rows "$PG_ROWS" --iterations "${BENCH_PG_ITERATIONS:-5}" \
      >"$SCRATCH/pg-raw.jsonl" || { log "pg-baseline failed"; STATUS=1; }
    sed 's/^/# /' "$SCRATCH/pg-raw.jsonl"
    # fetchd's PostgreSQL store against those floors (Benchmarks/python/pg_bench.py).
    if [[ $FETCHD_BUILT == 1 && -x $FETCHD ]]; then
      echo "# fetchd on PostgreSQL (pg_bench.py, $PG_ROWS rows)"
      "$PY" "$BENCH_PY/pg_bench.py" --fetchd "$FETCHD" --url "$PG_URL" --baseline "$SCRATCH/pg-raw.jsonl" \
        --rows "$PG_ROWS" --iterations "${BENCH_PG_ITERATIONS:-5}" --dir "$SCRATCH" \
        | sed 's/^/# /' || { log "pg bench failed"; STATUS=1; }
    fi
    # The batch insert in process (PGBatchBenchmarkTests, the release test build the
    # controller timings made): fetchd's engine and store against the same COPY, no pipe.
    if [[ ${BENCH_INPROCESS:-1} != 0 && -x $ROOT/.build-release/release/fetchdPackageTests.xctest ]]; then
      echo "# fetchd's batch insert in process ($PG_ROWS rows)"
      FETCHD_BENCH=1 FETCHD_BENCH_BATCH_ROWS=$PG_ROWS FETCHD_TEST_POSTGRES_URL=$PG_URL \
        swift test -c release --skip-build --build-path "$ROOT/.build-release" --filter PGBatchBenchmarkTests \
        2>/dev/null | grep '^BENCH' | sed 's/^/# /' || { log "pg in-process batch bench failed"; STATUS=1; }
    fi
  else
    log "could not start a PostgreSQL cluster"; STATUS=1
  fi
  scripts/pg-cluster.sh stop "$PG_DIR"
  PG_DIR=""
fi
# The ratios against their goals as a picture (Benchmarks/python/chart.sh: matplotlib in
# .build/bench-venv; Benchmarks/README.md shows Benchmarks/results/ratios.png). BENCH_CHART=0: off.
if [[ ${BENCH_CHART:-1} != 0 ]]; then
  Benchmarks/python/chart.sh "$OUT" "$SCRATCH/bulk.results" || { log "chart failed"; STATUS=1; }
fi
echo "bench: results written to $OUT"
exit $STATUS
