#!/usr/bin/env python3
"""In-process controller timings for the table, from the controllers' own benchmark.

The controllers part measures its engine in Tests/ControllersTests/BenchmarkTests.swift (release
build, FETCHD_BENCH=1), printing lines such as

    BENCH n=1000000 bulk load (performFetch minus the source's sort) 81.2 ms; tree 20.1 bytes/row
    BENCH n=1000000 one changed object: p50 2.1 us, p99 6.3 us
    BENCH n=1000000 10k-change cycle 14.2 ms (20003 events)

This tool runs that benchmark (or reads its saved output) and turns those lines into result
lines of suite "fetchd" (Benchmarks/README.md). Its figures are thread CPU time of the engine
alone, on its own random workload (not WORKLOAD.md), with a tree footprint rather than an RSS
delta: they carry "source": "ControllersTests/BenchmarkTests" so the table can say so.
"""

import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

SUITE = "fetchd"
SOURCE = "ControllersTests/BenchmarkTests"
BUILD = ["swift", "build", "-c", "release", "--build-tests", "-Xswiftc", "-enable-testing",
         "--build-path", ".build-release"]
TEST = ["swift", "test", "-c", "release", "--skip-build", "--build-path", ".build-release",
        "--filter", "BenchmarkTests"]

NUMBER = r"([0-9]+(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?)"
PATTERNS = [
    ("change_latency", re.compile(r"BENCH n=(\d+) one changed object: p50 %s us, p99 %s us" % (NUMBER, NUMBER))),
    # The load time can print below zero (a separately timed sort subtracted from it).
    ("tree_load", re.compile(r"BENCH n=(\d+) bulk load .*?(-?[0-9.]+) ms; tree %s bytes/row" % NUMBER)),
    # "10k-change cycle 14.2 ms" or, over several cycles, "10k-change cycle: median 14.2 ms".
    ("cycle_latency", re.compile(r"BENCH n=(\d+) (\d+)k-change cycle:? (?:median )?%s ms" % NUMBER)),
    # controller/setRequest: a predicate change, and performFetch of the new request beside it.
    ("set_request", re.compile(r"BENCH n=(\d+) setRequest predicate change %s ms .*?"
                               r"performFetch of the new request %s ms" % (NUMBER, NUMBER))),
    ("set_request_refinement", re.compile(r"BENCH n=(\d+) setRequest refinement: p50 %s ms, p99 %s ms"
                                          % (NUMBER, NUMBER))),
    ("set_request_keystroke", re.compile(r"BENCH n=(\d+) setRequest keystroke: p50 %s ms, p99 %s ms"
                                         % (NUMBER, NUMBER))),
    # A dictionary fetch (sum grouped by a 100-value key) and the raw GROUP BY beside it.
    ("grouped_sum", re.compile(r"BENCH n=(\d+) grouped sum %s ms vs raw SQL GROUP BY %s ms" % (NUMBER, NUMBER))),
]


def parse(text, sizes=None):
    """Result lines for every BENCH line of `text` (restricted to `sizes` when given)."""
    lines = []
    for raw in text.splitlines():
        for metric, pattern in PATTERNS:
            m = pattern.search(raw)
            if not m:
                continue
            n = int(m.group(1))
            if sizes and n not in sizes:
                continue
            if metric == "change_latency":
                p50, p99 = float(m.group(2)), float(m.group(3))
                lines.append(figure(metric, n, p50, p99))
            elif metric == "set_request":
                change_us, fetch_us = float(m.group(2)) * 1000, float(m.group(3)) * 1000
                lines.append(figure(metric, n, change_us, change_us))
                lines.append(figure(metric, n, fetch_us, fetch_us, suite="fetchd-refetch"))
            elif metric in ("set_request_refinement", "set_request_keystroke"):
                p50, p99 = float(m.group(2)) * 1000, float(m.group(3)) * 1000
                lines.append(figure(metric, n, p50, p99))
            elif metric == "grouped_sum":
                engine_us, raw_us = float(m.group(2)) * 1000, float(m.group(3)) * 1000
                lines.append(figure(metric, n, engine_us, engine_us))
                lines.append(figure(metric, n, raw_us, raw_us, suite="sqlite-raw"))
            elif metric == "tree_load":
                load_us, per_row = float(m.group(2)) * 1000, float(m.group(3))
                lines.append(figure("tree_load", n, load_us, load_us))
                lines.append(figure("memory_per_row", n, per_row, per_row, unit="bytes", method="tree footprint"))
            else:
                cycle_us = float(m.group(3)) * 1000
                lines.append(figure(metric, n, cycle_us, cycle_us, changes=int(m.group(2)) * 1000))
    return lines


def figure(metric, n, p50, p99, unit="us", **extra):
    line = {"suite": SUITE, "metric": metric, "n": n, "unit": unit, "samples": None,
            "p50": p50, "p99": p99, "mean": None, "min": None, "max": None,
            "source": SOURCE, "clock": "thread CPU time"}
    line.update(extra)
    return line


def run(root):
    """Builds and runs the controllers' release benchmark; returns its output."""
    build = subprocess.run(BUILD, cwd=root, stdout=sys.stderr, stderr=sys.stderr)
    if build.returncode != 0:
        raise RuntimeError("release test build failed (%d)" % build.returncode)
    env = dict(os.environ, FETCHD_BENCH="1")
    test = subprocess.run(TEST, cwd=root, env=env, stdout=subprocess.PIPE, stderr=sys.stderr, text=True)
    if test.returncode != 0:
        raise RuntimeError("benchmark tests failed (%d)" % test.returncode)
    return test.stdout


def main(argv=None, out=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default=".", help="the fetchd package")
    parser.add_argument("--parse", metavar="FILE", help="read saved benchmark output instead of running it")
    parser.add_argument("--sizes", type=benchlib.int_list, default=None)
    # Accepted for the FETCHD_CONTROLLER_BENCH calling convention; the benchmark fixes its own.
    for ignored in ("--iterations", "--cycle-changes", "--cycle-min-rows", "--dir"):
        parser.add_argument(ignored, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    metrics = ("change_latency", "memory_per_row", "cycle_latency")
    try:
        if args.parse:
            with open(args.parse) as f:
                text = f.read()
        else:
            text = run(args.root)
        lines = parse(text, args.sizes)
        if not lines:
            raise RuntimeError("no BENCH lines in the benchmark's output")
    except (OSError, RuntimeError) as e:
        for n in args.sizes or []:
            for metric in metrics:
                benchlib.emit(benchlib.unavailable_line(SUITE, metric, n, "in-process benchmark: %s" % e), out)
        return 1
    for line in lines:
        benchlib.emit(line, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
