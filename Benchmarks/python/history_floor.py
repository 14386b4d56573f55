#!/usr/bin/env python3
"""What SQLite itself costs for a bulk write that keeps fetchd's history: the floor under
`bulk_bench.py`'s figures.

Every row a batch changes gets a `_fetchd_history` row with its old values (protocol.md §5,
"History"; the layout is a contract other processes read), in the writer's own transaction.
`bulk_bench.py` compares fetchd with the raw statement alone, which writes none of that. Here
plain SQLite (Python's sqlite3, no fetchd code) does both on the same workload and schema as
fetchd's store file:

- raw: the statement alone (`UPDATE ... WHERE` a band of ts, `DELETE ... WHERE`, or the
  10k `UPDATE ... WHERE _pk = ?` of batchUpdateObjects) + COMMIT;
- history: the same, with the rows fetchd records, the way it records them (set-based for the
  predicate batches, as Sources/Engine/Store/SQLite/SQLiteStore+BulkWrite.swift; per row for
  updates by id, as a save): a `_fetchd_transactions` row, an `INSERT ... SELECT` of the
  history rows with `json_array` old values, then the statement (changed rows only, the
  version up by one) + COMMIT. The history rows come in the order SQLite reads them
  (fetchd sorts them by number, which costs more; the layout does not ask for it).
- deferred: history with the WAL checkpoint out of the COMMIT (`wal_autocheckpoint=0`), as
  fetchd runs it, after its answer (protocol.md §5, "Checkpoints after the answer"); the raw
  side keeps SQLite's checkpoint in the commit, as a plain client (and bulk_bench.py's
  baseline) has it. deferred / raw is the floor under fetchd's figures.

Each side runs in its own process on a fresh copy of one file: the wall time of the write
(median of --repeats), and with --callgrind the instructions SQLite executes for it
(`valgrind --tool=callgrind`, only inside sqlite3_step, so Python's own work is not counted).
history / raw is the least a history-keeping write can cost against the raw statement; a
goal below it cannot be met without changing the history's layout.

    python3 Benchmarks/python/history_floor.py [--rows 200000] [--fractions 0.1,0.5]
        [--updates 10000] [--repeats 3] [--callgrind] [--dir DIR]

Prints one JSON line per figure ({"suite": "history-floor", ...}) and a table.
"""
import argparse
import json
import os
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

KEY_SPACE = 1 << 47  # benchlib's ts values are uniform below this
TOKEN = 7  # the history rows' transaction token (any number: one transaction)

# fetchd's store schema for bulk_bench's model (Msg: ts indexed, sender, body).
SCHEMA = [
    'CREATE TABLE "Msg" ("_pk" INTEGER PRIMARY KEY AUTOINCREMENT, "_version" INTEGER NOT NULL DEFAULT 1, '
    '"ts" INTEGER, "sender" TEXT, "body" TEXT)',
    'CREATE INDEX "_idx_Msg_ts" ON "Msg" ("ts")',
    'CREATE TABLE "_fetchd_transactions" (token INTEGER PRIMARY KEY, author TEXT, origin TEXT, time REAL)',
    'CREATE TABLE "_fetchd_history" (seq INTEGER PRIMARY KEY, txn INTEGER, time REAL, entity TEXT NOT NULL, '
    'pk INTEGER NOT NULL, op TEXT NOT NULL, keys TEXT, version INTEGER, old TEXT, other INTEGER)',
]
OLD = "json_array(t.ts, t.sender, t.body)"  # the old values, in column order (no double, no binary)
TXN = "INSERT INTO _fetchd_transactions (token, author, origin, time) VALUES (%d, NULL, 'floor', 0)" % TOKEN
BAND = "t.ts >= ?2 AND t.ts < ?3"


