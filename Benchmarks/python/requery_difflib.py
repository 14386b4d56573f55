#!/usr/bin/env python3
"""Scripting peer: Python sqlite3 re-query + difflib diff per change (stdlib only).

Same table, pragmas, rows and changes as grdb-baseline (Benchmarks/WORKLOAD.md); one JSON line
per figure on stdout (Benchmarks/README.md), progress on stderr.
"""

import argparse
import difflib
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

TOOL = "requery_difflib"


def build(path, n):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    db = sqlite3.connect(path, isolation_level=None)
    for pragma in benchlib.PRAGMAS:
        db.execute(pragma)
    db.execute("BEGIN")
    db.execute(benchlib.SCHEMA)
    db.executemany("INSERT INTO msg(id, ts, sender, body) VALUES (?, ?, ?, ?)", benchlib.rows(n))
    db.execute(benchlib.INDEX)
    db.execute("COMMIT")
    return db


def fetch_ids(db):
    return [row[0] for row in db.execute(benchlib.ORDERED_IDS_AND_KEYS)]


def requery_diff(db, old_ids, change):
    """Write one change, re-query the ordered ids, diff them against the previous ones."""
    row_id, ts = change
    db.execute("UPDATE msg SET ts = ? WHERE id = ?", (ts, row_id))
    new_ids = fetch_ids(db)
    opcodes = difflib.SequenceMatcher(None, old_ids, new_ids, autojunk=False).get_opcodes()
    return new_ids, [op for op in opcodes if op[0] != "equal"]


def run_size(directory, n, iterations, fetch_repeats, out):
    path = os.path.join(directory, "python-%d.sqlite" % n)
    benchlib.log(TOOL, "n=%d: building table" % n)
    db = build(path, n)
    try:
        fetches = []
        ids = None
        for _ in range(fetch_repeats):
            start = benchlib.now_us()
            ids = fetch_ids(db)
            fetches.append(benchlib.now_us() - start)
        if len(ids) != n:
            raise RuntimeError("fetched %d rows, expected %d" % (len(ids), n))
        benchlib.emit(benchlib.result_line("python", "initial_fetch", n, fetches), out)

        benchlib.log(TOOL, "n=%d: %d single-row changes" % (n, iterations))
        changes = benchlib.Changes(n)
        first = None
        samples = []
        nonempty = 0
        for _ in range(iterations):
            change = changes.next()
            first = first or change
            start = benchlib.now_us()
            ids, edits = requery_diff(db, ids, change)
            samples.append(benchlib.now_us() - start)
            nonempty += 1 if edits else 0
        benchlib.emit(benchlib.result_line("python", "change_latency", n, samples,
                                           nonempty_diffs=nonempty,
                                           workload="%d:%d" % first), out)
    finally:
        db.close()
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.remove(path + suffix)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=benchlib.int_list, default=[10000, 100000, 1000000])
    parser.add_argument("--iterations", type=benchlib.int_list, default=[50, 10, 3],
                        help="one count, or one per size")
    parser.add_argument("--fetch-repeats", type=int, default=3)
    parser.add_argument("--dir", default=os.environ.get("TMPDIR", "/tmp"))
    args = parser.parse_args(argv)
    iterations = args.iterations * len(args.sizes) if len(args.iterations) == 1 else args.iterations
    if len(iterations) != len(args.sizes):
        parser.error("--iterations needs one count, or one per size")
    for n, count in zip(args.sizes, iterations):
        run_size(args.dir, n, count, args.fetch_repeats, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
