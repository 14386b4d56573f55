#!/usr/bin/env python3
"""Bulk work through the Python client against what SQLite costs, one release fetchd per
figure, baselines in the same run (Benchmarks/README.md, "Bulk work"):

- batch_insert: `store/batchInsert` of N workload rows (default 1,000,000; columnar; sent as
  one insert in parts of about 16 MB by the client's `batch_insert_in_parts`, or with
  `--insert one` in one request, `--chunk` rows a request) with a live controller on the entity, until the client's mirror has
  applied every cycle, vs Python sqlite3 `executemany` + commit of the same rows into the
  same table shape (index on ts). The mirror must then equal the file's own ORDER BY.
  Goal: >= 0.5x executemany's rows/s.
- update_objects: a 10,000-update cycle on that N-row controller (`--updates`): random rows
  given new random `ts` values (nearly every one a move) through one
  `store/batchUpdateObjects` (columnar), until the mirror has applied the cycle, vs Python
  sqlite3 `executemany` of the same 10,000 `UPDATE ... WHERE id = ?` + commit. The mirror
  must then equal the file's ORDER BY. Goal: <= 2x. `context_updates` is the same cycle as
  one JSON-RPC batch of 10,000 `context/update`s and a save.
- batch_update / batch_delete: N/10 of those rows (`ts` in the lowest tenth) through
  `store/batchUpdate` / `store/batchDelete` with the controller live, vs the same `UPDATE`
  / `DELETE` statement + commit on the baseline file. Goal: each <= 1.5x.
- many_controllers: 1000 controllers on one 10,000-row entity, then one JSON-RPC batch of
  100 updates + save, until the client has read every notification (rows mode and
  difference mode). Goal: <= 1 s.

    Benchmarks/python/bulk_bench.py --fetchd .build/release/fetchd [--rows N] [--dir D]

Each figure is one JSON line (suite "bulk") and one readable line on stderr.
"""
import argparse
import gc
import json
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import benchlib  # noqa: E402
from rpc_client import CLIENT  # noqa: E402,F401  (puts clients/python on the path)
from fetchd import Client, fetch_request  # noqa: E402

MODEL = {"entities": [{"name": "Msg", "attributes": {
    "ts": {"type": "integer", "indexed": True}, "sender": {"type": "string"}, "body": {"type": "string"}}}]}


def emit(metric, n, fetchd_s, baseline_s, goal, **extra):
    ratio = fetchd_s / baseline_s if baseline_s else None
    line = {"suite": "bulk", "metric": metric, "n": n, "unit": "s", "fetchd": round(fetchd_s, 4),
            "baseline": round(baseline_s, 4) if baseline_s else None,
            "ratio": round(ratio, 3) if ratio else None, "goal": goal, **extra}
    print(json.dumps(line), flush=True)
    benchlib.log("bulk", "%s n=%d: fetchd %.3f s, baseline %s, %s (goal %s)" % (
        metric, n, fetchd_s, "%.3f s" % baseline_s if baseline_s else "-",
        "%.2fx" % ratio if ratio else "", goal))


def notify(mode, **extra):
    """`notify` of controller/create: rows mode is the default, so it is left out."""
    return {**extra, **({"mode": mode} if mode != "rows" else {})} or None


def settle():
    """What earlier steps left behind is not the next figure's cost: Python's collector runs
    (the mirror, the check's lists) and the dirty pages of the files written so far reach
    the disk (the baseline's 1M-row file would otherwise be written back while fetchd is
    timed), before each timed step, on both sides."""
    gc.collect()
    os.sync()


def fresh(path):
    for p in (path, path + "-wal", path + "-shm"):
        if os.path.exists(p):
            os.remove(p)


def spawn(args, name):
    return Client.spawn(args.fetchd, framing="ndjson", args=["--watch", "off"],
                        stderr=open(os.path.join(args.dir, name + ".stderr"), "wb"), timeout=600)


def baseline_file(path, rows):
    fresh(path)
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA cache_size=-65536")  # as fetchd's store and WORKLOAD.md's baselines
    db.execute("CREATE TABLE msg(id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, sender TEXT NOT NULL, body TEXT NOT NULL)")
    db.execute("CREATE INDEX msg_ts ON msg(ts, id)")
    settle()
    start = time.perf_counter()
    db.executemany("INSERT INTO msg(id, ts, sender, body) VALUES (?, ?, ?, ?)", rows)
    db.commit()
    return db, time.perf_counter() - start


def bulk(args):
    n = args.rows
    rows = list(benchlib.rows(n))
    db, insert_base = baseline_file(os.path.join(args.dir, "baseline.sqlite"), rows)
    store = os.path.join(args.dir, "bulk.sqlite")
    fresh(store)
    client = spawn(args, "bulk")
    try:
        client.open_store(MODEL, path=store)
        main = client.context()
        msgs = main.controller("msgs", fetch_request("Msg", sort_descriptors=["ts"]),
                               notify=notify(args.mode, objects=False))
        columns = [[ts, sender, body] for (_, ts, sender, body) in rows]
        settle()
        start = time.perf_counter()
        if args.insert == "parts":
            client.batch_insert_in_parts("Msg", ["ts", "sender", "body"], columns, progress=False)
        else:
            for i in range(0, n, args.chunk):
                client.store_batch_insert("Msg", keys=["ts", "sender", "body"], rows=columns[i:i + args.chunk])
        inserted = time.perf_counter() - start
        check(msgs, store, n)
        emit("batch_insert", n, inserted, insert_base, ">= 0.5x rows/s (<= 2x the time)",
             rows_per_s=round(n / inserted), baseline_rows_per_s=round(n / insert_base), mode=args.mode,
             sent=args.insert if args.insert == "parts" else "chunks of %d" % args.chunk)

        update_objects(args, client, main, msgs, store, db, n)

        cut = (1 << 47) // 10
        settle()
        start = time.perf_counter()
        db.execute("UPDATE msg SET body = 'changed' WHERE ts < ?", (cut,))
        db.commit()
        update_base = time.perf_counter() - start
        settle()
        start = time.perf_counter()
        updated = client.store_batch_update("Msg", {"body": "changed"}, predicate="ts < %d" % cut)["count"]
        update = time.perf_counter() - start
        emit("batch_update", updated, update, update_base, "<= 1.5x", of=n, mode=args.mode)

        settle()
        start = time.perf_counter()
        db.execute("DELETE FROM msg WHERE ts < ?", (cut,))
        db.commit()
        delete_base = time.perf_counter() - start
        settle()
        start = time.perf_counter()
        deleted = client.store_batch_delete("Msg", predicate="ts < %d" % cut)["count"]
        delete = time.perf_counter() - start
        check(msgs, store, n - deleted)
        emit("batch_delete", deleted, delete, delete_base, "<= 1.5x", of=n, mode=args.mode)
    finally:
        client.close()
        db.close()


