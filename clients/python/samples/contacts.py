#!/usr/bin/env python3
"""Seed 001: a contacts book sectioned by initial with an index bar. Contacts are added,
edited (an update), renamed to another initial (a move across sections: one section goes,
another comes) and deleted; each step prints its notifications and the table."""
from __future__ import annotations

import os
import sys
from typing import Any, Dict, Optional, Sequence, TextIO

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.dirname(HERE))  # the package next to the samples, before any installed copy

from fetchd import Client, fetch_request  # noqa: E402

from show import Steps, arguments, out_or_stdout, render, verify  # noqa: E402

MODEL = {
    "entities": [
        {
            "name": "Contact",
            "attributes": {
                "name": {"type": "string"},
                "phone": {"type": "string", "optional": True},
                # As in the seed: the section name is stored (the name's initial, uppercased).
                "sectionName": {"type": "string"},
            },
        }
    ]
}

REQUEST = fetch_request("Contact", sort_descriptors=["sectionName", "name"])


def section_name(name: str) -> str:
    return name[:1].upper()


def cell(row: Dict[str, Any]) -> str:
    return f"{row['name']:<8} {row.get('phone') or ''}".rstrip()


def run(binary: Optional[str] = None, out: Optional[TextIO] = None) -> None:
    steps_out = out_or_stdout(out)
    with Client.spawn(binary) as client:
        steps = Steps(client, steps_out)
        client.open_store(MODEL)
        book = client.context()
        contacts = book.controller("contacts", REQUEST, section_name_key_path="sectionName")

        def show() -> None:
            verify(contacts)
            steps.table(render(contacts, cell, empty="no contacts", index_bar=True))

        steps.step("empty book")
        show()
        people = {}
        for name, phone in [("Ana", "555-0101"), ("Bob", "555-0102"), ("Carla", "555-0103"), ("Ben", None)]:
            steps.step(f"add {name}")
            people[name] = book.insert("Contact", {"name": name, "phone": phone, "sectionName": section_name(name)})
            book.save()
            show()
        steps.step("edit Bob's phone (update)")
        book.update(people["Bob"]["id"], {"phone": "555-0199"})
        show()
        steps.step("rename Ana to Zoe (moves to section Z; section A goes)")
        book.update(people["Ana"]["id"], {"name": "Zoe", "sectionName": section_name("Zoe")})
        show()
        steps.step("delete Carla (section C goes)")
        book.delete(people["Carla"]["id"])
        book.save()
        show()
        title = "Z"
        steps.line(f"\nindex bar tap {title!r} -> section {contacts.section_for_index_title(title, 1)}")


def main(argv: Optional[Sequence[str]] = None) -> None:
    run(arguments(__doc__ or "", argv).fetchd)


if __name__ == "__main__":
    main()
