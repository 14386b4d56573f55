#!/usr/bin/env python3
"""Live terminal view of the contacts sample (seed 001) on fetchd's in-memory store.

A scripted stream of inserts, edits, renames and deletes arrives; the view renders straight
from the controller's TableMirror: sections with index titles, an index bar, rows appearing
(+, green), moving (>, cyan), changing (~, yellow) and disappearing (-, red, shown on the
frame before they go), and a status line with the cycle's notifications. On a terminal it
redraws in place with ANSI codes; without one (a pipe, CI) it prints each frame once, in
plain text, without waiting. It exits by itself.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any, Dict, List, Optional, Sequence, TextIO, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.dirname(HERE))  # the package next to the samples, before any installed copy

from fetchd import Batch, ChangeBatch, Client, Context, Controller, ControllerDelegate, MirrorSection, TableMirror  # noqa: E402

from contacts import MODEL, REQUEST, section_name  # noqa: E402

RESET, BOLD, DIM = "\x1b[0m", "\x1b[1m", "\x1b[2m"
COLORS = {"insert": "\x1b[32m", "move": "\x1b[36m", "update": "\x1b[33m", "delete": "\x1b[31;9m"}
MARKS = {"insert": "+", "move": ">", "update": "~", "delete": "-"}

# (description, operation). Operations: ("add", name, phone) | ("phone", name, phone) |
# ("rename", old, new) | ("delete", name) | ("batch", [operations]) | ("save",)
SCRIPT: List[Tuple[str, Tuple[Any, ...]]] = [
    ("add Ana", ("add", "Ana", "555-0101")),
    ("add Bob", ("add", "Bob", "555-0102")),
    ("add Carla", ("add", "Carla", "555-0103")),
    ("add Ben", ("add", "Ben", None)),
    ("add Dora and Dan in one batch", ("batch", [("add", "Dora", "555-0104"), ("add", "Dan", "555-0105")])),
    ("save", ("save",)),
    ("edit Bob's phone", ("phone", "Bob", "555-0199")),
    ("rename Ana to Zoe", ("rename", "Ana", "Zoe")),
    ("add Aaron", ("add", "Aaron", "555-0106")),
    ("rename Ben to Abe", ("rename", "Ben", "Abe")),
    ("delete Carla", ("delete", "Carla")),
    ("add Eve, Emil, Cleo", ("batch", [("add", "Eve", None), ("add", "Emil", "555-0107"), ("add", "Cleo", None)])),
    ("rename Dan to Dante", ("rename", "Dan", "Dante")),
    ("rename Dora to Bea", ("rename", "Dora", "Bea")),
    ("delete Eve and Emil", ("batch", [("delete", "Eve"), ("delete", "Emil")])),
    ("edit Zoe's phone", ("phone", "Zoe", "555-0200")),
    ("rename Zoe to Ana again", ("rename", "Zoe", "Ana")),
    ("save", ("save",)),
    ("delete Bob", ("delete", "Bob")),
    ("rename Cleo to Yuki", ("rename", "Cleo", "Yuki")),
    ("save", ("save",)),  # nothing is left unsaved at the end, so fetchd closes without a warning
]


class LiveView(ControllerDelegate):
    def __init__(self, out: TextIO, color: bool, delay: float) -> None:
        self.out = out
        self.color = color
        self.delay = delay
        self.before: List[MirrorSection] = []
        self.cycle = 0
        self.total = 0
        self.caption = ""

    # -- delegate -------------------------------------------------------------------------
    def will_change_content(self, controller: Controller) -> None:
        assert controller.mirror is not None
        self.before = [MirrorSection(s.name, s.index_title, list(s.rows)) for s in table(controller).sections]

    def did_change_content(self, controller: Controller) -> None:
        batch = controller.last_batch
        assert batch is not None
        self.cycle += 1
        self.total += 2 + len(batch.sections) + len(batch.objects)
        status = self.status(batch)
        leaving = {c.index_path: c.type for c in batch.objects if c.type in ("delete", "move") and c.index_path}
        arriving = {c.new_index_path: c.type for c in batch.objects if c.type != "delete" and c.new_index_path}
        if self.color:
            if leaving:  # the rows about to go, struck through, before they disappear
                self.draw(self.frame(self.before, controller, {p: "delete" for p in leaving}, status))
                time.sleep(self.delay * 0.35)
            self.draw(self.frame(table(controller).sections, controller, arriving, status))
            time.sleep(self.delay * 0.65)
            self.draw(self.frame(table(controller).sections, controller, {}, status))
        else:
            gone = [self.before[s].rows[r]["name"] for (s, r), t in sorted(leaving.items()) if t == "delete"]
            lines = self.frame(table(controller).sections, controller, arriving, status)
            if gone:
                lines.insert(-1, "  - removed: " + ", ".join(gone))
            self.draw(lines)

    # -- rendering ------------------------------------------------------------------------
    def status(self, batch: ChangeBatch) -> str:
        counts = batch.counts()
        order = ["section-delete", "section-insert", "delete", "move", "insert", "update"]  # wire order
        parts = [f"{counts[kind]} {kind}" for kind in order if kind in counts] or ["no row changes"]
        return f"cycle {self.cycle}: will, {', '.join(parts)}, did | {self.total} notifications so far"

    def paint(self, text: str, kind: Optional[str]) -> str:
        if not self.color or kind is None:
            return text
        return f"{COLORS[kind]}{text}{RESET}"

    def frame(self, sections: Sequence[MirrorSection], controller: Controller, marks: Dict[Any, str], status: str) -> List[str]:
        title = f"fetchd live: contacts by initial -- {self.caption}"
        lines = [self.paint(title, None) if not self.color else f"{BOLD}{title}{RESET}", ""]
        titles = [s.index_title for s in sections]
        body: List[str] = []
        for s, section in enumerate(sections):
            body.append(f" {section.index_title or '#'}" if not self.color else f" {BOLD}{section.index_title or '#'}{RESET}")
            for r, row in enumerate(section.rows):
                kind = marks.get((s, r))
                mark = MARKS[kind] if kind else " "
                text = f"   {mark} {row['name']:<8} {row.get('phone') or ''}".rstrip()
                body.append(self.paint(text, kind))
        if not body:
            body.append("   (no contacts)")
        # The index bar runs down the right-hand side, like UITableView's section index.
        width = 34
        for i, text in enumerate(body):
            visible = len(strip_ansi(text))
            bar = titles[i] if i < len(titles) else ""
            lines.append((text + " " * max(1, width - visible) + "| " + bar).rstrip())
        lines.append("")
        lines.append(status if not self.color else f"{DIM}{status}{RESET}")
        return lines

    def draw(self, lines: List[str]) -> None:
        if self.color:
            self.out.write("\x1b[H\x1b[2J" + "\n".join(lines) + "\n")
        else:
            self.out.write("\n".join(lines) + "\n\n")
        self.out.flush()


def table(controller: Controller) -> TableMirror:
    assert controller.mirror is not None, "the live view needs a mirrored controller"
    return controller.mirror


def strip_ansi(text: str) -> str:
    out, skipping = [], False
    for ch in text:
        if ch == "\x1b":
            skipping = True
        elif skipping and ch == "m":
            skipping = False
        elif not skipping:
            out.append(ch)
    return "".join(out)


def perform(ctx: Context, ids: Dict[str, Any], operation: Tuple[Any, ...], batch: Optional[Batch] = None) -> None:
    kind = operation[0]
    target = batch if batch is not None else ctx
    if kind == "add":
        _, name, phone = operation
        values = {"name": name, "phone": phone, "sectionName": section_name(name)}
        if batch is None:
            ids[name] = ctx.insert("Contact", values)["id"]
        else:
            ids[name] = batch.insert("Contact", values)  # a BatchCall: resolved once sent
    elif kind == "phone":
        target.update(ids[operation[1]], {"phone": operation[2]})
    elif kind == "rename":
        _, old, new = operation
        target.update(ids[old], {"name": new, "sectionName": section_name(new)})
        ids[new] = ids.pop(old)
    elif kind == "delete":
        target.delete(ids.pop(operation[1]))
    elif kind == "save":
        ctx.save()
    elif kind == "batch":
        with ctx.batch() as new_batch:
            for inner in operation[1]:
                perform(ctx, ids, inner, new_batch)
        for name, value in list(ids.items()):
            if not isinstance(value, str):
                ids[name] = value.result["id"]


def run(binary: Optional[str], out: TextIO, color: bool, delay: float) -> int:
    view = LiveView(out, color, delay)
    with Client.spawn(binary) as client:
        client.open_store(MODEL)
        ctx = client.context()
        contacts = ctx.controller("contacts", REQUEST, section_name_key_path="sectionName", delegate=view)
        view.caption = "empty in-memory store"
        view.draw(view.frame(table(contacts).sections, contacts, {}, "waiting for changes"))
        time.sleep(delay)
        ids: Dict[str, Any] = {}
        for description, operation in SCRIPT:
            view.caption = description
            cycles = contacts.cycles
            perform(ctx, ids, operation)
            if contacts.cycles == cycles and color:  # e.g. a save: nothing changes on screen
                time.sleep(delay * 0.3)
        # The view was driven only by notifications; it must match the server exactly.
        fresh = contacts.fetched()
        mirrored = [s.rows for s in table(contacts).sections]
        if fresh != mirrored:
            out.write(f"MISMATCH: the mirror differs from controller/rows:\n{mirrored}\n{fresh}\n")
            return 1
        out.write(f"done: {view.cycle} cycles, {view.total} notifications; the mirror equals controller/rows\n")
        return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="Live terminal view of the fetchd contacts sample")
    parser.add_argument("--fetchd", help="path of the fetchd binary (default: $FETCHD or the build output)")
    parser.add_argument("--delay", type=float, help="seconds per change on a terminal (default 0.8; 0 without a terminal)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--plain", action="store_true", help="print plain frames even on a terminal")
    mode.add_argument("--ansi", action="store_true", help="redraw with ANSI codes even without a terminal")
    args = parser.parse_args(argv)
    color = args.ansi or (sys.stdout.isatty() and not args.plain and os.environ.get("TERM") != "dumb")
    delay = args.delay if args.delay is not None else (0.8 if color else 0.0)
    try:
        return run(args.fetchd, sys.stdout, color, delay)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
