"""Shared pieces of the Python benchmark tools (stdlib only).

The workload (Benchmarks/WORKLOAD.md) is re-implemented bit for bit from the Swift baseline so
every baseline sees the same rows and the same changes; the result line format is the one
Benchmarks/README.md documents.
"""

import json
import math
import sys
import time

MASK64 = (1 << 64) - 1
ROW_SEED = 20261123
CHANGE_SEED = 7
SCHEMA = ("CREATE TABLE msg(id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, "
          "sender TEXT NOT NULL, body TEXT NOT NULL)")
INDEX = "CREATE INDEX msg_ts ON msg(ts, id)"
PRAGMAS = ("PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA cache_size = -65536")
ORDERED_IDS_AND_KEYS = "SELECT id, ts FROM msg ORDER BY ts, id"


class SplitMix64:
    """SplitMix64, as in Benchmarks/Sources/GRDBBaseline/Workload.swift."""

    def __init__(self, seed):
        self.state = seed & MASK64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def next_key(self):
        """A 47-bit sort key: positive and exact as a double."""
        return self.next() >> 17


def rows(n):
    """Rows (id, ts, sender, body) for ids 1...n."""
    rng = SplitMix64(ROW_SEED)
    for i in range(1, n + 1):
        yield (i, rng.next_key(), "sender-%d" % (i % 500), "body of message %d for the benchmark" % i)


class Changes:
    """The endless sequence of single-row changes (row id, new sort key)."""

    def __init__(self, row_count):
        self.rng = SplitMix64(CHANGE_SEED)
        self.row_count = row_count

    def next(self):
        row_id = self.rng.next() % self.row_count + 1
        return row_id, self.rng.next_key()


def nearest_rank(sorted_values, q):
    """The smallest sample with at least q of all samples at or below it."""
    rank = math.ceil(q * len(sorted_values))
    return sorted_values[max(rank, 1) - 1]


def summary(values):
    if not values:
        raise ValueError("a summary needs at least one sample")
    s = sorted(values)
    return {"samples": len(s), "p50": nearest_rank(s, 0.50), "p99": nearest_rank(s, 0.99),
            "mean": sum(s) / len(s), "min": s[0], "max": s[-1]}


def result_line(suite, metric, n, values, unit="us", **extra):
    """One result as a dict; values are samples in `unit`."""
    line = {"suite": suite, "metric": metric, "n": n, "unit": unit}
    line.update({k: round(v, 3) if isinstance(v, float) else v for k, v in summary(values).items()})
    line.update(extra)
    return line


def unavailable_line(suite, metric, n, reason):
    """A figure that could not be measured, with the reason (shown in the table)."""
    return {"suite": suite, "metric": metric, "n": n, "unavailable": reason}


def emit(line, out=None):
    out = out or sys.stdout
    out.write(json.dumps(line) + "\n")
    out.flush()


def now_us():
    return time.perf_counter_ns() / 1000.0


def log(tool, message):
    sys.stderr.write("%s: %s\n" % (tool, message))
    sys.stderr.flush()


def int_list(text):
    return [int(x.replace("_", "")) for x in text.split(",") if x]
