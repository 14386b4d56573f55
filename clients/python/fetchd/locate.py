"""Finding the fetchd executable: an explicit path, the FETCHD environment variable, the
SwiftPM build output of the repository (.build/debug or .build/release), the binary bundled
in a platform wheel (fetchd/bin/fetchd), or the PATH."""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Iterable, List, Optional

# Where a platform wheel carries the server (setup.py copies it there when built with
# FETCHD_BUNDLE_BINARY); the pure client has no bin/ directory.
BUNDLED = Path(__file__).resolve().parent / "bin" / "fetchd"


def _repo_roots(starts: Iterable[Path]) -> List[Path]:
    roots: List[Path] = []
    for start in starts:
        for directory in [start, *start.parents]:
            if (directory / "Package.swift").is_file() and directory not in roots:
                roots.append(directory)
    return roots


def build_outputs(starts: Optional[Iterable[Path]] = None) -> List[Path]:
    """Built fetchd binaries under the enclosing SwiftPM package(s), newest first."""
    if starts is None:
        starts = [Path.cwd().resolve(), Path(__file__).resolve().parent]
    found = []
    for root in _repo_roots(starts):
        for config in ("debug", "release"):
            candidate = root / ".build" / config / "fetchd"
            if candidate.is_file() and os.access(candidate, os.X_OK):
                found.append(candidate)
    return sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)


def bundled_binary() -> Optional[str]:
    """The fetchd inside this installed package (a platform wheel), or None."""
    if BUNDLED.is_file() and os.access(BUNDLED, os.X_OK):
        return os.fspath(BUNDLED)
    return None


def find_fetchd(explicit: "str | os.PathLike[str] | None" = None) -> str:
    """The path of the fetchd binary to spawn, or FileNotFoundError saying where it looked.
    A developer's repository build wins over the bundled binary, so working in a checkout
    tests the code being edited even with the wheel installed."""
    if explicit:
        return os.fspath(explicit)
    env = os.environ.get("FETCHD")
    if env:
        return env
    outputs = build_outputs()
    if outputs:
        return os.fspath(outputs[0])
    bundled = bundled_binary()
    if bundled:
        return bundled
    on_path = shutil.which("fetchd")
    if on_path:
        return on_path
    raise FileNotFoundError(
        "fetchd binary not found: pip install the fetchd wheel for your platform (it bundles "
        "the binary; this install is the pure client), pass its path, set FETCHD=/path/to/fetchd, "
        "run inside the repository after `swift build`, or put fetchd on the PATH"
    )
