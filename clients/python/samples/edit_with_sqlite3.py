#!/usr/bin/env python3
"""A plain SQLite client editing a fetchd store: Python's own ``sqlite3`` module, no fetchd
code. It inserts (``_pk`` left out), renames, changes quantities and deletes rows of ``Item``,
one commit at a time, while ``live_viewer.py`` shows them arriving (protocol.md §5, "Other
processes on the file"). It waits for the viewer to create the store first.

    python3 edit_with_sqlite3.py STORE [--edits 30] [--interval 0.1] [--seed 1]
"""
from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import time

NAMES = ["apple", "bread", "cheese", "dates", "eggs", "flour", "grapes", "honey", "ink", "jam"]


def wait_for_table(path: str, timeout: float = 10.0) -> sqlite3.Connection:
    deadline = time.monotonic() + timeout
    while True:
        try:
            db = sqlite3.connect(path, timeout=5)
            db.execute("SELECT 1 FROM Item LIMIT 1")
            return db
        except sqlite3.Error:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def edit(db: sqlite3.Connection, rng: random.Random) -> str:
    ids = [r[0] for r in db.execute("SELECT _pk FROM Item ORDER BY _pk")]
    roll = rng.random()
    if not ids or roll < 0.4:
        name = rng.choice(NAMES)
        qty = rng.randint(1, 9)
        db.execute("INSERT INTO Item (name, qty) VALUES (?, ?)", (name, qty))
        what = f"insert {name} x{qty}"
    elif roll < 0.65:
        pk, qty = rng.choice(ids), rng.randint(1, 9)
        db.execute("UPDATE Item SET qty = ? WHERE _pk = ?", (qty, pk))
        what = f"update Item/{pk} qty={qty}"
    elif roll < 0.85:
        pk, name = rng.choice(ids), rng.choice(NAMES)
        db.execute("UPDATE Item SET name = ? WHERE _pk = ?", (name, pk))
        what = f"rename Item/{pk} to {name}"
    else:
        pk = rng.choice(ids)
        db.execute("DELETE FROM Item WHERE _pk = ?", (pk,))
        what = f"delete Item/{pk}"
    db.commit()
    return what


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--interval", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    db = wait_for_table(args.store)
    for _ in range(args.edits):
        print(edit(db, rng), flush=True)
        time.sleep(args.interval)
    db.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
