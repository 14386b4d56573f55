#!/usr/bin/env python3
"""fetchd on a PostgreSQL dataset against raw libpq floors measured in the same run by
`pg-baseline` on the same cluster (Benchmarks/README.md, "PostgreSQL"):

- batch_insert: `store/batchInsert` of N workload rows (columnar; `--insert parts`, the
  default: the client's `batch_insert_in_parts`, one insert sent as parts of about 4 MB;
  `--insert one`: one request) with a live controller (difference mode) on the entity, until
  the client's mirror applied the cycle, vs pg-baseline's COPY of the same rows. Goal: >= 0.3x
  COPY's rows/s.
- initial_fetch: `controller/create` (performFetch) of the N rows sorted by ts, vs
  pg-baseline's ordered SELECT of ids and keys. Goal: <= 1.5x (p50 against p50).
- external_notify: another fetchd's one-row save -> the watching fetchd's client has read
  `controller/didChangeContent` (LISTEN/NOTIFY wake-up, history read by token, merge, cycle).
  Goal: p50 <= 10 ms.

    Benchmarks/python/pg_bench.py --fetchd .build/release/fetchd --url URL --baseline pg-raw.jsonl
        [--rows N] [--iterations K] [--notifies M] [--dir D]

Each figure is one JSON line (suite "pg") and one readable line on stderr.
"""
import argparse
import json
import os
import subprocess
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
REQUEST = fetch_request("Msg", sort_descriptors=["ts"])


def store_url(url, schema):
    return url + ("&" if "?" in url else "?") + "schema=" + schema


def psql(url, schema, sql):
    env = dict(os.environ, PGOPTIONS="-c search_path=%s -c client_min_messages=warning" % schema)
    out = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql],
                         env=env, check=True, capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if line]


def spawn(args, name, watch):
    return Client.spawn(args.fetchd, framing="ndjson", args=["--watch", watch],
                        stderr=open(os.path.join(args.dir, name + ".stderr"), "wb"), timeout=600)


def ratio_line(metric, n, fetchd, baseline, goal, **extra):
    ratio = fetchd / baseline if baseline else None
    line = {"suite": "pg", "metric": metric, "n": n, "unit": extra.pop("unit", "us"), "fetchd": round(fetchd, 3),
            "baseline": round(baseline, 3) if baseline else None,
            "ratio": round(ratio, 3) if ratio else None, "goal": goal, **extra}
    benchlib.emit(line)
    benchlib.log("pg", "%s n=%d: fetchd %.0f, baseline %s, %s (goal %s)" % (
        metric, n, fetchd, "%.0f" % baseline if baseline else "-", "%.2fx" % ratio if ratio else "", goal))


def bench(args, baseline):
    n = args.rows
    schema = "bench_%d" % os.getpid()
    url = store_url(args.url, schema)
    a = spawn(args, "watcher", "auto")
    b = None
    try:
        a.open_store(MODEL, url=url)
        main = a.context()
        msgs = main.controller("msgs", REQUEST, notify={"mode": "difference", "objects": False})
        rows = [[ts, sender, body] for (_, ts, sender, body) in benchlib.rows(n)]
        start = time.perf_counter()
        if args.insert == "parts":
            a.batch_insert_in_parts("Msg", ["ts", "sender", "body"], rows, progress=False)
        else:
            a.store_batch_insert("Msg", keys=["ts", "sender", "body"], rows=rows)
        inserted = time.perf_counter() - start
        want = ["Msg/%s" % pk for pk in psql(args.url, schema, 'SELECT "_pk" FROM "Msg" ORDER BY "ts", "_pk"')]
        got = [i for section in msgs.mirror.ids() for i in section]
        if got != want or len(want) != n:
            raise SystemExit("pg: the mirror (%d rows) differs from the table (%d rows)" % (len(got), len(want)))
        copy = baseline.get("copy_load")
        copy_rate = n / (copy["p50"] / 1e6) if copy else None
        # A rate: the ratio is fetchd's rows/s over COPY's (goal >= 0.3).
        line = {"suite": "pg", "metric": "batch_insert", "n": n, "unit": "rows/s", "fetchd": round(n / inserted),
                "baseline": round(copy_rate) if copy_rate else None,
                "ratio": round((n / inserted) / copy_rate, 3) if copy_rate else None, "goal": ">= 0.3x COPY",
                "sent": args.insert}
        benchlib.emit(line)
        benchlib.log("pg", "batch_insert n=%d: %.2f s, %d rows/s; COPY %s rows/s" % (
            n, inserted, n / inserted, "%d" % copy_rate if copy_rate else "-"))

        samples = []
        for k in range(args.iterations + 1):
            start = time.perf_counter()
            c = main.controller("fetch%d" % k, REQUEST, mirror=False)
            elapsed = (time.perf_counter() - start) * 1e6
            c.close()
            if k:  # the first warms the server's cache, as pg-baseline's does
                samples.append(elapsed)
        raw = baseline.get("initial_fetch")
        mine = benchlib.summary(samples)
        ratio_line("initial_fetch", n, mine["p50"], raw["p50"] if raw else None, "<= 1.5x", samples=len(samples))

        b = spawn(args, "writer", "off")
        b.open_store(MODEL, url=url)
        ids = want[:args.notifies]
        latencies = []
        for k, oid in enumerate(ids):
            b.context().update(oid, {"body": "edit %d" % k})
            start = time.perf_counter()
            b.context().save()
            if not a.wait_for_notifications(10.0, until="controller/didChange"):
                raise SystemExit("pg: no notification within 10 s of another process's save")
            latencies.append((time.perf_counter() - start) * 1e6)
        s = benchlib.summary(latencies)
        floor = baseline.get("notify_latency")
        line = {"suite": "pg", "metric": "external_notify", "n": n, "unit": "us", **{k: round(v, 1) for k, v in s.items()},
                "floor_p50": floor["p50"] if floor else None, "goal": "p50 <= 10 ms"}
        benchlib.emit(line)
        benchlib.log("pg", "external_notify: p50 %.0f us, p99 %.0f us (raw NOTIFY floor p50 %s us)" % (
            s["p50"], s["p99"], floor["p50"] if floor else "-"))
    finally:
        a.close()
        if b is not None:
            b.close()
        try:
            psql(args.url, "public", "DROP SCHEMA IF EXISTS %s CASCADE" % schema)
        except subprocess.CalledProcessError:
            pass


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fetchd", required=True)
    parser.add_argument("--url", required=True, help="the cluster (scripts/pg-cluster.sh start prints it)")
    parser.add_argument("--baseline", help="pg-baseline's result lines from the same cluster")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--notifies", type=int, default=200)
    parser.add_argument("--insert", choices=("parts", "one"), default="parts",
                        help="the batch insert as parts (batch_insert_in_parts) or as one request")
    parser.add_argument("--dir")
    args = parser.parse_args()
    baseline = {}
    if args.baseline:
        with open(args.baseline) as f:
            for text in f:
                text = text.lstrip("# ").strip()
                if text.startswith("{"):
                    line = json.loads(text)
                    baseline[line["metric"]] = line
    with tempfile.TemporaryDirectory() as scratch:
        args.dir = args.dir or scratch
        bench(args, baseline)


if __name__ == "__main__":
    main()
