#!/usr/bin/env python3
"""Predicate size vs time (make bench): one fetchd process, an in-memory store of 1,000 rows,
then context/fetch with flat predicates of N terms (N OR-ed equalities, N AND-ed inequalities,
an IN list of N values), each timed from the request to its response, best of 3.
Linear growth means the 50k figure is about 5x the 10k one (protocol.md §7.4).
usage: predicate_size.py --fetchd PATH [--terms 1000,10000,50000] [--dir SCRATCH]
Prints a table, and with --jsonl one result line per figure (Benchmarks/README.md format).
"""
import argparse
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rpc_client import RpcClient  # noqa: E402

MODEL = {"entities": [{"name": "Row", "attributes": {"age": {"type": "integer"}, "name": {"type": "string"}}}]}
ROWS = 1000


def shapes(n, k=0):
    """Predicates of n terms; k makes each repetition's text new, so no cache answers it."""
    return {
        "OR ==": " OR ".join("age == %d" % (i - k) for i in range(n)),
        "AND !=": " AND ".join("age != %d" % (i + ROWS + k) for i in range(n)),
        "IN {list}": "age IN {%s}" % ", ".join(str(i - k) for i in range(n)),
    }


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--fetchd", required=True)
    parser.add_argument("--terms", default="1000,10000,50000")
    parser.add_argument("--dir", default=tempfile.gettempdir())
    parser.add_argument("--jsonl", action="store_true")
    args = parser.parse_args(argv)
    terms = [int(t) for t in args.terms.split(",")]
    client = RpcClient([args.fetchd], os.path.join(args.dir, "predicate-size.stderr"))
    try:
        client.request("store/open", {"path": ":memory:", "model": MODEL})
        client.batch([("context/insert", {"context": "main", "entity": "Row",
                                          "values": {"age": i, "name": "r%d" % i}}) for i in range(ROWS)])
        client.request("context/save", {"context": "main"})
        table = {}
        for n in terms:
            for shape in shapes(1):
                best = None
                for k in range(3):
                    predicate = shapes(n, k + 1)[shape]
                    start = time.perf_counter()
                    result, _ = client.request("context/fetch", {"context": "main", "keys": [],
                                                                 "request": {"entity": "Row", "predicate": predicate}})
                    elapsed = time.perf_counter() - start
                    best = elapsed if best is None else min(best, elapsed)
                table[(shape, n)] = best
                if args.jsonl:
                    print(json.dumps({"suite": "fetchd-predicates", "metric": "predicate_fetch " + shape, "n": n,
                                      "unit": "ms", "samples": 3, "p50": round(best * 1000, 2)}))
    finally:
        client.close()
    if not args.jsonl:
        print("predicate size vs time (context/fetch over %d rows, parse + compile + SQL, best of 3)" % ROWS)
        print("%-10s" % "terms" + "".join("%12s" % s for s in shapes(1)))
        for n in terms:
            print("%-10d" % n + "".join("%10.1f ms" % (table[(s, n)] * 1000) for s in shapes(1)))
        lo, hi = terms[0], terms[-1]
        growth = ", ".join("%s %.1fx" % (s, table[(s, hi)] / table[(s, lo)]) for s in shapes(1))
        print("growth %d -> %d terms (%.0fx the terms): %s" % (lo, hi, hi / lo, growth))


if __name__ == "__main__":
    main()
