#!/usr/bin/env bash
# Prints fetchd's version: the one source is FetchdVersion.current in
# Sources/Server/FetchdVersion.swift (the binary's --version and initialize's serverInfo).
# The clients, the OpenRPC document, the .deb and the wheel carry the same string;
# Tests/Dist/test_versions.py fails when any of them disagrees.
set -euo pipefail
file="$(cd "$(dirname "$0")/.." && pwd)/Sources/Server/FetchdVersion.swift"
version=$(sed -n 's/^ *public static let current = "\([^"]*\)".*/\1/p' "$file")
[ -n "$version" ] || { echo "version.sh: no 'current' version in $file" >&2; exit 1; }
echo "$version"
