#!/usr/bin/env bash
# Makes sure the system libraries fetchd links against, nvim for the Neovim sample's test, and
# the PostgreSQL server for the PostgreSQL suites are installed: installs them with apt-get when
# missing and running as root, otherwise says exactly what to install. The PostgreSQL server is
# optional: without it `make test-postgres` says loudly that it skipped.
set -euo pipefail
missing=()
pkg-config --exists sqlite3 2>/dev/null || missing+=(libsqlite3-dev)
pkg-config --exists jansson 2>/dev/null || missing+=(libjansson-dev)
pkg-config --exists libpq 2>/dev/null || missing+=(libpq-dev)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
command -v nvim >/dev/null 2>&1 || missing+=(neovim)
optional=()
# The server binaries (initdb, pg_ctl); Debian keeps them in /usr/lib/postgresql/<major>/bin.
"$(dirname "$0")/pg-cluster.sh" bindir >/dev/null 2>&1 || optional+=(postgresql)
[ ${#missing[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ${missing[*]} ${optional[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get install -y -qq "${missing[@]}" >&2
  fi
  if [ ${#optional[@]} -gt 0 ]; then
    apt-get install -y -qq "${optional[@]}" >&2 ||
      echo "WARNING: could not install ${optional[*]}: make test-postgres will skip the PostgreSQL suites" >&2
  fi
elif [ ${#missing[@]} -gt 0 ]; then
  echo "fetchd needs: ${missing[*]}. Install them with: sudo apt-get install ${missing[*]} ${optional[*]}" >&2
  exit 1
else
  echo "WARNING: ${optional[*]} is not installed: make test-postgres will skip the PostgreSQL suites" \
    "(sudo apt-get install ${optional[*]})" >&2
fi
