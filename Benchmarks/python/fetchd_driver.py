#!/usr/bin/env python3
"""fetchd end to end over its stdio pipe (NDJSON JSON-RPC 2.0) through the repository's Python client.

Per size n, against a fresh fetchd process and store: store/open with the workload model,
context/insert in JSON-RPC batches + context/save (bulk_load), controller/create over all rows
ordered by ts (initial_fetch, memory_per_row), then per iteration one [context/update,
context/save] batch timed from the write to its response, all of the cycle's notifications
having arrived before it (change_e2e), and at large n one batch of many updates + save
(cycle_latency). Same rows and changes as the baselines (Benchmarks/WORKLOAD.md). Before the
sizes, size-free transport figures: the same client against `cat` (its own floor), server/ping
round trips and pipelined server/ping throughput.

When fetchd cannot do this yet (a method answers -32601, the process exits or writes no
JSON-RPC), every figure of that size is printed as {"unavailable": reason} and the exit code is
still 0; any other JSON-RPC error is a real failure: printed the same way, exit code 1.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
from rpc_client import METHOD_NOT_FOUND, RpcClient, RpcError, ServerGone  # noqa: E402

TOOL = "fetchd_driver"
SUITE = "fetchd-e2e"
CONTEXT = "main"
MODEL = {"entities": [{"name": "Msg", "attributes": {
    "ts": {"type": "integer", "indexed": True}, "sender": {"type": "string"}, "body": {"type": "string"}}}]}
METRICS = ("bulk_load", "initial_fetch", "memory_per_row", "change_e2e", "cycle_latency")


class Unavailable(Exception):
    """fetchd cannot run this benchmark (yet); not a failure of fetchd."""


def rss_bytes(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS for pid %d" % pid)


def controller_notes(notes, controller):
    return [m for m in notes if m.get("params", {}).get("controller") == controller]


class SizeRun:
    """One fresh fetchd process and store for one table size."""

    def __init__(self, args, n, iterations, out):
        self.args, self.n, self.iterations, self.out = args, n, iterations, out
        self.store = os.path.join(args.dir, "fetchd-%d.sqlite" % n)
        self.controller = "bench-%d" % n
        self.ids = []

    def call(self, method, params=None):
        try:
            return self.client.request(method, params)
        except RpcError as e:
            if e.code == METHOD_NOT_FOUND:
                raise Unavailable("%s answers %d (method not found)" % (method, METHOD_NOT_FOUND))
            raise

    def call_batch(self, calls, timed=False):
        try:
            return self.client.batch_timed(calls) if timed else self.client.batch(calls)
        except RpcError as e:
            if e.code == METHOD_NOT_FOUND:
                raise Unavailable("%s answers %d (method not found)" % (e.method, METHOD_NOT_FOUND))
            raise

    def run(self):
        remove_store(self.store)
        self.client = RpcClient(self.args.fetchd + self.args.fetchd_arg,
                                os.path.join(self.args.dir, "fetchd-%d.stderr" % self.n),
                                timeout=self.args.timeout)
        try:
            self.open_store()
            self.bulk_load()
            self.create_controller()
            self.single_changes()
            if self.n >= self.args.cycle_min_rows and self.args.cycle_changes > 0:
                self.cycle()
            self.call("controller/close", {"controller": self.controller})
        finally:
            self.client.close()
            remove_store(self.store)

    def open_store(self):
        try:
            try:
                self.client.request("initialize", {"clientInfo": {"name": TOOL}})
            except RpcError:
                pass  # initialize is optional; store/open decides whether fetchd can run this
            self.call("store/open", {"path": self.store, "model": MODEL})
        except ServerGone as e:
            raise Unavailable("fetchd does not speak JSON-RPC yet: %s" % e)

    def bulk_load(self):
        benchlib.log(TOOL, "n=%d: inserting" % self.n)
        start = benchlib.now_us()
        rows = benchlib.rows(self.n)
        remaining = self.n
        while remaining:
            chunk = min(self.args.insert_batch, remaining)
            calls = []
            for _ in range(chunk):
                _, ts, sender, body = next(rows)
                calls.append(("context/insert", {"context": CONTEXT, "entity": "Msg",
                                                 "values": {"ts": ts, "sender": sender, "body": body}}))
            results, _ = self.call_batch(calls)
            self.ids.extend(r["object"]["id"] for r in results)
            self.call("context/save", {"context": CONTEXT})
            remaining -= chunk
        elapsed = benchlib.now_us() - start
        self.emit("bulk_load", [elapsed], rows_per_s=round(self.n / (elapsed / 1e6)))

    def create_controller(self):
        before = rss_bytes(self.client.pid)
        start = benchlib.now_us()
        result, _ = self.call("controller/create", {
            "context": CONTEXT, "name": self.controller,
            "request": {"entity": "Msg", "sortDescriptors": [{"key": "ts"}]}})
        created = benchlib.now_us() - start
        grown = rss_bytes(self.client.pid) - before
        if result.get("count") != self.n:
            raise RuntimeError("controller/create counted %r rows, expected %d" % (result.get("count"), self.n))
        fetches = [created]
        for _ in range(self.args.fetch_repeats - 1):
            start = benchlib.now_us()
            self.call("controller/performFetch", {"controller": self.controller})
            fetches.append(benchlib.now_us() - start)
        self.emit("initial_fetch", fetches, first_is="controller/create")
        # Includes whatever SQLite's page cache grew by during the fetch: an upper bound.
        self.emit("memory_per_row", [grown / self.n], unit="bytes", rss_delta=grown)

    def update_calls(self, change):
        row_id, ts = change
        return ("context/update", {"context": CONTEXT, "id": self.ids[row_id - 1], "values": {"ts": ts}})

    def single_changes(self):
        benchlib.log(TOOL, "n=%d: %d single-row changes" % (self.n, self.iterations))
        self.changes = benchlib.Changes(self.n)
        samples, notified, first = [], 0, None
        save = ("context/save", {"context": CONTEXT})
        for _ in range(self.iterations):
            change = self.changes.next()
            first = first or change
            elapsed, _, notes = self.call_batch([self.update_calls(change), save], timed=True)
            samples.append(elapsed)
            mine = controller_notes(notes, self.controller)
            if any(m["method"] == "controller/didChangeContent" for m in mine):
                notified += 1
        if notified < self.iterations:
            benchlib.log(TOOL, "n=%d: warning: only %d of %d changes were notified"
                         % (self.n, notified, self.iterations))
        self.emit("change_e2e", samples, notified=notified, workload="%d:%d" % first)

    def cycle(self):
        count = self.args.cycle_changes
        calls = [self.update_calls(self.changes.next()) for _ in range(count)]
        calls.append(("context/save", {"context": CONTEXT}))
        elapsed, _, notes = self.call_batch(calls, timed=True)
        changed = sum(1 for m in controller_notes(notes, self.controller)
                      if m["method"] == "controller/didChangeObject")
        self.emit("cycle_latency", [elapsed], changes=count, notified_objects=changed)

    def emit(self, metric, values, unit="us", **extra):
        benchlib.emit(benchlib.result_line(SUITE, metric, self.n, values, unit=unit, **extra), self.out)


def client_floor(args, out):
    """The change_e2e request (an [update, save] batch) through the same client against `cat`,
    which echoes it back as its own reply: what this driver and the pipe cost per round trip,
    without any server work."""
    client = RpcClient(["cat"], os.path.join(args.dir, "cat.stderr"), timeout=args.timeout)
    try:
        samples = []
        batch = [("context/update", {"context": CONTEXT, "id": "Msg/4488", "values": {"ts": 2362742405662}}),
                 ("context/save", {"context": CONTEXT})]
        for _ in range(args.pings):
            samples.append(client.echo_timed(batch))
        benchlib.emit(benchlib.result_line("pipe-python", "roundtrip", 0, samples, server="cat",
                                           request="[context/update, context/save] batch"), out)
    finally:
        client.close()  # cat echoes the shutdown request too, then ends at EOF


def transport_figures(args, out):
    """server/ping round trips one at a time, then pipelined in windows (no store needed)."""
    client = RpcClient(args.fetchd + args.fetchd_arg, os.path.join(args.dir, "fetchd-transport.stderr"),
                       timeout=args.timeout)
    try:
        try:
            client.request("server/ping")
        except RpcError as e:
            reason = "server/ping answers %s" % e.code
            for metric in ("request_roundtrip", "pipelined_throughput"):
                benchlib.emit(benchlib.unavailable_line(SUITE, metric, 0, reason), out)
            return
        # A batch of one, timed like change_e2e (encoding and parsing outside the window).
        samples = [client.batch_timed([("server/ping", None)])[0] for _ in range(args.pings)]
        benchlib.emit(benchlib.result_line(SUITE, "request_roundtrip", 0, samples, method="server/ping",
                                           request="[server/ping] batch"), out)

        # A window of requests written back to back, then its replies read: small enough that
        # neither pipe fills while the other side waits.
        window = 500
        rates = []
        for _ in range(max(1, args.pings // window)):
            elapsed, results = client.pipelined_timed([("server/ping", None)] * window)
            if len(results) != window:
                raise ServerGone("%d replies to %d pipelined requests" % (len(results), window))
            rates.append(window / (elapsed / 1e6))
        benchlib.emit(benchlib.result_line(SUITE, "pipelined_throughput", 0, rates, unit="req/s",
                                           window=window), out)
    except ServerGone as e:
        for metric in ("request_roundtrip", "pipelined_throughput"):
            benchlib.emit(benchlib.unavailable_line(SUITE, metric, 0, "fetchd does not speak JSON-RPC yet: %s" % e), out)
    finally:
        client.close()


def remove_store(path):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)


def report_unavailable(args, n, reason, out, already):
    for metric in METRICS:
        if metric == "cycle_latency" and (n < args.cycle_min_rows or args.cycle_changes <= 0):
            continue
        if metric not in already:
            benchlib.emit(benchlib.unavailable_line(SUITE, metric, n, reason), out)


class EmittedMetrics:
    """Wraps the output stream to know which metrics a size already printed."""

    def __init__(self, out):
        self.out, self.metrics = out, set()

    def write(self, text):
        if '"metric"' in text:
            self.metrics.add(json.loads(text)["metric"])
        self.out.write(text)

    def flush(self):
        self.out.flush()


def main(argv=None, out=None):
    out = out or sys.stdout
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fetchd", required=True, nargs=1, help="path of the fetchd binary")
    parser.add_argument("--fetchd-arg", action="append", default=[], help="extra argument for fetchd")
    parser.add_argument("--sizes", type=benchlib.int_list, default=[10000, 100000, 1000000])
    parser.add_argument("--iterations", type=benchlib.int_list, default=[1000],
                        help="one count, or one per size")
    parser.add_argument("--fetch-repeats", type=int, default=3)
    parser.add_argument("--insert-batch", type=int, default=5000)
    parser.add_argument("--cycle-changes", type=int, default=10000)
    parser.add_argument("--cycle-min-rows", type=int, default=1000000)
    parser.add_argument("--pings", type=int, default=10000, help="server/ping round trips (0: none)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for one reply")
    parser.add_argument("--dir", default=os.environ.get("TMPDIR", "/tmp"))
    args = parser.parse_args(argv)
    iterations = args.iterations * len(args.sizes) if len(args.iterations) == 1 else args.iterations
    if len(iterations) != len(args.sizes):
        parser.error("--iterations needs one count, or one per size")

    if args.pings > 0:
        client_floor(args, out)
        transport_figures(args, out)
    status = 0
    unavailable = None
    for n, count in zip(args.sizes, iterations):
        if unavailable:
            report_unavailable(args, n, unavailable, out, set())
            continue
        tracked = EmittedMetrics(out)
        try:
            SizeRun(args, n, count, tracked).run()
        except Unavailable as e:
            unavailable = str(e)  # the same answer for every size: do not start fetchd again
            benchlib.log(TOOL, "fetchd: not available: %s" % unavailable)
            report_unavailable(args, n, unavailable, out, tracked.metrics)
        except (RpcError, ServerGone, RuntimeError, KeyError, TypeError) as e:
            status = 1
            benchlib.log(TOOL, "n=%d: failed: %s" % (n, e))
            report_unavailable(args, n, "failed: %s" % e, out, tracked.metrics)
    return status


if __name__ == "__main__":
    sys.exit(main())
