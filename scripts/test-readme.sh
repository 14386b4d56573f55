#!/usr/bin/env bash
# Every fenced code block of README.md (or of the Markdown files named) run against a fetchd
# binary by Tests/Readme/readme_test.py: shell, Python, JS and Neovim blocks in a scratch
# directory removed in every outcome; expected outputs compared; a warning or error on stderr
# fails a block not marked to fail.
# Usage: scripts/test-readme.sh BIN [FILE.md ...]. Non-zero when a block fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: scripts/test-readme.sh /path/to/fetchd [FILE.md ...]}
exec "${PYTHON:-python3}" "$root/Tests/Readme/readme_test.py" "$bin" "${@:2}"
