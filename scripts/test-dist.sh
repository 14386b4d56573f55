#!/usr/bin/env bash
# make test-dist: `make dist`, then every artifact tried as a user would (Tests/Dist, Python's
# unittest; scripts/test-wheel.sh for the wheel in a fresh venv). Installs the Debian tools it
# uses when missing (as root): dpkg-dev (dpkg-shlibdeps), lintian, man-db.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
missing=()
command -v dpkg-shlibdeps >/dev/null || missing+=(dpkg-dev)
command -v lintian >/dev/null || missing+=(lintian)
command -v man >/dev/null || missing+=(man-db)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "test-dist: installing ${missing[*]}" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -qq "${missing[@]}" >&2 || { apt-get update -qq >&2 && apt-get install -y -qq "${missing[@]}" >&2; }
    else
        echo "test-dist: needs ${missing[*]} (sudo apt-get install ${missing[*]})" >&2
        exit 1
    fi
fi
scripts/dist.sh all
python3 -m unittest discover -s Tests/Dist -t Tests/Dist -v
wheels=(dist/fetchd-*.whl)
scripts/test-wheel.sh "${wheels[0]}"
