#!/usr/bin/env python3
"""Other processes on the file (protocol.md §5), measured on a release fetchd with a controller
over N rows (default 1,000,000; Benchmarks/README.md, "External changes"):

- external_latency: a plain sqlite3 client commits one row; time from its COMMIT returning to
  fetchd's `store/didChangeExternally` read by this client, `--watch auto` (inotify) and
  `--watch poll` separately (goal auto: p50 <= 2 ms, p99 <= 10 ms).
- idle_cpu: CPU a watching fetchd uses while nothing happens, over 5 s (goal < 1 % of a core).
- history_cost: what recording the history adds to a write, at the SQL level, same run: a
  20,000-row insert (rows/s) and one-row updates + commit (p50) with the rows fetchd records
  for them (its transaction row; one history row with the old values per update, one per run
  of inserted numbers) vs without (goal: with <= 1.25x the cost without); beside it, a plain
  client's same writes through the store's history triggers.
- external_10k: one plain-client transaction changing 10,000 rows' sort key, commit ->
  notification, vs the same change saved by another context inside fetchd (request -> answer,
  the controller's cycle included) (goal <= 2x).

    Benchmarks/python/external_bench.py --fetchd .build/release/fetchd [--rows N] [--dir D]

Each figure is printed as one JSON line and one readable line.
"""
import argparse
import json
import os
import random
import select
import sqlite3
import subprocess
import sys
import tempfile
import time

MODEL = {"entities": [{"name": "Item", "attributes": {"name": {"type": "string"}, "n": {"type": "integer"}}}]}
REQUEST = {"entity": "Item", "sortDescriptors": [{"key": "name"}]}


class Fetchd:
    def __init__(self, binary, watch, env=None):
        self.process = subprocess.Popen([binary, "--framing", "ndjson", "--watch", watch],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0,
                                        env={**os.environ, **(env or {})})
        self.pending = b""
        self.next_id = 0

    def send(self, message):
        self.process.stdin.write((json.dumps(message) + "\n").encode())

    def read(self, timeout=120):
        while b"\n" not in self.pending:
            ready, _, _ = select.select([self.process.stdout], [], [], timeout)
            if not ready:
                raise TimeoutError("fetchd sent nothing")
            chunk = os.read(self.process.stdout.fileno(), 1 << 20)
            if not chunk:
                raise EOFError("fetchd closed its output")
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)

    def request(self, method, params=None):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params or {}})
        while True:
            m = self.read()
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m["result"]

    def until(self, method):
        while self.read().get("method") != method:
            pass

    def cpu_seconds(self):
        fields = open(f"/proc/{self.process.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self):
        try:
            self.process.stdin.close()
            self.process.wait(30)
        except (subprocess.TimeoutExpired, BrokenPipeError):
            self.process.kill()
            self.process.wait()


def make_store(binary, path, rows):
    f = Fetchd(binary, "off")
    try:
        f.request("store/open", {"path": path, "model": MODEL})
    finally:
        f.stop()
    db = sqlite3.connect(path)
    db.execute(f"""WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < {rows})
                   INSERT INTO Item (name, n) SELECT printf('item %08d', x), x % 997 FROM c""")
    db.execute("DELETE FROM _fetchd_history WHERE seq < (SELECT max(seq) FROM _fetchd_history)")
    db.commit()
    db.close()


def open_watching(binary, path, watch):
    f = Fetchd(binary, watch)
    f.request("store/open", {"path": path, "model": MODEL})
    f.request("controller/create", {"context": "main", "name": "items", "request": REQUEST})
    return f


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]


def emit(figure, watch, n, samples_ms, extra=None):
    line = {"suite": "fetchd-external", "metric": figure, "watch": watch, "n": n, "unit": "ms",
            "p50": percentile(samples_ms, 0.5), "p99": percentile(samples_ms, 0.99), "samples": len(samples_ms)}
    line.update(extra or {})
    print(json.dumps(line))
    print(f"# {figure} --watch {watch} n={n}: p50 {line['p50']:.2f} ms, p99 {line['p99']:.2f} ms "
          f"({len(samples_ms)} samples)", flush=True)


