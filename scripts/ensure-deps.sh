#!/usr/bin/env bash
# Makes sure the system libraries fetchd links against, and nvim for the Neovim sample's test,
# are installed: installs them with apt-get when missing and running as root, otherwise says
# exactly what to install.
set -euo pipefail
missing=()
pkg-config --exists sqlite3 2>/dev/null || missing+=(libsqlite3-dev)
pkg-config --exists jansson 2>/dev/null || missing+=(libjansson-dev)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
command -v nvim >/dev/null 2>&1 || missing+=(neovim)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq "${missing[@]}" >&2
else
  echo "fetchd needs: ${missing[*]}. Install them with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
