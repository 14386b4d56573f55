#!/usr/bin/env python3
"""Draws every benchmark's measured ratio against its goal as one PNG (the last step of `make
bench`; Benchmarks/README.md shows the image).

A chart entry is one goal of Benchmarks/README.md's Goals table with the figure that answers
it: `ratio` (what the goal is stated in: times the baseline's cost, times faster, or the figure
over an absolute limit such as 10 us), `goal` (the same unit), `better` ("lower" or "higher"),
`measured` (the figures as text), `when` and, for a range of runs, `range` [low, high] with
`ratio` its worse end. Inputs, each detected by its shape:
  - a file of entries, {"entries": [...]} (Benchmarks/results/latest.json, the default);
  - a `make bench` run, bench-results.json (report.py's `rows`);
  - result lines (JSON Lines, e.g. bulk_bench.py's): the `bulk` suite's lines are used.
With --base FILE the inputs' entries replace the base's entries of the same key and the others
are kept (a run without PostgreSQL keeps the last PostgreSQL figures, with their date);
--write-base writes the merged entries back.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report  # noqa: E402  (fmt_value: one way to print a figure in every tool)

RESULTS = os.path.join(os.path.dirname(HERE), "results")
DEFAULT_ENTRIES = os.path.join(RESULTS, "latest.json")
DEFAULT_PNG = os.path.join(RESULTS, "ratios.png")

# The groups, in the order the chart and the table show them.
GROUPS = ["SQLite: controller", "SQLite: over the pipe", "SQLite: bulk work", "PostgreSQL"]

# Every goal the chart knows: key -> (group, figure, goal, better, the goal in words). The
# numbers are the Goals table's (Benchmarks/README.md) and report.py's; a test holds them
# together.
GOALS = {
    "change_vs_grdb": ("SQLite: controller", "one change -> change set, vs GRDB re-query + diff",
                       1000, "higher", ">= 1,000x faster"),
    "change_p50": ("SQLite: controller", "one change -> change set, p50", 1, "lower", "<= 10 us"),
    "change_scaling": ("SQLite: controller", "one change: cost at 1M / cost at 10k", 2, "lower", "<= 2x"),
    "fetch_vs_select": ("SQLite: controller", "performFetch vs raw SQLite SELECT", 2, "lower", "<= 2x"),
    "memory_per_row": ("SQLite: controller", "controller memory per row", 1, "lower", "<= 48 B"),
    "cycle_10k": ("SQLite: controller", "a 10k-change cycle", 1, "lower", "<= 50 ms"),
    "set_request": ("SQLite: controller", "setRequest vs performFetch of the new request", 1, "lower", "<= 1x"),
    "set_request_keystroke": ("SQLite: controller", "setRequest: a search-field keystroke, p50", 1, "lower",
                              "<= 2 ms"),
    "set_request_refinement": ("SQLite: controller", "setRequest: a refinement, p50", 1, "lower", "<= 2 ms"),
    "grouped_sum": ("SQLite: controller", "dictionary fetch: sum grouped, vs raw GROUP BY", 1.2, "lower",
                    "<= 1.2x"),
    "fetch_over_unsaved": ("SQLite: controller", "performFetch over 10k unsaved changes vs saved", 1.2, "lower",
                           "<= 1.2x"),
    "e2e_python_floors": ("SQLite: over the pipe", "one change end to end (Python) vs its floors", 1.3, "lower",
                          "<= 1.3x"),
    "e2e_python_p50": ("SQLite: over the pipe", "one change end to end (Python), p50", 1, "lower", "<= 150 us"),
    "e2e_swift_floors": ("SQLite: over the pipe", "one change end to end (Swift) vs its floors", 1.3, "lower",
                         "<= 1.3x"),
    "pipelined_throughput": ("SQLite: over the pipe", "pipelined server/ping", 1, "higher", ">= 60,000 req/s"),
    "batch_insert": ("SQLite: bulk work", "batchInsert, objects: false, rows/s vs executemany", 0.5, "higher",
                     ">= 0.5x"),
    "update_objects": ("SQLite: bulk work", "10k batchUpdateObjects, objects: false", 2, "lower", "<= 2x"),
    "batch_update": ("SQLite: bulk work", "batchUpdate a tenth, objects: false, vs UPDATE", 1.5, "lower", "<= 1.5x"),
    "batch_delete": ("SQLite: bulk work", "batchDelete a tenth, objects: false, vs DELETE", 1.5, "lower", "<= 1.5x"),
    "batch_insert_values": ("SQLite: bulk work", "batchInsert, values (difference), rows/s vs executemany", 0.5,
                            "higher", ">= 0.5x"),
    "update_objects_values": ("SQLite: bulk work", "10k batchUpdateObjects, values (difference)", 2, "lower",
                              "<= 2x"),
    "batch_update_values_half": ("SQLite: bulk work", "batchUpdate half, values (difference), vs UPDATE", 2, "lower",
                                 "<= 2x"),
    "batch_delete_values_half": ("SQLite: bulk work", "batchDelete half, values (difference), vs DELETE", 2, "lower",
                                 "<= 2x"),
    "batch_update_none": ("SQLite: bulk work", "batchUpdate, no controller, any fraction, vs UPDATE", 1.5, "lower",
                          "<= 1.5x"),
    "batch_delete_none": ("SQLite: bulk work", "batchDelete, no controller, any fraction, vs DELETE", 1.5, "lower",
                          "<= 1.5x"),
    "rows_vs_difference": ("SQLite: bulk work", "bulk figures: rows mode vs difference mode, values", 3, "lower",
                           "<= 3x"),
    "many_controllers": ("SQLite: bulk work", "1000 controllers, 100 updates (difference mode)", 1, "lower",
                         "<= 1 s"),
    "many_controllers_rows": ("SQLite: bulk work", "1000 controllers, 100 updates (rows mode, the default)", 1,
                              "lower", "<= 1 s"),
    "pg_fetch_vs_select": ("PostgreSQL", "controller/create vs ordered SELECT", 1.5, "lower", "<= 1.5x"),
    "pg_external_notify": ("PostgreSQL", "another process's save -> didChange, p50", 1, "lower", "<= 10 ms"),
    "pg_batch_insert_inprocess": ("PostgreSQL", "batchInsert 1M rows in process, rows/s vs COPY", 0.3, "higher",
                                  ">= 0.3x"),
    "pg_batch_insert_python": ("PostgreSQL", "batchInsert 1M rows via Python, rows/s vs COPY", 0.3, "higher",
                               ">= 0.3x"),
}

# Absolute limits, in the unit of the figure, for goals charted as figure / limit.
LIMITS_US = {"change_p50": 10, "e2e_python_p50": 150, "cycle_10k": 50000, "set_request_keystroke": 2000,
             "set_request_refinement": 2000}


def entry(key, ratio, measured, when, **extra):
    group, figure, goal, better, _ = GOALS[key]
    e = {"key": key, "group": group, "figure": figure, "ratio": round(ratio, 4), "goal": goal, "better": better,
         "measured": measured, "when": when}
    e.update(extra)
    return e


def met(e):
    """Whether the goal holds; a range is judged by its worse end (`ratio`)."""
    return e["ratio"] <= e["goal"] if e["better"] == "lower" else e["ratio"] >= e["goal"]


def goal_text(e):
    return GOALS[e["key"]][4] if e["key"] in GOALS else "%s %sx" % ("<=" if e["better"] == "lower" else ">=", e["goal"])


def fmt_ratio(x):
    if x >= 100:
        return "{:,.0f}x".format(x)
    return "%.2fx" % x if x < 10 else "%.1fx" % x


def _p50(baseline):
    return report.fmt_value(baseline["p50"], "us")


def _baseline(row, label):
    return next((b for b in row["baselines"] if b["label"] == label), None)


def entries_from_run(run):
    """The chart entries of one bench-results.json (report.py's rows with a goal: the largest
    size). A figure that was not measured gives no entry (the base keeps the last one)."""
    meta = run.get("meta", {})
    when = "%s, make bench %s" % (meta.get("started", "?")[:10], meta.get("commit", "?"))
    out = []
    for row in run.get("rows", []):
        if not row.get("goal"):
            continue  # a smaller size, shown for scaling only
        metric, p50 = row["metric"], row.get("fetchd_p50")
        if p50 is None:
            continue
        shown = report.fmt_value(p50, "us")
        if metric == "change_latency":
            grdb = _baseline(row, "GRDB")
            if grdb and grdb.get("ratio"):
                out.append(entry("change_vs_grdb", grdb["ratio"], "%s; GRDB %s" % (shown, _p50(grdb)), when))
            out.append(entry("change_p50", p50 / LIMITS_US["change_p50"], shown, when))
        elif metric == "change_latency_scaling":
            out.append(entry("change_scaling", p50, "%.2fx" % p50, when))
        elif metric in ("change_e2e", "change_e2e_swift"):
            pipe = "floor: same Python client vs cat" if metric == "change_e2e" else "floor: same Swift client, server/ping"
            floors = [_baseline(row, "floor: SQLite commit"), _baseline(row, pipe)]
            key = "e2e_python_floors" if metric == "change_e2e" else "e2e_swift_floors"
            if all(f and f.get("p50") for f in floors):
                total = sum(f["p50"] for f in floors)
                out.append(entry(key, p50 / total, "%s; floors %s" % (shown, report.fmt_value(total, "us")), when))
            if metric == "change_e2e":
                out.append(entry("e2e_python_p50", p50 / LIMITS_US["e2e_python_p50"], shown, when))
        elif metric == "initial_fetch":
            raw = _baseline(row, "raw SQLite")
            if raw and raw.get("ratio"):
                out.append(entry("fetch_vs_select", raw["ratio"], "%s; SELECT %s" % (shown, _p50(raw)), when))
        elif metric == "memory_per_row":
            out.append(entry("memory_per_row", p50 / 48, report.fmt_value(p50, "bytes"), when))
        elif metric == "pipelined_throughput":
            out.append(entry("pipelined_throughput", p50 / 60000, report.fmt_value(p50, "req/s"), when))
        elif metric == "cycle_latency":
            out.append(entry("cycle_10k", p50 / LIMITS_US["cycle_10k"], shown, when))
        elif metric in ("set_request", "grouped_sum"):
            base = next((b for b in row["baselines"] if b.get("ratio")), None)
            if base:
                out.append(entry(metric, base["ratio"], "%s; %s %s" % (shown, base["label"], _p50(base)), when))
        elif metric in ("set_request_keystroke", "set_request_refinement"):
            out.append(entry(metric, p50 / LIMITS_US[metric], shown, when))
    return out


def entries_from_lines(lines, when):
    """The chart entries of bulk_bench.py's result lines (times in seconds). Lines that name
    their controller `variant` give the per-variant goals (variant_entries); older lines,
    one controller each, give the first four."""
    out = []
    for line in lines:
        if line.get("suite") != "bulk" or not line.get("fetchd") or line.get("variant"):
            continue
        metric, mine, base = line["metric"], line["fetchd"], line.get("baseline")
        shown = "%.2f s" % mine
        if metric == "batch_insert" and base:
            # The goal is in rows/s: the baseline's time over fetchd's.
            out.append(entry("batch_insert", base / mine, "%s; executemany %.2f s" % (shown, base), when))
        elif metric in ("update_objects", "batch_update", "batch_delete") and base:
            out.append(entry(metric, mine / base, "%s; SQLite %.2f s" % (shown, base), when))
        elif metric == "many_controllers" and line.get("mode") in ("difference", "rows"):
            key = "many_controllers" if line["mode"] == "difference" else "many_controllers_rows"
            out.append(entry(key, mine / 1.0, shown, when))
    return variant_entries([l for l in lines if l.get("suite") == "bulk" and l.get("variant")], when) + out


# (metric, variant, fraction) -> chart key, for bulk lines that name their variant.
VARIANT_KEYS = {
    ("batch_insert", "difference-ids", None): "batch_insert",
    ("update_objects", "difference-ids", None): "update_objects",
    ("batch_update", "difference-ids", 0.1): "batch_update",
    ("batch_delete", "difference-ids", 0.1): "batch_delete",
    ("batch_insert", "difference-values", None): "batch_insert_values",
    ("update_objects", "difference-values", None): "update_objects_values",
    ("batch_update", "difference-values", 0.5): "batch_update_values_half",
    ("batch_delete", "difference-values", 0.5): "batch_delete_values_half",
}


def fmt_rows(n):
    return "%gM" % round(n / 1e6, 1) if n >= 1000000 else "%dk" % round(n / 1e3) if n >= 1000 else str(n)


def variant_entries(lines, when):
    """One entry per goal of the issue's bulk figures: each (figure, variant, fraction) of
    VARIANT_KEYS; no controller at every fraction as one range (judged by its worst); rows
    mode against difference mode over every figure, as one range."""
    out, none, rows = [], {}, []
    for line in lines:
        metric, variant, fraction = line["metric"], line["variant"], line.get("fraction")
        mine, base = line["fetchd"], line.get("baseline")
        if not base:
            continue
        raw = "%s of %s rows" % (fmt_rows(line["n"]), fmt_rows(line.get("of", line["n"])))
        raw = "%.2f s; SQLite %.2f s (%s)" % (mine, base, raw if metric != "batch_insert" else fmt_rows(line["n"]))
        key = VARIANT_KEYS.get((metric, variant, fraction))
        if key:
            out.append(entry(key, base / mine if metric == "batch_insert" else mine / base, raw, when))
        elif variant == "none" and metric in ("batch_update", "batch_delete"):
            none.setdefault(metric, []).append((mine / base, raw))
        elif variant == "rows-values" and line.get("vs_difference"):
            rows.append((line["vs_difference"], "%s%s" % (metric, " %g" % fraction if fraction else "")))
    for metric, ratios in sorted(none.items()):
        worst = max(ratios)
        extra = {"range": [round(min(r for r, _ in ratios), 4), round(worst[0], 4)]} if len(ratios) > 1 else {}
        out.append(entry(metric + "_none", worst[0], "worst: " + worst[1], when, **extra))
    if rows:
        worst = max(rows)
        extra = {"range": [round(min(r for r, _ in rows), 4), round(worst[0], 4)]} if len(rows) > 1 else {}
        out.append(entry("rows_vs_difference", worst[0], "worst: %s, %d figures" % (worst[1], len(rows)), when,
                         **extra))
    return out


def merge(base, fresh):
    """`base` with each entry of `fresh` in place of the one with its key; ordered by group."""
    by_key = {e["key"]: e for e in base}
    by_key.update({e["key"]: e for e in fresh})
    order = {k: i for i, k in enumerate(GOALS)}
    return sorted(by_key.values(), key=lambda e: (GROUPS.index(e["group"]) if e["group"] in GROUPS else len(GROUPS),
                                                  order.get(e["key"], len(order))))


def read_entries(path):
    """The chart entries in one file, whichever of the three shapes it has."""
    with open(path) as f:
        text = f.read()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict) and "entries" in data:
        return data["entries"]
    if isinstance(data, dict) and "rows" in data:
        return entries_from_run(data)
    lines = [json.loads(t) for t in text.splitlines() if t.strip().startswith("{")]
    when = "%s, make bench" % _modified_date(path)
    return entries_from_lines(lines, when)


def _modified_date(path):
    import datetime
    return datetime.datetime.fromtimestamp(os.path.getmtime(path), datetime.timezone.utc).strftime("%Y-%m-%d")


def markdown_table(entries):
    """The results table at the top of Benchmarks/README.md."""
    out = ["| benchmark | goal | figure (run) | ratio | met? |", "|---|---|---|---|---|"]
    for e in entries:
        out.append("| %s | %s | %s (%s) | %s | %s |" % (
            e["figure"], goal_text(e), e["measured"], e["when"], ratio_text(e), "yes" if met(e) else "**no**"))
    return "\n".join(out)


def axis_plan(entries):
    """The x axes: [(low, high)] and whether they are logarithmic. Ratios near 1 and a speedup
    of thousands cannot share one readable axis, so a jump of more than 20x between
    neighbouring values splits it in two (a broken axis); a span over 20x is logarithmic."""
    values = sorted({v for e in entries for v in [e["ratio"], e["goal"]] + list(e.get("range", [])) if v > 0})
    if not values:
        return [(0, 1)], False
    if values[-1] / values[0] <= 20:
        return [(0, values[-1] * 1.15)], False
    gap, at = max((values[i + 1] / values[i], i) for i in range(len(values) - 1))
    if gap > 20:
        return [(values[0] / 1.6, values[at] * 1.6), (values[at + 1] / 1.6, values[-1] * 1.6)], True
    return [(values[0] / 1.6, values[-1] * 1.6)], True


def ratio_text(e):
    if e.get("range"):
        return "%s-%s" % (fmt_ratio(min(e["range"])).rstrip("x"), fmt_ratio(max(e["range"])))
    return fmt_ratio(e["ratio"])


def draw(entries, out, title):
    import matplotlib
    matplotlib.use("Agg")  # no display on a build machine
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    # One row per entry, a heading row before each group, top to bottom.
    rows = []
    for group in GROUPS + sorted({e["group"] for e in entries} - set(GROUPS)):
        members = [e for e in entries if e["group"] == group]
        if members:
            rows.append(("heading", group))
            rows.extend(("entry", e) for e in members)
    spans, log = axis_plan(entries)
    height = 1.4 + 0.34 * len(rows)
    fig, axes = plt.subplots(1, len(spans), figsize=(13, height), dpi=110, sharey=True, squeeze=False,
                             gridspec_kw={"width_ratios": [4, 1.5][:len(spans)], "wspace": 0.06})
    axes = list(axes[0])
    fig.subplots_adjust(left=0.30, right=0.62, top=1 - 0.8 / height, bottom=0.6 / height)
    # On a log axis a bar cannot start at 0: every bar starts at the left edge, so lengths
    # still compare.
    start = spans[0][0] if log else 0
    ys = list(range(len(rows)))[::-1]
    labels = []
    for y, (kind, item) in zip(ys, rows):
        if kind == "heading":
            labels.append(item)
            continue
        e = item
        labels.append(e["figure"])
        colour = "#3a9a4a" if met(e) else "#d0463b"
        for ax in axes:  # each axis clips what is outside its span
            ax.barh(y, e["ratio"] - start, height=0.62, color=colour, left=start)
            if e.get("range"):
                ax.plot(e["range"], [y, y], color="black", linewidth=1.4)
            ax.plot([e["goal"]], [y], marker="|", markersize=17, markeredgewidth=2.6, color="black")
        axes[-1].text(1.04, y, "%s  (goal %s)  %s" % (ratio_text(e), goal_text(e), e["measured"]),
                      transform=axes[-1].get_yaxis_transform(), va="center", fontsize=8.5)
    axes[0].set_yticks(ys)
    axes[0].set_yticklabels(labels, fontsize=9)
    for tick, (kind, _) in zip(axes[0].get_yticklabels(), rows):
        if kind == "heading":
            tick.set_fontweight("bold")
            tick.set_fontsize(10)
    for i, (ax, span) in enumerate(zip(axes, spans)):
        if log:
            ax.set_xscale("log")
        ax.set_xlim(*span)
        # Ticks at 1-2-5 steps, written as ratios: matplotlib's own log labels (2x10^-1) collide.
        # The narrow second axis of a broken one gets powers of ten only.
        steps = [m * 10 ** k for k in range(-3, 7) for m in ((1, 2, 5) if i == 0 else (1,))]
        ax.xaxis.set_major_locator(FixedLocator([t for t in steps if span[0] <= t <= span[1]]))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: "{:,g}x".format(x)))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.tick_params(axis="x", labelsize=8.5)
        ax.set_ylim(-0.7, len(rows) - 0.3)
        ax.grid(axis="x", which="major", color="#cccccc")
        ax.set_axisbelow(True)
    if len(axes) == 2:  # the break: no spines where the axes meet, a pair of slashes instead
        axes[0].spines["right"].set_visible(False)
        axes[1].spines["left"].set_visible(False)
        axes[1].tick_params(axis="y", left=False)
        for ax, x in ((axes[0], 1), (axes[1], 0)):
            for y in (0, 1):
                ax.plot([x], [y], transform=ax.transAxes, marker=[(-1, -1.5), (1, 1.5)], markersize=10,
                        color="black", clip_on=False, linestyle="")
    fig.text((0.30 + 0.62) / 2, 0.15 / height, "ratio in the goal's terms: times the baseline, times faster, "
             "or the figure over its limit%s" % (" (log scale)" if log else ""), ha="center", fontsize=9)
    axes[0].legend(handles=[Patch(color="#3a9a4a", label="goal met"), Patch(color="#d0463b", label="goal not met"),
                            Line2D([], [], color="black", marker="|", linestyle="", markersize=12,
                                   markeredgewidth=2.4, label="goal"),
                            Line2D([], [], color="black", linewidth=1.4, label="range over runs")],
                   loc="lower left", bbox_to_anchor=(0, 1.0), ncol=4, fontsize=8.5, frameon=False)
    fig.suptitle(title, fontsize=11, x=0.02, ha="left")
    fig.savefig(out)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("inputs", nargs="*", help="entries, a bench-results.json or result lines "
                                                  "(default: %s)" % os.path.relpath(DEFAULT_ENTRIES))
    parser.add_argument("--base", help="entries the inputs update (by key)")
    parser.add_argument("--write-base", action="store_true", help="write the merged entries back to --base")
    parser.add_argument("-o", "--output", default=DEFAULT_PNG, help="the PNG (default: %(default)s)")
    parser.add_argument("--table", action="store_true", help="print the Markdown results table, draw nothing")
    args = parser.parse_args(argv)
    inputs = args.inputs or ([] if args.base else [DEFAULT_ENTRIES])
    fresh = [e for path in inputs for e in read_entries(path)]
    entries = merge(read_entries(args.base) if args.base else [], fresh)
    if not entries:
        print("chart: no figures to draw in %s" % ", ".join(inputs), file=sys.stderr)
        return 1
    if args.write_base and args.base:
        with open(args.base, "w") as f:
            json.dump({"entries": entries}, f, indent=1, ensure_ascii=False)
            f.write("\n")
    if args.table:
        print(markdown_table(entries))
        return 0
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("chart: matplotlib is missing (Benchmarks/python/chart.sh installs it into a venv)", file=sys.stderr)
        return 1
    missed = sum(1 for e in entries if not met(e))
    draw(entries, args.output, "fetchd against its goals: %d of %d met (newest figure of each goal; "
                               "dates in Benchmarks/results/latest.json)" % (len(entries) - missed, len(entries)))
    print("chart: %s (%d goals, %d not met)" % (args.output, len(entries), missed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