def external_latency(binary, path, rows, watch, commits):
    f = open_watching(binary, path, watch)
    try:
        db = sqlite3.connect(path, timeout=10)
        samples = []
        for i in range(commits):
            time.sleep(random.uniform(0.005, 0.06))
            db.execute("INSERT INTO Item (name, n) VALUES (?, ?)", (f"new {watch} {i:05d}", i))
            start = time.perf_counter()
            db.commit()
            f.until("store/didChangeExternally")
            samples.append((time.perf_counter() - start) * 1000)
        db.close()
        emit("external_latency", watch, rows, samples)
        if watch == "auto":
            before = f.cpu_seconds()
            time.sleep(5)
            used = (f.cpu_seconds() - before) / 5 * 100
            print(json.dumps({"suite": "fetchd-external", "metric": "idle_cpu", "watch": watch, "n": rows,
                              "unit": "percent_of_core", "value": used}))
            print(f"# idle_cpu --watch auto n={rows}: {used:.2f} % of a core over 5 s (goal < 1 %)", flush=True)
    finally:
        f.stop()


def external_10k(binary, path, rows, changes, rounds):
    f = open_watching(binary, path, "auto")
    try:
        f.request("context/create", {"name": "other"})
        db = sqlite3.connect(path, timeout=10)
        step = max(1, rows // changes)
        external, inside = [], []
        for r in range(rounds):
            db.execute(f"UPDATE Item SET name = printf('ext{r} %08d', _pk) WHERE _pk % {step} = 0 AND _pk <= {step * changes}")
            start = time.perf_counter()
            db.commit()
            f.until("store/didChangeExternally")
            external.append((time.perf_counter() - start) * 1000)
            # The same change made inside fetchd: another root context saves it; main merges it.
            batch = [{"jsonrpc": "2.0", "id": 100000 + k, "method": "context/update",
                      "params": {"context": "other", "id": f"Item/{k * step}", "values": {"name": f"in{r} {k * step:08d}"}}}
                     for k in range(1, changes + 1)]
            f.send(batch)
            f.read()  # the batch's answer array
            start = time.perf_counter()
            f.request("context/save", {"context": "other"})
            inside.append((time.perf_counter() - start) * 1000)
        db.close()
        emit("external_10k", "auto", rows, external, {"changes": changes})
        emit("inprocess_10k", "auto", rows, inside, {"changes": changes})
        ratio = percentile(external, 0.5) / percentile(inside, 0.5)
        print(f"# external_10k / inprocess_10k p50: {ratio:.2f}x (goal <= 2x)", flush=True)
    finally:
        f.stop()


def drop_history_triggers(db):
    names = [n for (n,) in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '\\_fetchd\\_trg\\_%' ESCAPE '\\'")]
    assert names, "the store has history triggers"
    for n in names:
        db.execute(f'DROP TRIGGER "{n}"')


def write_costs(db, bulk_rows, saves, record):
    """A bulk insert (rows/s) and one-row updates + commit (p50 us); `record(db, kind, first,
    last)` adds the history rows of each write inside its transaction."""
    rows = [(f"b {k:06d}", k) for k in range(bulk_rows)]
    start = time.perf_counter()
    db.execute("BEGIN IMMEDIATE")
    db.executemany("INSERT INTO Item (name, n) VALUES (?, ?)", rows)
    last = db.execute("SELECT max(_pk) FROM Item").fetchone()[0]
    record(db, "I", last - bulk_rows + 1, last)
    db.execute("COMMIT")
    bulk = bulk_rows / (time.perf_counter() - start)
    first = last - bulk_rows + 1
    samples = []
    for k in range(saves):
        pk = first + k % bulk_rows
        start = time.perf_counter()
        db.execute("BEGIN IMMEDIATE")
        record(db, "U", pk, pk)
        db.execute("UPDATE Item SET n = ?, _version = _version + 1 WHERE _pk = ?", (-k, pk))
        db.execute("COMMIT")
        samples.append((time.perf_counter() - start) * 1e6)
    return bulk, percentile(samples, 0.5)


def fetchd_history_rows(db, kind, first, last):
    """The rows fetchd writes with its own save (protocol.md §5 "History"): its transaction,
    and one history row per updated object with its old values, or one row per run of
    inserted numbers."""
    txn = db.execute("INSERT INTO _fetchd_transactions (author, origin, time) VALUES (NULL, 'bench', 0)").lastrowid
    seq = db.execute("SELECT coalesce(max(seq), 0) + 1 FROM _fetchd_history").fetchone()[0]
    if kind == "I":
        db.execute("INSERT INTO _fetchd_history (seq, txn, entity, pk, op, other) VALUES (?, ?, 'Item', ?, 'I', ?)",
                   (seq, txn, first, last))
    else:
        db.execute("""INSERT INTO _fetchd_history (seq, txn, entity, pk, op, keys, version, old)
                      SELECT ?, ?, 'Item', _pk, 'U', 'n', _version, json_array(name, n) FROM Item WHERE _pk = ?""",
                   (seq, txn, first))


def history_cost(binary, directory, bulk_rows=20_000, saves=2000, rounds=3):
    """The history's share of a write at the SQL level, same run: the statements of a write
    with the rows fetchd records for it vs without them (on a store without triggers); and,
    beside it, a plain client's write with the store's history triggers vs without."""
    kinds = {
        "with": (False, fetchd_history_rows),
        "without": (False, lambda *a: None),
        "plain_triggers": (True, lambda *a: None),
    }
    figures = {}
    for label, (triggers, record) in kinds.items():
        best_bulk, best_one = 0.0, float("inf")
        for r in range(rounds):
            path = os.path.join(directory, f"cost-{label}-{r}.sqlite")
            f = Fetchd(binary, "off")
            try:
                f.request("store/open", {"path": path, "model": MODEL})
            finally:
                f.stop()
            db = sqlite3.connect(path, isolation_level=None)
            db.execute("PRAGMA synchronous=NORMAL")
            if not triggers:
                drop_history_triggers(db)
            bulk, one = write_costs(db, bulk_rows, saves, record)
            db.close()
            best_bulk, best_one = max(best_bulk, bulk), min(best_one, one)
        figures[label] = (best_bulk, best_one)
        print(json.dumps({"suite": "fetchd-external", "metric": "history_cost", "history": label,
                          "bulk_rows_per_s": best_bulk, "one_change_save_us_p50": best_one}))
        print(f"# history_cost {label}: bulk insert {best_bulk:.0f} rows/s, one-change commit p50 {best_one:.0f} us",
              flush=True)
    w, wo, p = figures["with"], figures["without"], figures["plain_triggers"]
    print(f"# history_cost ratio with/without: bulk {wo[0] / w[0]:.2f}x, one-change commit {w[1] / wo[1]:.2f}x "
          f"(goal <= 1.25x); a plain client's triggers: bulk {wo[0] / p[0]:.2f}x, one change {p[1] / wo[1]:.2f}x",
          flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fetchd", required=True)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--commits", type=int, default=100)
    parser.add_argument("--changes", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dir")
    args = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="fetchd-external-", dir=args.dir)
    path = os.path.join(directory, "external.sqlite")
    try:
        history_cost(args.fetchd, directory)
        t0 = time.perf_counter()
        make_store(args.fetchd, path, args.rows)
        print(f"# store of {args.rows} rows made in {time.perf_counter() - t0:.1f} s", flush=True)
        for watch in ("auto", "poll"):
            external_latency(args.fetchd, path, args.rows, watch, args.commits)
        external_10k(args.fetchd, path, args.rows, min(args.changes, args.rows // 2), args.rounds)
    finally:
        for name in os.listdir(directory):
            os.unlink(os.path.join(directory, name))
        os.rmdir(directory)


if __name__ == "__main__":
    main()
