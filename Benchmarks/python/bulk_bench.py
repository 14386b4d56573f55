#!/usr/bin/env python3
"""Bulk work through the Python client against what SQLite costs, one release fetchd per
controller variant, baselines in the same run (Benchmarks/README.md, "Bulk work"):

Every bulk figure runs once per controller variant on the entity (`--variants`):
  none               no controller: the store path alone;
  difference-ids     difference mode, `notify: {objects: false}` (ids only);
  difference-values  difference mode, `notify: {keys: ["ts"]}` (the sorted attribute's values);
  rows-values        rows mode (the default), `notify: {keys: ["ts"]}`.
Each variant gets its own fetchd, store file and baseline file (written the same way), so
every line has its own raw baseline. The figures, in this order on one store:

- batch_insert: `store/batchInsert` of N workload rows (default 200,000; columnar; sent as
  one insert in parts of about 4 MB by the client's `batch_insert_in_parts`, or with
  `--insert one` in one request, `--chunk` rows a request), until the client's mirror has
  applied every cycle, vs Python sqlite3 `executemany` + commit of the same rows into the
  same table shape (index on ts). The mirror must then equal the file's own ORDER BY.
- update_objects: a 10,000-update cycle (`--updates`): random rows given new random `ts`
  values (nearly every one a move) through one `store/batchUpdateObjects` (columnar), until
  the mirror has applied the cycle, vs Python sqlite3 `executemany` of the same 10,000
  `UPDATE ... WHERE id = ?` + commit. `context_updates` is the same cycle as one JSON-RPC
  batch of 10,000 `context/update`s and a save.
- batch_update: for each fraction f (`--fractions`, default a tenth and half), the rows in
  the next f of the `ts` range (bands one after another: [0, 0.1), then [0.1, 0.6)) get a
  new `body` (an attribute the controller does not sort on) through `store/batchUpdate`, vs
  the same `UPDATE` statement + commit on the baseline file.
- batch_delete: the same bands through `store/batchDelete` vs the same `DELETE` + commit; a
  later band's `of` is the rows left by the earlier ones.
- many_controllers: 1000 controllers on one 10,000-row entity, then one JSON-RPC batch of
  100 updates + save, until the client has read every notification (rows mode and
  difference mode). Goal: <= 1 s.

Goals (issue "The cost of a change"; each line carries its `goal`, `goal_limit` and `met`):
batchInsert >= 0.5x executemany's rows/s (<= 2x its time) and 10k objects updated <= 2x the
raw time, with any difference-mode controller or none; batchUpdate / batchDelete with no
controller <= 1.5x at any fraction, with `objects: false` <= 1.5x at a tenth and <= 2x at
half, with values in difference mode <= 2x; rows mode with values within 3x of difference
mode with values on the same figure and fraction (`vs_difference`: its time over that
variant's; rows-values runs last).

    Benchmarks/python/bulk_bench.py --fetchd .build/release/fetchd [--rows N] [--dir D]
        [--variants none,difference-ids,difference-values,rows-values] [--fractions 0.1,0.5]

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
    where = "".join(" %s" % extra[k] for k in ("variant",) if k in extra)
    where += " of %s" % fraction_text(extra["fraction"]) if extra.get("fraction") else ""
    judged = {True: ", met", False: ", NOT met"}.get(extra.get("met"), "")
    beside = ", %.2fx difference mode" % extra["vs_difference"] if extra.get("vs_difference") else ""
    benchlib.log("bulk", "%s%s n=%d: fetchd %.3f s, baseline %s, %s%s (goal %s%s)" % (
        metric, where, n, fetchd_s, "%.3f s" % baseline_s if baseline_s else "-",
        "%.2fx" % ratio if ratio else "", beside, goal, judged))


def fraction_text(f):
    return {0.1: "a tenth", 0.5: "half"}.get(f, "%g" % f)


def notify(mode, **extra):
    """`notify` of controller/create: rows mode is the default, so it is left out."""
    return {**extra, **({"mode": mode} if mode != "rows" else {})} or None


# The controller on the entity while the bulk figures run: name -> (mode, notify extras), or
# None for no controller.
VARIANTS = {
    "none": None,
    "difference-ids": ("difference", {"objects": False}),
    "difference-values": ("difference", {"keys": ["ts"]}),
    "rows-values": ("rows", {"keys": ["ts"]}),
}
KEY_SPACE = 1 << 47  # the workload's ts values are uniform below this (benchlib.SplitMix64)


def goal_for(metric, variant, fraction):
    """(the goal in words, what it is judged on, its limit): "raw" is the time over the raw
    baseline's, "difference" the time over difference-values' on the same figure and
    fraction (issue "The cost of a change", Goals)."""
    if variant == "rows-values":
        return "<= 3x difference mode with values", "difference", 3.0
    if metric == "batch_insert":
        return ">= 0.5x rows/s (<= 2x the time)", "raw", 2.0
    if metric == "update_objects":
        return "<= 2x", "raw", 2.0
    if variant == "none" or (variant == "difference-ids" and fraction <= 0.1):
        return "<= 1.5x", "raw", 1.5
    return "<= 2x", "raw", 2.0


def judged(metric, variant, fraction, elapsed, base, done):
    """The goal fields of one line. `done` holds the fetchd times measured so far by
    (metric, variant, fraction), for rows mode's comparison with difference mode."""
    text, on, limit = goal_for(metric, variant, fraction)
    done[(metric, variant, fraction)] = elapsed
    if on == "raw":
        return {"goal": text, "goal_limit": limit, "met": elapsed / base <= limit if base else None}
    other = done.get((metric, "difference-values", fraction))
    vs = elapsed / other if other else None
    return {"goal": text, "goal_limit": limit, "met": vs <= limit if vs else None,
            "vs_difference": round(vs, 3) if vs else None}


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


