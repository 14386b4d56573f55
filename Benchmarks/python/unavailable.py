#!/usr/bin/env python3
"""Prints "not available" result lines for a suite that could not run (scripts/bench.sh)."""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402


def main(argv=None, out=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--suite", required=True)
    parser.add_argument("--metrics", required=True, help="comma-separated")
    parser.add_argument("--sizes", type=benchlib.int_list, required=True)
    parser.add_argument("--cycle-min-rows", type=int, default=0,
                        help="cycle_latency is only listed from this size on")
    parser.add_argument("--reason", required=True)
    args = parser.parse_args(argv)
    for n in args.sizes:
        for metric in args.metrics.split(","):
            if metric != "cycle_latency" or n >= args.cycle_min_rows:
                benchlib.emit(benchlib.unavailable_line(args.suite, metric, n, args.reason), out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
