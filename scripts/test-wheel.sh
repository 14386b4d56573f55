#!/usr/bin/env bash
# Tests a platform wheel (scripts/build-wheel.sh) the way a user meets it: a fresh venv, `pip
# install WHEEL` with no index, then, with PATH reduced to the venv's bin plus /usr/bin:/bin,
# no FETCHD and the working directory outside any SwiftPM package: (a) `fetchd --version`;
# (b) the README's "Quick start: Python" code, extracted from README.md now and run unchanged,
# prints `insert [['Note/1']]`; (c) that run dispatched a controller's notifications. Prints the
# seconds from a new venv (and from `pip install`) to the first notification. Then, where a
# mount namespace can be made, runs the quick start again with /opt/swift (the toolchain)
# hidden. Non-zero on any failure, with the reason.
#   scripts/test-wheel.sh dist/fetchd-0.1.0-py3-none-manylinux_2_35_x86_64.whl
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
wheel=${1:?usage: scripts/test-wheel.sh WHEEL}
case "$wheel" in /*) ;; *) wheel="$PWD/$wheel" ;; esac
fail() { echo "test-wheel: FAIL: $*" >&2; exit 1; }
[ -f "$wheel" ] || fail "no wheel at $wheel"
PYTHON=${PYTHON:-python3}
expected="insert [['Note/1']]"

tmp=$(mktemp -d /tmp/fetchd-test-wheel.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM  # through the EXIT trap, so the directory goes in every outcome
venv="$tmp/venv"
run="$tmp/run"
mkdir -p "$run" "$tmp/home"

# The README's block, as a user would copy it: the first ```python fence after the heading.
"$PYTHON" - "$repo/README.md" "$run/quickstart.py" <<'EOF' || fail "no Python quick start code in README.md"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
start = lines.index("## Quick start: Python")
fence = next(i for i in range(start + 1, len(lines)) if lines[i].strip() == "```python")
end = next(i for i in range(fence + 1, len(lines)) if lines[i].strip() == "```")
open(sys.argv[2], "w", encoding="utf-8").write("\n".join(lines[fence + 1:end]) + "\n")
EOF

# Runs the quick start unchanged (exec of its text) with one listener added to every client it
# spawns: which binary ran, and when notifications arrived, go to $run/seen.json.
cat >"$run/harness.py" <<'EOF'
import json, sys, time
from fetchd import Client

seen = {"binaries": [], "notifications": []}
spawn = Client.spawn.__func__

def spawn_and_listen(cls, *args, **kwargs):
    client = spawn(cls, *args, **kwargs)
    seen["binaries"].append(client.binary)
    client.add_listener(lambda method, params: seen["notifications"].append([time.time(), method]))
    return client

Client.spawn = classmethod(spawn_and_listen)
try:
    code = open(sys.argv[1], encoding="utf-8").read()
    exec(compile(code, "README quick start", "exec"), {"__name__": "__main__"})
finally:
    with open(sys.argv[2], "w") as out:
        json.dump(seen, out)
EOF

# A user's shell: nothing of this one's environment (no FETCHD, VIRTUAL_ENV, PYTHONPATH, PIP_*).
clean=(env -i HOME="$tmp/home" LANG=C.UTF-8 PATH="$venv/bin:/usr/bin:/bin")
in_venv() { (cd "$run" && "${clean[@]}" "$@"); }
now() { date +%s.%N; }

(cd "$run" && "$PYTHON" - <<'EOF'
from pathlib import Path
import sys
sys.exit(any((d / "Package.swift").exists() for d in [Path.cwd(), *Path.cwd().parents]))
EOF
) || fail "the run directory $run lies inside a SwiftPM package (its .build/ would be used)"

start=$(now)
"$PYTHON" -m venv "$venv" || fail "$PYTHON -m venv failed (Debian: apt-get install python3-venv)"
venv_done=$(now)
in_venv python -m pip install -q --no-index --disable-pip-version-check "$wheel" ||
  fail "pip install --no-index $wheel failed"
installed=$(now)
# (b) and (c) run first, so the timed step is the install and the quick start up to its first
# notification with no check in between. stdout is compared; stderr carries fetchd's log (it
# warns about the unsaved insert).
output=$(in_venv python harness.py quickstart.py seen.json 2>"$run/stderr") ||
  fail "the README quick start failed: $output $(cat "$run/stderr")"
[ "$output" = "$expected" ] ||
  fail "the README quick start printed '$output', not '$expected' (stderr: $(cat "$run/stderr"))"

# The console command must be the venv's and the only fetchd on the PATH.
found=$(in_venv bash -c 'type -ap fetchd') || fail "no fetchd command on the PATH after pip install"
[ "$found" = "$venv/bin/fetchd" ] || fail "fetchd on the PATH is not only the venv's: $found"
bundled=$(in_venv python -c 'import fetchd.locate as l; print(l.bundled_binary() or "")')
[ -n "$bundled" ] && [ -x "$bundled" ] || fail "the installed package has no executable bundled binary"
located=$(in_venv python -c 'from fetchd import find_fetchd; print(find_fetchd())')
[ "$located" = "$bundled" ] || fail "find_fetchd() chose $located, not the bundled $bundled"
libs=$(ldd "$bundled" 2>&1) || fail "ldd $bundled: $libs"
if grep -q "not found\|/opt/swift" <<<"$libs"; then
  fail "the bundled binary needs libraries the wheel lacks: $(grep "not found\|/opt/swift" <<<"$libs")"
fi

# (a)
client_version=$(in_venv python -c 'import fetchd; print(fetchd.__version__)')
version=$(in_venv fetchd --version 2>&1) || fail "fetchd --version exited non-zero: $version"
[ "$version" = "$client_version" ] ||
  fail "fetchd --version printed '$version'; the client is $client_version"
echo "test-wheel: (a) fetchd --version: $version (the venv's $found)"

echo "test-wheel: (b) README quick start: $output"
summary=$(in_venv python - "$bundled" "$start" "$venv_done" "$installed" 2>&1 <<'EOF'
import json, sys
seen = json.load(open("seen.json"))
bundled, start, venv_done, installed = sys.argv[1], *map(float, sys.argv[2:])
if seen["binaries"] != [bundled]:
    sys.exit(f"the quick start spawned {seen['binaries']}, not the bundled {bundled}")
controller = [(t, m) for t, m in seen["notifications"] if m.startswith("controller/")]
if not controller:
    sys.exit(f"no controller notification reached the client: {seen['notifications']}")
first = controller[0][0]
print(f"{len(controller)} controller notifications ({', '.join(sorted({m for _, m in controller}))})")
print(f"{first - start:.2f} s from a new venv to the first notification "
      f"(venv {venv_done - start:.2f} s, pip install {installed - venv_done:.2f} s, "
      f"quick start to its first notification {first - installed:.2f} s); "
      f"pip install to it: {first - venv_done:.2f} s")
EOF
) || fail "$summary"
echo "test-wheel: (c) $(sed -n 1p <<<"$summary")"
echo "test-wheel: time: $(sed -n 2p <<<"$summary")"

# Extra: no toolchain needed. /opt/swift (where a Swift toolchain lives here) is covered by an
# empty tmpfs in a private mount namespace, then the quick start runs again, plainly.
if [ -d /opt/swift ] && unshare -m true 2>/dev/null; then
  # A fresh store: the quick start makes notes.db in its folder, and the first run left one.
  rm -f "$run"/notes.db "$run"/notes.db-wal "$run"/notes.db-shm
  hidden=$(cd "$run" && unshare -m sh -c 'mount -t tmpfs none /opt/swift && exec "$@"' sh \
    "${clean[@]}" python quickstart.py 2>"$run/stderr") ||
    fail "with /opt/swift hidden, the quick start failed: $hidden $(cat "$run/stderr")"
  [ "$hidden" = "$expected" ] ||
    fail "with /opt/swift hidden, the quick start printed '$hidden' (stderr: $(cat "$run/stderr"))"
  echo "test-wheel: (extra) with /opt/swift hidden: $hidden"
else
  echo "test-wheel: (extra) skipped: no /opt/swift to hide, or no private mount namespace here"
fi
echo "test-wheel: ok"