def timed(step, cpu=None):
    """Runs step after settle(): (its value, the wall time). With a dict `cpu`, also the CPU
    seconds the step cost fetchd (`client`'s process, from /proc) and this Python process, in
    cpu["fetchd_cpu"] and cpu["client_cpu"] (its "pid" is taken out): where the wall time went."""
    settle()
    before = (process_cpu(cpu["pid"]), time.process_time()) if cpu is not None else None
    start = time.perf_counter()
    value = step()
    elapsed = time.perf_counter() - start
    if cpu is not None:
        cpu["client_cpu"] = round(time.process_time() - before[1], 4)
        cpu["fetchd_cpu"] = round(process_cpu(cpu["pid"]) - before[0], 4) if before[0] is not None else None
        del cpu["pid"]
    return value, elapsed


def process_cpu(pid):
    """User + system CPU seconds of a process, or None off Linux."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_of(client):
    return {"pid": client.process.pid}


def bands(fractions):
    """The ts bands the predicate batches touch, one after another: [(fraction, low, high)]."""
    out, low = [], 0.0
    for f in fractions:
        out.append((f, int(KEY_SPACE * low), int(KEY_SPACE * min(low + f, 1.0))))
        low += f
    return out


def bulk(args):
    n = args.rows
    rows = list(benchlib.rows(n))
    columns = [[ts, sender, body] for (_, ts, sender, body) in rows]
    done = {}
    for variant in args.variants:
        bulk_variant(args, variant, rows, columns, done)
        gc.collect()


def bulk_variant(args, variant, rows, columns, done):
    n = args.rows
    mode = VARIANTS[variant][0] if VARIANTS[variant] else None
    db, insert_base = baseline_file(os.path.join(args.dir, "baseline-%s.sqlite" % variant), rows)
    store = os.path.join(args.dir, "bulk-%s.sqlite" % variant)
    fresh(store)
    client = spawn(args, "bulk-" + variant)
    try:
        client.open_store(MODEL, path=store)
        main = client.context()
        msgs = None
        if mode:
            msgs = main.controller("msgs", fetch_request("Msg", sort_descriptors=["ts"]),
                                   notify=notify(mode, **VARIANTS[variant][1]))
        cpu = cpu_of(client)
        _, inserted = timed(lambda: insert(args, client, columns), cpu)
        check(msgs, store, n)
        emit("batch_insert", n, inserted, insert_base, variant=variant, mode=mode,
             rows_per_s=round(n / inserted), baseline_rows_per_s=round(n / insert_base),
             sent=args.insert if args.insert == "parts" else "chunks of %d" % args.chunk, **cpu,
             **judged("batch_insert", variant, None, inserted, insert_base, done))

        update_objects(args, client, main, msgs, store, db, n, variant, done)

        for f, low, high in bands(args.fractions):
            where = "ts >= %d AND ts < %d" % (low, high)
            _, base = timed(lambda: (db.execute("UPDATE msg SET body = ? WHERE " + where, ("changed %g" % f,)), db.commit()))
            cpu = cpu_of(client)
            updated, elapsed = timed(lambda: client.store_batch_update(
                "Msg", {"body": "changed %g" % f}, predicate=where)["count"], cpu)
            expected = db.execute("SELECT count(*) FROM msg WHERE " + where).fetchone()[0]
            if updated != expected:
                raise SystemExit("bulk: batch_update of %s answered %d, the baseline has %d" % (where, updated, expected))
            emit("batch_update", updated, elapsed, base, variant=variant, mode=mode, fraction=f, of=n, **cpu,
                 **judged("batch_update", variant, f, elapsed, base, done))

        left = n
        for f, low, high in bands(args.fractions):
            where = "ts >= %d AND ts < %d" % (low, high)
            _, base = timed(lambda: (db.execute("DELETE FROM msg WHERE " + where), db.commit()))
            cpu = cpu_of(client)
            deleted, elapsed = timed(lambda: client.store_batch_delete("Msg", predicate=where)["count"], cpu)
            check(msgs, store, left - deleted)
            if db.execute("SELECT count(*) FROM msg").fetchone()[0] != left - deleted:
                raise SystemExit("bulk: batch_delete of %s left another count than the baseline" % where)
            emit("batch_delete", deleted, elapsed, base, variant=variant, mode=mode, fraction=f, of=left, **cpu,
                 **judged("batch_delete", variant, f, elapsed, base, done))
            left -= deleted
    finally:
        client.close()
        db.close()


def insert(args, client, columns):
    if args.insert == "parts":
        client.batch_insert_in_parts("Msg", ["ts", "sender", "body"], columns, progress=False)
    else:
        for i in range(0, len(columns), args.chunk):
            client.store_batch_insert("Msg", keys=["ts", "sender", "body"], rows=columns[i:i + args.chunk])


def update_objects(args, client, main, msgs, store, db, n, variant, done):
    """Random rows moved to random places (new ts values) in one request, against the same
    UPDATEs by id on the baseline file. Both files hold rows 1..n in the same order."""
    rng = random.Random(20261126)
    count = min(args.updates, n)
    numbers = rng.sample(range(1, n + 1), count)
    values = [rng.randrange(KEY_SPACE) for _ in numbers]
    _, base = timed(lambda: (db.executemany("UPDATE msg SET ts = ? WHERE id = ?", zip(values, numbers)),
                             db.commit()))
    cycles = msgs.cycles if msgs else 0
    cpu = cpu_of(client)
    got, elapsed = timed(lambda: client.store_batch_update_objects(
        "Msg", ids=["Msg/%d" % k for k in numbers], keys=["ts"], rows=[[v] for v in values])["count"], cpu)
    if got != count or (msgs and msgs.cycles != cycles + 1):
        raise SystemExit("bulk: update_objects answered %d for %d objects in %d cycle(s)"
                         % (got, count, msgs.cycles - cycles if msgs else 0))
    check(msgs, store, n)
    # The way without it: one JSON-RPC batch of a context/update per object and a save.
    values = [rng.randrange(KEY_SPACE) for _ in numbers]
    batch = main.batch()
    for k, v in zip(numbers, values):
        batch.update("Msg/%d" % k, {"ts": v})
    batch.save()
    _, requests = timed(batch.send)
    check(msgs, store, n)
    # The baseline file gets the same values, so the predicate batches touch the same rows.
    db.executemany("UPDATE msg SET ts = ? WHERE id = ?", zip(values, numbers))
    db.commit()
    emit("update_objects", count, elapsed, base, variant=variant, mode=VARIANTS[variant] and VARIANTS[variant][0],
         of=n, context_updates=round(requests, 4), **cpu, **judged("update_objects", variant, None, elapsed, base, done))


def check(controller, store, expected):
    """The mirror equals the file's own order (ids by ts, then id); with no controller, the
    file holds the rows expected."""
    file = sqlite3.connect(store)
    want = ["Msg/%d" % pk for (pk,) in file.execute('SELECT "_pk" FROM "Msg" ORDER BY "ts", "_pk"')]
    file.close()
    got = want if controller is None else [i for section in controller.mirror.ids() for i in section]
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
        cpu = cpu_of(client)
        _, cycle = timed(batch.send, cpu)
        emit("many_controllers", args.controllers, cycle, None, "<= 1 s", mode=mode,
             notifications=len(notes), create_s=round(created, 3), **cpu)
        del controllers
    finally:
        client.close()


def variant_list(text):
    names = [v for v in text.split(",") if v]
    unknown = [v for v in names if v not in VARIANTS]
    if unknown or not names:
        raise argparse.ArgumentTypeError("variants are %s" % ", ".join(VARIANTS))
    return names


def fraction_list(text):
    fractions = [float(f) for f in text.split(",") if f]
    if not fractions or any(f <= 0 for f in fractions) or sum(fractions) > 1:
        raise argparse.ArgumentTypeError("fractions are positive and add up to at most 1")
    return fractions


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fetchd", required=True)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--controllers", type=int, default=1000)
    parser.add_argument("--updates", type=int, default=10_000, help="objects in the update_objects cycle")
    parser.add_argument("--insert", choices=("parts", "one"), default="parts",
                        help="the batch insert as one insert in parts (batch_insert_in_parts) or as requests of --chunk rows")
    parser.add_argument("--chunk", type=int, default=1_000_000, help="rows per store/batchInsert request (--insert one)")
    parser.add_argument("--variants", type=variant_list, default=list(VARIANTS),
                        help="controllers on the entity, comma-separated (default: %s)" % ",".join(VARIANTS))
    parser.add_argument("--fractions", type=fraction_list, default=[0.1, 0.5],
                        help="the predicate batches' bands of the rows, one after another (default: 0.1,0.5)")
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
