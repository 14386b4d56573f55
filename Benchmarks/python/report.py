#!/usr/bin/env python3
"""Turns the result lines of one `make bench` run into the table and bench-results.json.

Each row puts fetchd's figure next to the baselines measured in the same run, as ratios, and
checks it against its goal (the "Goals" table of Benchmarks/README.md). fetchd figures come
from the in-process controller tool (suite "fetchd") when it ran, else from the pipe driver
(suite "fetchd-e2e") where the metric is the same thing; missing figures show their reason
("not available: ...").
"""

import argparse
import json
import sys

# The baselines shown per metric: (label, suite, their metric, fixed n or None, ratio shown).
# Floors (a bare commit, a bare pipe round trip) are context for the end-to-end budget, not peers.
BASELINES = {
    "change_latency": [("GRDB", "grdb", None, None, True), ("Python", "python", None, None, True)],
    "change_e2e": [("GRDB", "grdb", "change_latency", None, True),
                   ("Python", "python", "change_latency", None, True),
                   ("floor: SQLite commit", "sqlite-raw", "commit_latency", None, False),
                   ("floor: same Python client vs cat", "pipe-python", "roundtrip", 0, False),
                   ("floor: pipe round trip (Swift)", "pipe-raw", "roundtrip", 0, False)],
    # The same change through grdb-baseline's Swift pipe client (`--fetchd`), beside the floors
    # of that same process.
    "change_e2e_swift": [("floor: SQLite commit", "sqlite-raw", "commit_latency", None, False),
                         ("floor: pipe round trip (Swift)", "pipe-raw", "roundtrip", 0, False),
                         ("floor: same Swift client, server/ping", "fetchd-swift", "request_roundtrip", 0, False)],
    "initial_fetch": [("raw SQLite", "sqlite-raw", None, None, True), ("GRDB", "grdb", None, None, True),
                      ("Python", "python", None, None, True)],
    "cycle_latency": [("GRDB", "grdb", None, None, True)],
    "request_roundtrip": [("floor: same Python client vs cat", "pipe-python", "roundtrip", 0, False),
                          ("floor: pipe round trip (Swift)", "pipe-raw", "roundtrip", 0, False)],
    "pipelined_throughput": [],
    "memory_per_row": [("fetchd RSS delta over the pipe", "fetchd-e2e", None, None, False)],
    "set_request": [("performFetch of the new request", "fetchd-refetch", None, None, True)],
    "set_request_refinement": [],
    "set_request_keystroke": [],
    "grouped_sum": [("raw SQL GROUP BY", "sqlite-raw", None, None, True)],
}
TITLES = {
    "change_latency": "one change -> change set",
    "change_e2e": "one change e2e (pipe+save)",
    "change_e2e_swift": "one change e2e (pipe+save), Swift client",
    "initial_fetch": "performFetch (ids+keys)",
    "memory_per_row": "controller memory/row",
    "cycle_latency": "many-change cycle",
    "request_roundtrip": "JSON-RPC round trip (server/ping)",
    "pipelined_throughput": "pipelined server/ping",
    "set_request": "setRequest: predicate change",
    "set_request_refinement": "setRequest: refinement (10k results)",
    "set_request_keystroke": "setRequest: keystroke (10k results)",
    "grouped_sum": "dictionary fetch: sum grouped by 100 keys",
}


# One change end to end against the floors under it: a bare commit and the same client's bare
# round trip.
E2E_FLOOR_FACTOR = 1.3


class Results:
    def __init__(self, lines):
        self.lines = lines
        self.index = {(l["suite"], l["metric"], l["n"]): l for l in lines}

    def get(self, suite, metric, n):
        return self.index.get((suite, metric, n))

    def fetchd(self, metric, n, prefer_inprocess=True, suites=None):
        """fetchd's figure: in-process first (controller time), then end to end."""
        suites = suites or (["fetchd", "fetchd-e2e"] if prefer_inprocess else ["fetchd-e2e"])
        found = [self.get(s, metric, n) for s in suites]
        for line in found:
            if line and "unavailable" not in line:
                return line
        for line in found:
            if line:
                return line
        return None

    def sizes(self):
        return sorted({l["n"] for l in self.lines if l["n"] > 0})  # n = 0: size-free floors


