#!/usr/bin/env python3
"""Seed 002: a notes list ordered by last edit (newest first). Editing a note moves it to the
top; when the last note is deleted the view shows its empty-state line (updateView in
controllerDidChangeContent)."""
from __future__ import annotations

import os
import sys
from typing import Any, Dict, Optional, Sequence, TextIO

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.dirname(HERE))  # the package next to the samples, before any installed copy

from fetchd import Client, Controller, ControllerDelegate, fetch_request  # noqa: E402

from show import Steps, arguments, out_or_stdout, render, stamp, verify  # noqa: E402

MODEL = {
    "entities": [
        {
            "name": "Note",
            "attributes": {
                "title": {"type": "string"},
                "contents": {"type": "string", "optional": True},
                "updatedAt": {"type": "date"},
            },
        }
    ]
}

EMPTY = "You don't have any notes yet."


class NotesView(ControllerDelegate):
    """Like the seed's NotesViewController: after each batch, show the table or the message."""

    def __init__(self, steps: Steps) -> None:
        self.steps = steps
        self.showing_message = False

    def did_change_content(self, controller: Controller) -> None:
        has_notes = controller.mirror is not None and controller.mirror.count > 0
        if not has_notes and not self.showing_message:
            self.steps.line(f"  (updateView: message label shown: {EMPTY!r})")
        if has_notes and self.showing_message:
            self.steps.line("  (updateView: table view shown)")
        self.showing_message = not has_notes


def cell(row: Dict[str, Any]) -> str:
    return f"{row['title']:<14} {row['updatedAt']}  {row.get('contents') or ''}".rstrip()


def run(binary: Optional[str] = None, out: Optional[TextIO] = None) -> None:
    with Client.spawn(binary) as client:
        steps = Steps(client, out_or_stdout(out))
        client.open_store(MODEL)
        ctx = client.context()
        view = NotesView(steps)
        view.showing_message = True
        notes = ctx.controller("notes", fetch_request("Note", sort_descriptors=["-updatedAt"]), delegate=view)

        def show() -> None:
            verify(notes)
            steps.table(render(notes, cell, empty=EMPTY))

        steps.step("no notes")
        show()
        made = []
        for minute, title in enumerate(["Groceries", "Ideas", "Packing list"]):
            steps.step(f"create {title!r}")
            made.append(ctx.insert("Note", {"title": title, "updatedAt": stamp(minute)}))
            show()
        steps.step("edit 'Groceries' (moves to the top)")
        ctx.update(made[0]["id"], {"contents": "milk, eggs", "updatedAt": stamp(10)})
        show()
        steps.step("rename 'Ideas' to 'Big ideas' (edited, so it moves to the top)")
        ctx.update(made[1]["id"], {"title": "Big ideas", "updatedAt": stamp(11)})
        show()
        for note in made:
            steps.step(f"delete {note['id']}")
            ctx.delete(note["id"])
            show()


def main(argv: Optional[Sequence[str]] = None) -> None:
    run(arguments(__doc__ or "", argv).fetchd)


if __name__ == "__main__":
    main()
