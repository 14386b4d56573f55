"""Python's cyclic garbage collector paused while a big message is decoded or applied.

Building a large value (a ``controller/didChange`` of a million rows is a million small lists
and dicts) makes the collector run again and again, and each full run walks every object the
program holds, the caller's own data included: decoding such a message took 0.6-0.96 s with
it and 0.2 s without. What is built here holds no reference cycle, so nothing is left for the
collector to find; it runs as usual once the pause ends.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

# A body this large pauses the collector while it is decoded (a small one would not notice).
PAUSE_FROM_BYTES = 1 << 20


@contextmanager
def collector_paused(pause: bool = True) -> Iterator[None]:
    """The collector off for the block (when ``pause`` and it is on), back on after it."""
    if not pause or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class Pause:
    """The collector off from ``begin`` to ``end``, where a ``with`` block does not fit (a
    read loop that pauses for one big chunk of messages at a time)."""

    def __init__(self) -> None:
        self._held = False

    def begin(self, pause: bool) -> None:
        """Off, when ``pause``, it is on and this pause does not hold it already."""
        if pause and not self._held and gc.isenabled():
            gc.disable()
            self._held = True

    def end(self) -> None:
        """Back on, if ``begin`` turned it off."""
        if self._held:
            gc.enable()
            self._held = False
