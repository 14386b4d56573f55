#!/usr/bin/env python3
"""A live view of a store that other processes edit: fetchd (``--watch auto``) merges their
commits as change cycles, and the controller's mirror redraws the table after each one
(protocol.md §5). Run ``edit_with_sqlite3.py`` on the same file meanwhile. On a terminal it
redraws in place; otherwise (a pipe, CI) it prints each table once, as plain lines. It ends
after ``--seconds`` and prints the final table after ``final:``.

    python3 live_viewer.py STORE [--fetchd PATH] [--seconds 10]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import List, TextIO

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.dirname(HERE))  # the package next to the samples, before any installed copy

from fetchd import Client, Controller, ControllerDelegate, fetch_request  # noqa: E402

MODEL = {
    "entities": [
        {"name": "Item", "attributes": {"name": {"type": "string"}, "qty": {"type": "integer", "default": 0}}}
    ]
}
REQUEST = fetch_request("Item", sort_descriptors=["name", "qty"])


def rows(controller: Controller) -> List[str]:
    assert controller.mirror is not None
    return [f"{r['id']:<10} {r['name']:<8} {r['qty']:>3}" for s in controller.mirror.sections for r in s.rows]


class Viewer(ControllerDelegate):
    def __init__(self, out: TextIO, tty: bool) -> None:
        self.out = out
        self.tty = tty
        self.cycle = 0

    def show(self, controller: Controller, caption: str) -> None:
        lines = [f"== {caption}"] + (rows(controller) or ["(no items)"])
        if self.tty:
            self.out.write("\x1b[H\x1b[2J")
        self.out.write("\n".join(lines) + "\n")
        self.out.flush()

    def did_change_content(self, controller: Controller) -> None:
        self.cycle += 1
        self.show(controller, f"cycle {self.cycle}")


def run(binary: str, store: str, seconds: float, out: TextIO = sys.stdout) -> List[str]:
    client = Client.spawn(binary, framing="ndjson", args=["--watch", "auto"], timeout=10)
    try:
        client.open_store(MODEL, path=store)
        viewer = Viewer(out, out.isatty())
        items = client.controller("main", "items", REQUEST, delegate=viewer)
        viewer.show(items, "start")
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            client.wait_for_notifications(min(left, 0.5))
        # Whatever was committed up to now (the cycles arrive before the answer).
        client.store_check_external_changes()
        final = rows(items)
        out.write("final:\n" + "\n".join(final) + "\nend\n")
        out.flush()
        return final
    finally:
        client.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("--fetchd", default=os.environ.get("FETCHD", "fetchd"))
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args(argv)
    run(args.fetchd, args.store, args.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