def statements(figure, side):
    """[(sql, kind)] for one side of one figure; kind "band" binds (value, low, high), "rows"
    runs executemany over (value, pk) pairs."""
    if figure == "batch_update":
        if side == "raw":
            return [('UPDATE "Msg" AS t SET body = ?1 WHERE %s' % BAND, "band")]
        changed = "%s AND t.body IS NOT ?1" % BAND
        return [(TXN, "plain"),
                ("INSERT INTO _fetchd_history (txn, entity, pk, op, keys, version, old) SELECT %d, 'Msg', t._pk, 'U', "
                 "'body', t._version, %s FROM \"Msg\" AS t WHERE %s" % (TOKEN, OLD, changed), "band"),
                ('UPDATE "Msg" AS t SET body = ?1, _version = t._version + 1 WHERE %s' % changed, "band")]
    if figure == "batch_delete":
        if side == "raw":
            return [('DELETE FROM "Msg" AS t WHERE %s AND ?1 IS NOT NULL' % BAND, "band")]
        return [(TXN, "plain"),
                ("INSERT INTO _fetchd_history (txn, entity, pk, op, version, old) SELECT %d, 'Msg', t._pk, 'D', "
                 "t._version, %s FROM \"Msg\" AS t WHERE %s AND ?1 IS NOT NULL" % (TOKEN, OLD, BAND), "band"),
                ('DELETE FROM "Msg" AS t WHERE %s AND ?1 IS NOT NULL' % BAND, "band")]
    if side == "raw":
        return [('UPDATE "Msg" SET ts = ?1 WHERE _pk = ?2', "rows")]
    return [(TXN, "plain"),
            ("INSERT INTO _fetchd_history (txn, entity, pk, op, keys, version, old) SELECT %d, 'Msg', t._pk, 'U', "
             "iif(t.ts IS NOT ?1, 'ts', ''), t._version, %s FROM \"Msg\" AS t WHERE t._pk = ?2" % (TOKEN, OLD), "rows"),
            ('UPDATE "Msg" SET ts = ?1, _version = _version + 1 WHERE _pk = ?2', "rows")]


def connect(path):
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA cache_size=-65536")  # as fetchd's store and bulk_bench's baselines
    return db


def make_template(path, n):
    db = connect(path)
    for sql in SCHEMA:
        db.execute(sql)
    db.execute("BEGIN")
    db.executemany('INSERT INTO "Msg" (_pk, ts, sender, body) VALUES (?, ?, ?, ?)', benchlib.rows(n))
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def run_side(path, figure, side, params):
    """In the measured process: one write, its wall time in seconds and rows changed."""
    db = connect(path)
    if side == "deferred":
        db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("SELECT count(*) FROM \"Msg\"").fetchone()  # the file's pages in the cache first
    start = time.perf_counter()
    db.execute("BEGIN IMMEDIATE")
    changed = 0
    for sql, kind in statements(figure, "raw" if side == "raw" else "history"):
        if kind == "plain":
            db.execute(sql)
        elif kind == "band":
            changed = db.execute(sql, (params["value"], params["low"], params["high"])).rowcount
        else:
            changed = db.executemany(sql, params["rows"]).rowcount
    db.execute("COMMIT")
    elapsed = time.perf_counter() - start
    db.close()
    return {"seconds": elapsed, "changed": changed}


def figures(args):
    """(figure, fraction or None, params) in bulk_bench's order: bands one after another."""
    out, low = [], 0.0
    for f in args.fractions:
        band = {"value": "changed %g" % f, "low": int(KEY_SPACE * low), "high": int(KEY_SPACE * min(low + f, 1.0))}
        out.append(("batch_update", f, band))
        out.append(("batch_delete", f, band))
        low += f
    rng = random.Random(20261126)  # bulk_bench's update_objects draws
    numbers = rng.sample(range(1, args.rows + 1), min(args.updates, args.rows))
    out.append(("update_objects", None, {"rows": [(rng.randrange(KEY_SPACE), k) for k in numbers]}))
    return out


def child(args, template, work, figure, side, params, callgrind):
    path = os.path.join(work, "side.sqlite")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    shutil.copyfile(template, path)
    spec = os.path.join(work, "params.json")
    with open(spec, "w") as f:
        json.dump({"path": path, "figure": figure, "side": side, "params": params}, f)
    command = [sys.executable, os.path.abspath(__file__), "--run", spec]
    out_file = os.path.join(work, "callgrind.out")
    if callgrind:
        command = ["valgrind", "--tool=callgrind", "--quiet", "--collect-atstart=no",
                   "--toggle-collect=sqlite3_step", "--callgrind-out-file=" + out_file] + command
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    line = json.loads(result.stdout.strip().splitlines()[-1])
    if callgrind:
        with open(out_file) as f:
            match = re.search(r"^(?:summary|totals): (\d+)", f.read(), re.M)
        line["instructions"] = int(match.group(1)) if match else None
    return line