def measured(line):
    return line is not None and "unavailable" not in line


def fmt_value(x, unit):
    if unit == "bytes":
        return "%.1f B" % x
    if unit == "req/s":
        return "%.0f req/s" % x
    if x < 1000:
        return "%.1f us" % x
    if x < 1e6:
        return "%.2f ms" % (x / 1e3)
    return "%.2f s" % (x / 1e6)


def fmt_line(line):
    if line is None:
        return "not run"
    if not measured(line):
        return "not available"
    unit = line.get("unit", "us")
    if line["samples"] == 1:
        return fmt_value(line["p50"], unit)
    return "%s / %s" % (fmt_value(line["p50"], unit), fmt_value(line["p99"], unit))


def fmt_n(n):
    return "%dM" % (n // 1000000) if n % 1000000 == 0 else "%dk" % (n // 1000) if n % 1000 == 0 else str(n)


def make_row(results, metric, n, goal=None, ratio_kind="speedup", prefer_inprocess=True, source=None):
    """One table row; goal(fetchd_line, ratios) -> (text, passed or None). `source` (suite, metric)
    names where fetchd's figure comes from when that is not the row's own metric."""
    mine = results.fetchd(source[1], n, suites=[source[0]]) if source else results.fetchd(metric, n, prefer_inprocess)
    row = {"figure": TITLES[metric], "metric": metric, "n": n,
           "fetchd_suite": mine["suite"] if mine else None,
           "fetchd": fmt_line(mine), "fetchd_p50": mine["p50"] if measured(mine) else None,
           "fetchd_p99": mine["p99"] if measured(mine) else None,
           "unavailable": mine.get("unavailable") if mine and not measured(mine) else None,
           "fetchd_source": mine.get("source") if measured(mine) else None,
           "fetchd_clock": mine.get("clock", "wall time") if measured(mine) else None,
           "baselines": []}
    for label, suite, their_metric, fixed_n, with_ratio in BASELINES[metric]:
        base = results.get(suite, their_metric or metric, n if fixed_n is None else fixed_n)
        entry = {"label": label, "suite": suite, "text": fmt_line(base),
                 "p50": base["p50"] if measured(base) else None, "ratio": None}
        if base is None and not with_ratio:
            continue  # an optional floor that was not measured
        if with_ratio and measured(base) and measured(mine) and mine["p50"] > 0:
            # speedup: how many times faster fetchd is; cost: fetchd's time over the floor's.
            entry["ratio"] = base["p50"] / mine["p50"] if ratio_kind == "speedup" else mine["p50"] / base["p50"]
            entry["ratio_kind"] = ratio_kind
        row["baselines"].append(entry)
    row["goal"], row["passed"] = goal(mine, row["baselines"]) if goal else ("", None)
    return row


def p50_at_most(limit_us, unit="us"):
    def check(mine, _):
        text = "p50 <= %s" % fmt_value(limit_us, unit)
        return text, (mine["p50"] <= limit_us) if measured(mine) else None
    return check


def p50_at_least(limit, unit):
    def check(mine, _):
        return "p50 >= %s" % fmt_value(limit, unit), (mine["p50"] >= limit) if measured(mine) else None
    return check


def speedup_at_least(label, factor, then=None):
    def check(mine, baselines):
        text = ">= %dx faster than %s" % (factor, label)
        ratio = next((b["ratio"] for b in baselines if b["label"] == label), None)
        ok = None if ratio is None else ratio >= factor
        if then:
            more_text, more_ok = then(mine, baselines)
            text += ", " + more_text
            ok = None if ok is None or more_ok is None else ok and more_ok
        return text, ok
    return check


def floors_at_most(factor, labels, then=None):
    """End to end within `factor` times the sum of the floors it is built on (each measured)."""
    def check(mine, baselines):
        text = "<= %gx (%s)" % (factor, " + ".join(l.replace("floor: ", "") for l in labels))
        if then:
            first_text, first_ok = then(mine, baselines)
            text = first_text + ", " + text
        floors = [next((b["p50"] for b in baselines if b["label"] == l), None) for l in labels]
        ok = None if not measured(mine) or None in floors else mine["p50"] <= factor * sum(floors)
        if then:
            ok = None if ok is None or first_ok is None else ok and first_ok
        return text, ok
    return check


def cost_at_most(label, factor):
    def check(mine, baselines):
        ratio = next((b["ratio"] for b in baselines if b["label"] == label), None)
        return "<= %gx %s" % (factor, label), None if ratio is None else ratio <= factor
    return check


def build_rows(results):
    sizes = results.sizes()
    largest = max(sizes) if sizes else None
    rows = []
    for n in sizes:
        goal = speedup_at_least("GRDB", 1000, then=p50_at_most(10)) if n == largest else None
        rows.append(make_row(results, "change_latency", n, goal))
    rows.append(scaling_row(results, sizes))
    for n in sizes:
        floors = floors_at_most(E2E_FLOOR_FACTOR, ["floor: SQLite commit", "floor: same Python client vs cat"],
                                then=p50_at_most(150))
        rows.append(make_row(results, "change_e2e", n, floors if n == largest else None,
                             prefer_inprocess=False))
    for n in sizes:
        if results.get("fetchd-swift", "change_e2e", n):
            # Its round trip floor is fetchd's server/ping through that same client: the raw
            # pipe's tight echo loop keeps both CPUs awake or not by where the scheduler puts
            # it (2.7 us in one run, 80.9 us in the next), where a change's round trip always
            # waits on work and so pays the wake-ups (Benchmarks/README.md).
            floors = floors_at_most(E2E_FLOOR_FACTOR, ["floor: SQLite commit", "floor: same Swift client, server/ping"])
            rows.append(make_row(results, "change_e2e_swift", n, floors if n == largest else None,
                                 source=("fetchd-swift", "change_e2e")))
    for n in sizes:
        rows.append(make_row(results, "initial_fetch", n,
                             cost_at_most("raw SQLite", 2) if n == largest else None, ratio_kind="cost"))
    for n in sizes:
        rows.append(make_row(results, "memory_per_row", n,
                             p50_at_most(48, "bytes") if n == largest else None))
    if results.get("fetchd-e2e", "request_roundtrip", 0):
        rows.append(make_row(results, "request_roundtrip", 0, prefer_inprocess=False))
        rows.append(make_row(results, "pipelined_throughput", 0, p50_at_least(60000, "req/s"),
                             prefer_inprocess=False))
    for n in sizes:
        if measured(results.fetchd("cycle_latency", n)) or results.get("grdb", "cycle_latency", n):
            row = make_row(results, "cycle_latency", n, p50_at_most(50000))
            changes = next((l.get("changes") for l in results.lines
                            if l["metric"] == "cycle_latency" and l["n"] == n and "changes" in l), None)
            if changes:
                row["figure"] = "%s-change cycle" % fmt_n(changes)
            rows.append(row)
    for n in sizes:
        if measured(results.fetchd("set_request", n)):
            rows.append(make_row(results, "set_request", n, cost_at_most("performFetch of the new request", 1.0),
                                 ratio_kind="cost"))
        if measured(results.fetchd("set_request_refinement", n)):
            rows.append(make_row(results, "set_request_refinement", n, p50_at_most(2000)))
        if measured(results.fetchd("set_request_keystroke", n)):
            rows.append(make_row(results, "set_request_keystroke", n, p50_at_most(2000)))
        if measured(results.fetchd("grouped_sum", n)):
            rows.append(make_row(results, "grouped_sum", n, cost_at_most("raw SQL GROUP BY", 1.2), ratio_kind="cost"))
    return rows


def scaling_row(results, sizes):
    """Cost at the largest n over cost at the smallest: O(log n) stays near 1, O(n) grows ~n."""
    row = {"figure": "scaling: change cost largest/smallest n", "metric": "change_latency_scaling",
           "n": max(sizes) if sizes else None, "baselines": [], "goal": "<= 2x", "passed": None}
    if len(sizes) < 2:
        row.update(fetchd="not run", fetchd_p50=None)
        return row
    lo, hi = min(sizes), max(sizes)

    def growth(line_lo, line_hi):
        if measured(line_lo) and measured(line_hi) and line_lo["p50"] > 0:
            return line_hi["p50"] / line_lo["p50"]
        return None

    mine = growth(results.fetchd("change_latency", lo), results.fetchd("change_latency", hi))
    row["fetchd"] = "%.2fx" % mine if mine is not None else "not available"
    row["fetchd_p50"] = mine
    row["passed"] = None if mine is None else mine <= 2
    for label, suite, _, _, _ in BASELINES["change_latency"]:
        g = growth(results.get(suite, "change_latency", lo), results.get(suite, "change_latency", hi))
        row["baselines"].append({"label": label, "suite": suite, "ratio": None, "p50": g,
                                 "text": "%.1fx" % g if g is not None else "not run"})
    row["figure"] = "scaling: change cost %s/%s" % (fmt_n(hi), fmt_n(lo))
    return row


def render(rows):
    """One line per figure (fetchd, goal, verdict), the baselines indented under it."""
    header = ["figure", "n", "fetchd p50 / p99", "goal", "status"]
    table = [header]
    for row in rows:
        status = {True: "PASS", False: "FAIL", None: "-"}[row["passed"]]
        table.append([row["figure"], fmt_n(row["n"]) if row["n"] else "", row["fetchd"], row["goal"] or "", status])
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    out = []
    for i, r in enumerate(table):
        out.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        if i == 0:
            out.append("-" * (sum(widths) + 2 * (len(widths) - 1)))
            continue
        for b in rows[i - 1]["baselines"]:
            peer = "" if b["label"].startswith("floor") else "vs "
            text = "%s%s%s: %s" % (" " * (widths[0] + 2), peer, b["label"], b["text"])
            if b.get("ratio") is not None:
                text += "  (fetchd %s %s)" % (fmt_ratio(b["ratio"]),
                                             "the cost" if b.get("ratio_kind") == "cost" else "faster")
            out.append(text)
    notes = sorted({"%s (%s, its own workload)" % (r["fetchd_source"], r["fetchd_clock"])
                    for r in rows if r.get("fetchd_source")})
    for note in notes:
        out.append("fetchd in-process figures from %s" % note)
    reasons = sorted({r["unavailable"] for r in rows if r.get("unavailable")})
    for reason in reasons:
        out.append("fetchd: not available: %s" % reason)
    return "\n".join(out)


def fmt_ratio(r):
    return "%.0fx" % r if r >= 100 else "%.1fx" % r if r >= 1 else "%.2fx" % r


BULK_TITLES = {"batch_insert": "batchInsert", "update_objects": "batchUpdateObjects",
               "batch_update": "batchUpdate", "batch_delete": "batchDelete"}
BULK_VARIANTS = {"none": "none", "difference-ids": "difference, objects: false",
                 "difference-values": "difference, keys: [ts]", "rows-values": "rows, keys: [ts]"}


def bulk_table(lines):
    """bulk_bench.py's per-variant lines as one Markdown table: figure x controller x
    fraction, fetchd against its own raw baseline, the CPU the step cost fetchd and the Python
    client (where the wall time went), the goal and whether it is met. Rows mode's goal is on
    its time over difference mode's (`vs_difference`), shown beside the ratio. Lines of
    several runs of the same figure make one row of ranges (low-high), judged by the worst."""
    out = ["| figure | controller | rows | fetchd | CPU: fetchd / client | raw SQLite | ratio to raw | goal | met? |",
           "|---|---|---|---|---|---|---|---|---|"]
    groups = {}
    for line in lines:
        if line.get("suite") == "bulk" and "variant" in line:
            groups.setdefault((line["metric"], line["variant"], line.get("fraction")), []).append(line)
    for (metric, variant, fraction), runs in groups.items():
        first = runs[0]
        rows = fmt_n(first["n"])
        if fraction:
            rows = "%s (%s of %s)" % (rows, {0.1: "a tenth", 0.5: "half"}.get(fraction, "%g" % fraction),
                                      fmt_n(first.get("of", first["n"])))
        ratio = span([l.get("ratio") for l in runs], "%.2fx")
        if metric == "batch_insert" and all(l.get("ratio") for l in runs):
            ratio += " (%s rows/s)" % span([1 / l["ratio"] for l in runs], "%.2fx")
        if any(l.get("vs_difference") for l in runs):
            ratio += "; %s difference" % span([l.get("vs_difference") for l in runs], "%.2fx")
        verdicts = [l.get("met") for l in runs]
        met = "**no**" if False in verdicts else "yes" if verdicts and all(verdicts) else "-"
        cpu = "%s / %s" % (span([l.get("fetchd_cpu") for l in runs], "%.2f s"),
                           span([l.get("client_cpu") for l in runs], "%.2f s"))
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            BULK_TITLES.get(metric, metric), BULK_VARIANTS.get(variant, variant), rows,
            span([l["fetchd"] for l in runs], "%.3f s"), "-" if cpu == "- / -" else cpu,
            span([l.get("baseline") for l in runs], "%.3f s"), ratio, first["goal"], met))
    return "\n".join(out)


