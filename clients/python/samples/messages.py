#!/usr/bin/env python3
"""Seed 000: a messages table that gains rows as messages are created. The delegate does what
the seed's view controller does (beginUpdates / insertRows / reloadRows / deleteRows /
endUpdates), printed as table-view calls."""
from __future__ import annotations

import os
import sys
from typing import Any, Dict, Optional, Sequence, TextIO

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.dirname(HERE))  # the package next to the samples, before any installed copy

from fetchd import Client, Controller, ControllerDelegate, IndexPath, SectionInfo, fetch_request  # noqa: E402

from show import Steps, arguments, out_or_stdout, render, stamp, verify  # noqa: E402

MODEL = {"entities": [{"name": "Message", "attributes": {"text": {"type": "string"}, "createdAt": {"type": "date"}}}]}


class TableView(ControllerDelegate):
    def __init__(self, steps: Steps) -> None:
        self.steps = steps

    def will_change_content(self, controller: Controller) -> None:
        self.steps.line("  tableView.beginUpdates()")

    def did_change_section(self, controller: Controller, section_info: SectionInfo, section_index: int, change_type: str) -> None:
        verb = "insertSections" if change_type == "insert" else "deleteSections"
        self.steps.line(f"  tableView.{verb}([{section_index}])")

    def did_change_object(
        self, controller: Controller, obj: Dict[str, Any], index_path: Optional[IndexPath], change_type: str,
        new_index_path: Optional[IndexPath],
    ) -> None:
        show = lambda p: f"[{p[0]},{p[1]}]"  # noqa: E731
        if change_type == "insert":
            self.steps.line(f"  tableView.insertRows(at: {show(new_index_path)})")
        elif change_type == "delete":
            self.steps.line(f"  tableView.deleteRows(at: {show(index_path)})")
        elif change_type == "update":
            self.steps.line(f"  tableView.reloadRows(at: {show(index_path)})")
        else:
            self.steps.line(f"  tableView.deleteRows(at: {show(index_path)}); insertRows(at: {show(new_index_path)})")

    def did_change_content(self, controller: Controller) -> None:
        self.steps.line("  tableView.endUpdates()")


def cell(row: Dict[str, Any]) -> str:
    return f"{row['createdAt']}  {row['text']}"


def run(binary: Optional[str] = None, out: Optional[TextIO] = None) -> None:
    with Client.spawn(binary) as client:
        steps = Steps(client, out_or_stdout(out))
        client.open_store(MODEL)
        ctx = client.context()
        messages = ctx.controller(
            "messages", fetch_request("Message", sort_descriptors=["createdAt"]), delegate=TableView(steps)
        )

        def show() -> None:
            verify(messages)
            steps.table(render(messages, cell, empty="no messages"))

        steps.step("no messages yet")
        show()
        made = []
        for minute, text in enumerate(["Hola", "¿Qué tal?", "Refrescar la tabla"]):
            steps.step(f"create message {text!r}")
            made.append(ctx.insert("Message", {"text": text, "createdAt": stamp(minute)}))
            ctx.save()
            show()
        steps.step("create two messages in one batch")
        with ctx.batch() as batch:
            batch.insert("Message", {"text": "uno", "createdAt": stamp(5)})
            batch.insert("Message", {"text": "dos", "createdAt": stamp(6)})
        show()
        steps.step("edit the first message (update)")
        ctx.update(made[0]["id"], {"text": "Hola a todos"})
        show()
        ctx.save()  # the store is left as shown: nothing unsaved when fetchd closes


def main(argv: Optional[Sequence[str]] = None) -> None:
    run(arguments(__doc__ or "", argv).fetchd)


if __name__ == "__main__":
    main()
