"""Printing helpers the samples share: each notification as it arrives, and the table a
controller's TableMirror holds after the cycle."""
from __future__ import annotations

import argparse
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, TextIO

from fetchd import Client, Controller

Row = Dict[str, Any]


def describe(method: str, params: Dict[str, Any]) -> str:
    """One line per notification, e.g. ``didChangeObject move Contact/1 [0,0] -> [1,0]``."""
    name = method.split("/", 1)[1]
    if name == "didChangeSection":
        section = params["section"]
        return f"{name} {params['type']} #{params['sectionIndex']} {section['name']!r}"
    if name == "didChangeObject":
        old, new = params.get("indexPath"), params.get("newIndexPath")
        where = " -> ".join(f"[{p[0]},{p[1]}]" for p in (old, new) if p is not None)
        return f"{name} {params['type']} {params['id']} {where}"
    return name


def render(controller: Controller, cell: Callable[[Row], str], empty: Optional[str] = None, index_bar: bool = False) -> List[str]:
    """The table as text: section headers (when sectioned), one line per row."""
    mirror = controller.mirror
    assert mirror is not None
    if mirror.count == 0 and empty is not None:
        return [f"  ({empty})"]
    lines: List[str] = []
    sectioned = controller.section_name_key_path is not None
    for section in mirror.sections:
        if sectioned:
            lines.append(f"  {section.name or '(no name)'}")
        for row in section.rows:
            lines.append(f"    {cell(row)}" if sectioned else f"  {cell(row)}")
    if index_bar:
        lines.append("  index: " + " ".join(mirror.section_index_titles()))
    return lines


def verify(controller: Controller) -> None:
    """The mirror must equal the controller's rows fetched fresh from the server."""
    assert controller.mirror is not None
    keys = (controller.notify or {}).get("keys")  # rows carry what notifications carry
    fresh = controller.fetched(keys=keys)
    mirrored = [[dict(r) for r in s.rows] for s in controller.mirror.sections]
    if fresh != mirrored or controller.sections() != controller.mirror.section_infos():
        raise AssertionError(f"{controller.name}: mirror {mirrored} differs from the server's rows {fresh}")


class Steps:
    """Prints "== step" headers, the notifications of each step, then the table."""

    def __init__(self, client: Client, out: TextIO) -> None:
        self.out = out
        client.add_listener(lambda method, params: self.line("  <- " + describe(method, params)))

    def line(self, text: str) -> None:
        print(text, file=self.out)

    def step(self, title: str) -> None:
        self.line(f"\n== {title}")

    def table(self, lines: Sequence[str]) -> None:
        for text in lines:
            self.line(text)


def arguments(description: str, argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--fetchd", help="path of the fetchd binary (default: $FETCHD or the build output)")
    return parser.parse_args(argv)


def stamp(minute: int) -> str:
    """Deterministic ISO 8601 times, so every run prints the same thing."""
    return f"2026-11-23T{9 + minute // 60:02d}:{minute % 60:02d}:00Z"


def out_or_stdout(out: Optional[TextIO]) -> TextIO:
    return out if out is not None else sys.stdout