def update_objects(args, client, main, msgs, store, db, n):
    """Random rows moved to random places (new ts values) in one request, against the same
    UPDATEs by id on the baseline file. Both files hold rows 1..n in the same order."""
    rng = random.Random(20261126)
    count = min(args.updates, n)
    numbers = rng.sample(range(1, n + 1), count)
    values = [rng.randrange(1 << 47) for _ in numbers]
    settle()
    start = time.perf_counter()
    db.executemany("UPDATE msg SET ts = ? WHERE id = ?", zip(values, numbers))
    db.commit()
    base = time.perf_counter() - start
    cycles = msgs.cycles
    settle()
    start = time.perf_counter()
    got = client.store_batch_update_objects("Msg", ids=["Msg/%d" % k for k in numbers], keys=["ts"],
                                            rows=[[v] for v in values])["count"]
    elapsed = time.perf_counter() - start
    if got != count or msgs.cycles != cycles + 1:
        raise SystemExit("bulk: update_objects answered %d for %d objects in %d cycle(s)"
                         % (got, count, msgs.cycles - cycles))
    check(msgs, store, n)
    # The way without it: one JSON-RPC batch of a context/update per object and a save.
    values = [rng.randrange(1 << 47) for _ in numbers]
    batch = main.batch()
    for k, v in zip(numbers, values):
        batch.update("Msg/%d" % k, {"ts": v})
    batch.save()
    settle()
    start = time.perf_counter()
    batch.send()
    requests = time.perf_counter() - start
    check(msgs, store, n)
    emit("update_objects", count, elapsed, base, "<= 2x", of=n, mode=args.mode,
         context_updates=round(requests, 4))


def check(controller, store, expected):
    """The mirror equals the file's own order (ids by ts, then id)."""
    file = sqlite3.connect(store)
    want = ["Msg/%d" % pk for (pk,) in file.execute('SELECT "_pk" FROM "Msg" ORDER BY "ts", "_pk"')]
    file.close()
    got = [i for section in controller.mirror.ids() for i in section]
    if len(want) != expected or got != want:
        raise SystemExit("bulk: the mirror (%d rows) differs from the file (%d rows, expected %d)"
                         % (len(got), len(want), expected))


def many_controllers(args, mode):
    store = os.path.join(args.dir, "many-%s.sqlite" % mode)
    fresh(store)
    client = spawn(args, "many-" + mode)
    try:
        client.open_store({"entities": [{"name": "Item", "attributes": {
            "value": {"type": "integer", "indexed": True}, "tag": {"type": "integer"}}}]}, path=store)
        rng = random.Random(5)
        ids = client.store_batch_insert(
            "Item", keys=["value", "tag"], rows=[[rng.randrange(10 ** 9), i % 100] for i in range(10_000)],
            return_ids=True)["ids"]
        main = client.context()
        start = time.perf_counter()
        controllers = [main.controller("c%d" % i, fetch_request("Item", sort_descriptors=["value"]),
                                       notify=notify(mode), mirror=False)
                       for i in range(args.controllers)]
        created = time.perf_counter() - start
        notes = []
        client.add_listener(lambda method, params: notes.append(method))
        batch = main.batch()
        for _ in range(100):
            batch.update(ids[rng.randrange(len(ids))], {"value": rng.randrange(10 ** 9)})
        batch.save()
        start = time.perf_counter()
        batch.send()
        cycle = time.perf_counter() - start
        emit("many_controllers", args.controllers, cycle, None, "<= 1 s", mode=mode,
             notifications=len(notes), create_s=round(created, 3))
        del controllers
    finally:
        client.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fetchd", required=True)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--controllers", type=int, default=1000)
    parser.add_argument("--updates", type=int, default=10_000, help="objects in the update_objects cycle")
    parser.add_argument("--insert", choices=("parts", "one"), default="parts",
                        help="the batch insert as one insert in parts (batch_insert_in_parts) or as requests of --chunk rows")
    parser.add_argument("--chunk", type=int, default=1_000_000, help="rows per store/batchInsert request (--insert one)")
    parser.add_argument("--mode", default="difference", choices=["rows", "difference"])
    parser.add_argument("--dir")
    parser.add_argument("--only", choices=("bulk", "many_controllers"), help="run one part of the suite")
    args = parser.parse_args()
    own = args.dir is None
    args.dir = args.dir or tempfile.mkdtemp(prefix="fetchd-bulk-")
    try:
        if args.only != "many_controllers":
            bulk(args)
        for mode in ("rows", "difference") if args.only != "bulk" else ():
            many_controllers(args, mode)
    finally:
        if own:
            shutil.rmtree(args.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