def measure(args, work):
    template = os.path.join(work, "template.sqlite")
    benchlib.log("history-floor", "making a %d-row file" % args.rows)
    make_template(template, args.rows)
    results = []
    for figure, fraction, params in figures(args):
        row = {"suite": "history-floor", "figure": figure, "fraction": fraction, "of": args.rows}
        for side in ("raw", "history", "deferred"):
            runs = [child(args, template, work, figure, side, params, False) for _ in range(args.repeats)]
            row[side + "_s"] = round(statistics.median(r["seconds"] for r in runs), 4)
            row[side + "_changed"] = runs[0]["changed"]
            if args.callgrind and side != "deferred":
                row[side + "_instructions"] = child(args, template, work, figure, side, params, True)["instructions"]
        if row["raw_changed"] != row["history_changed"]:
            raise SystemExit("history-floor: %s changed %d rows raw and %d with history"
                             % (figure, row["raw_changed"], row["history_changed"]))
        row["ratio_s"] = round(row["history_s"] / row["raw_s"], 3)
        row["ratio_deferred_s"] = round(row["deferred_s"] / row["raw_s"], 3)
        if args.callgrind and row.get("raw_instructions"):
            row["ratio_instructions"] = round(row["history_instructions"] / row["raw_instructions"], 3)
            row["history_instructions_per_row"] = round(row["history_instructions"] / max(row["raw_changed"], 1))
            row["raw_instructions_per_row"] = round(row["raw_instructions"] / max(row["raw_changed"], 1))
        print(json.dumps(row), flush=True)
        results.append(row)
    return results


def print_table(results):
    print("# %-16s %8s %8s %9s %9s %7s %10s %7s %12s %12s %7s" % (
        "figure", "fraction", "rows", "raw s", "history s", "ratio", "deferred s", "ratio", "raw Ir/row",
        "hist Ir/row", "Ir x"))
    for r in results:
        print("# %-16s %8s %8d %9.3f %9.3f %6.2fx %10.3f %6.2fx %12s %12s %7s" % (
            r["figure"], "-" if r["fraction"] is None else r["fraction"], r["raw_changed"], r["raw_s"],
            r["history_s"], r["ratio_s"], r["deferred_s"], r["ratio_deferred_s"], r.get("raw_instructions_per_row", "-"),
            r.get("history_instructions_per_row", "-"),
            "%.2fx" % r["ratio_instructions"] if "ratio_instructions" in r else "-"))


def fraction_list(text):
    fractions = [float(f) for f in text.split(",") if f]
    if not fractions or any(f <= 0 for f in fractions) or sum(fractions) > 1:
        raise argparse.ArgumentTypeError("fractions are positive and add up to at most 1")
    return fractions


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--fractions", type=fraction_list, default=[0.1, 0.5])
    parser.add_argument("--updates", type=int, default=10_000, help="objects updated by id (batchUpdateObjects)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--callgrind", action="store_true", help="also count SQLite's instructions (valgrind)")
    parser.add_argument("--dir", help="where the temporary directory goes (default: TMPDIR)")
    parser.add_argument("--run", help=argparse.SUPPRESS)  # the measured child: a params file
    args = parser.parse_args(argv)
    if args.run:
        with open(args.run) as f:
            spec = json.load(f)
        print(json.dumps(run_side(spec["path"], spec["figure"], spec["side"], spec["params"])))
        return 0
    if args.rows <= 0 or args.updates <= 0 or args.repeats <= 0:
        parser.error("--rows, --updates and --repeats must be positive")
    if args.callgrind and not shutil.which("valgrind"):
        parser.error("--callgrind needs valgrind")
    with tempfile.TemporaryDirectory(prefix="fetchd-history-floor.", dir=args.dir) as work:
        results = measure(args, work)
    print_table(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
