#!/usr/bin/env bash
# make bench's last step: Benchmarks/python/chart.py in a venv that has matplotlib (PyPI), so
# the system Python stays as it is. Arguments: the run's files (bench-results.json, then any
# files of result lines such as bulk_bench.py's); missing ones are left out.
# A full run updates the checked-in figures (Benchmarks/results/latest.json, each goal's newest
# figure; goals this run did not measure keep theirs) and redraws Benchmarks/results/ratios.png,
# which Benchmarks/README.md shows. A BENCH_QUICK run measures other sizes, so it draws
# .build/bench-quick.png (ignored by git) and leaves the checked-in files alone.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
venv=$root/.build/bench-venv
inputs=()
for f in "$@"; do [[ -s $f ]] && inputs+=("$f"); done
if [[ ${#inputs[@]} == 0 ]]; then
  echo "chart: no results to draw (${*:-no files given})" >&2
  exit 1
fi
if ! "$venv/bin/python" -c "import matplotlib" 2>/dev/null; then
  echo "chart: installing matplotlib into $venv" >&2
  "${PYTHON:-python3}" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check matplotlib >&2
fi
if [[ ${BENCH_QUICK:-0} == 1 ]]; then
  exec "$venv/bin/python" "$root/Benchmarks/python/chart.py" "${inputs[@]}" -o "$root/.build/bench-quick.png"
fi
exec "$venv/bin/python" "$root/Benchmarks/python/chart.py" "${inputs[@]}" \
  --base "$root/Benchmarks/results/latest.json" --write-base -o "$root/Benchmarks/results/ratios.png"
