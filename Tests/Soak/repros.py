"""Deterministic reproductions of the fetchd bugs the soak found (Tests/Soak/README.md, "Bugs
found"). Each case asserts the documented behaviour, so it FAILS until the bug is fixed:

    python3 Tests/Soak/repros.py .build/debug/fetchd          # every case
    python3 Tests/Soak/repros.py .build/debug/fetchd unmerged-update

Cases: unmerged-update, unmerged-delete, unmerged-related (bug 3), undo-after-external-delete,
redo-after-external-delete (bug 2).

Only the Python client (clients/python) and the stdlib's sqlite3 are needed; one process,
`--watch off`, a store file in a temp directory. The PostgreSQL one (a COMMIT whose outcome
was lost) is case a4 of scripts/test-pg-faults.sh.
"""
from __future__ import annotations

import os
import sqlite3
import sys
import tempfile
from typing import Any, Callable, Dict, List, Tuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "clients", "python"))
from fetchd import Client, FetchdError  # noqa: E402

MODEL = {"entities": [{"name": "Item", "attributes": {"rank": {"type": "integer"}}}]}
REQUEST = {"entity": "Item", "sortDescriptors": [{"key": "rank"}]}


class Store:
    """A fetchd (`--watch off`: merges only on store/checkExternalChanges) with context
    `main` holding Item/1 (rank 1) and Item/2 (rank 2), a controller `c` on it, and a plain
    sqlite3 connection to the same file."""

    def __init__(self, binary: str, directory: str, undo: bool = False) -> None:
        path = os.path.join(directory, "repro.sqlite")
        self.client = Client.spawn(binary, framing="ndjson", args=["--watch", "off"], timeout=60)
        self.client.open_store(MODEL, path=path)
        self.ctx = self.client.create_context("w", undo={} if undo else None)
        self.ctx.insert("Item", {"rank": 1})
        self.ctx.insert("Item", {"rank": 2})
        self.ctx.save()
        if undo:
            self.ctx.rollback()  # both undo stacks empty
        self.controller = self.ctx.controller("c", REQUEST)
        self.db = sqlite3.connect(path, isolation_level=None)

    def plain(self, sql: str) -> None:
        self.db.execute(sql)

    def merge(self) -> None:
        self.client.store_check_external_changes()

    def mirror(self) -> List[Tuple[str, int]]:
        return [(r["id"], r["rank"]) for s in self.controller.mirror.sections for r in s.rows]

    def rows(self) -> Any:
        try:
            return [(r["id"], r["rank"]) for r in self.controller.rows(0)]
        except FetchdError as e:
            return f"{e.kind}: {e.message}"

    def fetch(self) -> List[Tuple[str, int]]:
        return [(r["id"], r["rank"]) for r in self.ctx.fetch(REQUEST)]

    def stored(self) -> List[Tuple[int, int]]:
        return [tuple(r) for r in self.db.execute("SELECT _pk, rank FROM Item ORDER BY _pk")]

    def close(self) -> None:
        try:
            self.ctx.rollback()
        finally:
            self.client.close()
            self.db.close()


def unmerged_update(s: Store) -> List[str]:
    """A context updates an object another process changed since the last merge: the
    controller must move it (one row per object, protocol.md §9 "The results"); after the merge
    the mirror built from the notifications must equal controller/rows and context/fetch."""
    s.plain("UPDATE Item SET rank = 9 WHERE _pk = 1")  # another process; not merged yet
    s.ctx.update("Item/1", {"rank": 5})
    s.merge()
    return expect_views(s, [("Item/2", 2), ("Item/1", 5)])


def unmerged_delete(s: Store) -> List[str]:
    """The same with a delete: the controller must drop the object."""
    s.plain("UPDATE Item SET rank = 9 WHERE _pk = 1")
    s.ctx.delete("Item/1")
    s.merge()
    return expect_views(s, [("Item/2", 2)])


def expect_views(s: Store, want: List[Tuple[str, int]]) -> List[str]:
    problems = []
    for name, got in (("mirror (notifications)", s.mirror()), ("controller/rows", s.rows()),
                      ("context/fetch", s.fetch())):
        if got != want:
            problems.append(f"{name} is {got}, expected {want}")
    return problems


