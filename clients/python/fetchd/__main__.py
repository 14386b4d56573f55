"""The ``fetchd`` console command of a platform wheel (and ``python -m fetchd``): replaces
this Python process with the bundled server, so stdio, signals and the exit code are the
binary's own. Only the bundled binary is run, never one looked up on the PATH: this script is
itself the ``fetchd`` on the PATH and would find (and exec) itself forever."""
from __future__ import annotations

import os
import sys

from .locate import bundled_binary


def main() -> None:
    binary = bundled_binary()
    if binary is None:
        sys.stderr.write(
            "fetchd: this Python package has no bundled server binary (a pure install); "
            "install the fetchd wheel for your platform, or build fetchd with `swift build`\n")
        sys.exit(127)
    os.execv(binary, [binary, *sys.argv[1:]])


if __name__ == "__main__":
    main()