def span(values, form):
    """One figure, or the range of several runs' ("0.21-0.25 s"); "-" when one is missing."""
    if not values or any(v is None for v in values):
        return "-"
    low, high = form % min(values), form % max(values)
    if low == high:
        return low
    unit = form.split("f", 1)[1]  # "%.2fx" -> "x": the unit once, after the range
    return "%s-%s" % (low[:len(low) - len(unit)] if unit else low, high)


def workload_mismatches(lines):
    """Sizes at which two tools ran different workloads (their first change differs)."""
    seen = {}
    for line in lines:
        if "workload" in line:
            seen.setdefault(line["n"], {})[line["suite"]] = line["workload"]
    return {n: by_suite for n, by_suite in seen.items() if len(set(by_suite.values())) > 1}


def read_lines(paths):
    lines = []
    for path in paths:
        with open(path) as f:
            for text in f:
                text = text.strip()
                if text.startswith("{"):
                    lines.append(json.loads(text))
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("inputs", nargs="+", help="files of result lines")
    parser.add_argument("--bulk", action="store_true",
                        help="print bulk_bench.py's lines in the inputs as one Markdown table, and nothing else")
    parser.add_argument("--json-out", help="write the run (results, rows, meta) here")
    parser.add_argument("--meta", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    if args.bulk:
        print(bulk_table(read_lines(args.inputs)))
        return 0
    results = Results(read_lines(args.inputs))
    rows = build_rows(results)
    print(render(rows))
    mismatches = workload_mismatches(results.lines)
    for n, by_suite in sorted(mismatches.items()):
        print("error: at n=%d the tools ran different workloads: %s" % (n, json.dumps(by_suite)))
    if args.json_out:
        meta = dict(item.split("=", 1) for item in args.meta)
        with open(args.json_out, "w") as f:
            json.dump({"meta": meta, "rows": rows, "results": results.lines}, f, indent=1)
            f.write("\n")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