def undo_after_external_delete(s: Store) -> List[str]:
    """protocol.md §6 Undo, "Other writers": an object the group changed that another writer
    deleted meanwhile stays deleted (and §5: an id is never used again after a delete)."""
    s.ctx.update("Item/1", {"rank": 10})
    s.plain("DELETE FROM Item WHERE _pk = 1")
    s.merge()
    s.ctx.undo()
    problems = []
    if any(i == "Item/1" for i, _ in s.fetch()):
        problems.append(f"after undo the context shows the deleted Item/1 again: {s.fetch()}")
    saved = s.ctx.save()
    if any(pk == 1 for pk, _ in s.stored()):
        problems.append(f"the save after undo ({saved}) wrote the deleted Item/1 back: store {s.stored()}")
    return problems


def redo_after_external_delete(s: Store) -> List[str]:
    """The same for redo: the group's object, deleted by another writer after the undo."""
    s.ctx.update("Item/1", {"rank": 10})
    s.ctx.undo()
    s.plain("DELETE FROM Item WHERE _pk = 1")
    s.merge()
    s.ctx.redo()
    problems = []
    if any(i == "Item/1" for i, _ in s.fetch()):
        problems.append(f"after redo the context shows the deleted Item/1 again: {s.fetch()}")
    saved = s.ctx.save()
    if any(pk == 1 for pk, _ in s.stored()):
        problems.append(f"the save after redo ({saved}) wrote the deleted Item/1 back: store {s.stored()}")
    return problems


FOLDERS_MODEL = {"entities": [
    {"name": "Folder", "attributes": {"name": {"type": "string"}},
     "relationships": {"items": {"destination": "Item", "toMany": True, "inverse": "folder"}}},
    {"name": "Item", "attributes": {"rank": {"type": "integer"}},
     "relationships": {"folder": {"destination": "Folder", "inverse": "items"}}}]}


def unmerged_related(binary: str, directory: str) -> List[str]:
    """The same through a relationship, with an edit of ANOTHER object: a controller whose
    predicate goes through `folder` holds Item/1 (in folder b); another process moves Item/1
    into folder a (not merged yet); the context deletes Item/2, which is in folder a. The
    controller inserts Item/1 a second time (read from the store as it is now), and the merge
    then moves one of the two copies."""
    path = os.path.join(directory, "related.sqlite")
    client = Client.spawn(binary, framing="ndjson", args=["--watch", "off"], timeout=60)
    try:
        client.open_store(FOLDERS_MODEL, path=path)
        ctx = client.context("main")
        fa = ctx.insert("Folder", {"name": "a"})["id"]
        fb = ctx.insert("Folder", {"name": "b"})["id"]
        ctx.insert("Item", {"rank": 1, "folder": fb})
        ctx.insert("Item", {"rank": 2, "folder": fa})
        ctx.insert("Item", {"rank": 3, "folder": fa})
        ctx.save()
        request = {"entity": "Item", "predicate": "folder.name != 'zz'", "sortDescriptors": [{"key": "rank"}]}
        controller = ctx.controller("c", request)
        db = sqlite3.connect(path, isolation_level=None)
        db.execute(f"UPDATE Item SET rank = 9, folder = {fa.split('/')[1]} WHERE _pk = 1")  # not merged yet
        db.close()
        ctx.delete("Item/2")
        client.store_check_external_changes()
        want = [("Item/3", 3), ("Item/1", 9)]
        views = {
            "mirror (notifications)": [(r["id"], r["rank"]) for r in controller.mirror.sections[0].rows],
            "controller/rows": [(r["id"], r["rank"]) for r in controller.rows(0)],
            "context/fetch": [(r["id"], r["rank"]) for r in ctx.fetch(request)],
        }
        ctx.rollback()
        return [f"{name} is {got}, expected {want}" for name, got in views.items() if got != want]
    finally:
        client.close()


CASES: Dict[str, Tuple[Callable[[Store], List[str]], bool]] = {
    "unmerged-update": (unmerged_update, False),
    "unmerged-delete": (unmerged_delete, False),
    "undo-after-external-delete": (undo_after_external_delete, True),
    "redo-after-external-delete": (redo_after_external_delete, True),
}


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    binary = os.path.abspath(sys.argv[1])
    names = sys.argv[2:] or list(CASES) + ["unmerged-related"]
    failed = 0
    for name in names:
        with tempfile.TemporaryDirectory(prefix="fetchd-repro.") as d:
            if name == "unmerged-related":
                problems = unmerged_related(binary, d)
            else:
                fn, undo = CASES[name]
                s = Store(binary, d, undo=undo)
                try:
                    problems = fn(s)
                finally:
                    s.close()
        print(f"{name}: {'ok' if not problems else 'FAIL'}")
        for p in problems:
            print(f"    {p}")
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
