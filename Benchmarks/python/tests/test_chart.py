import contextlib
import io
import json
import os
import tempfile
import unittest

from . import support  # noqa: F401
import chart
import report


def line(suite, metric, n, p50, **extra):
    d = {"suite": suite, "metric": metric, "n": n, "unit": "us", "samples": 10, "p50": p50, "p99": p50,
         "mean": p50, "min": p50, "max": p50}
    d.update(extra)
    return d


def run_of(lines):
    """A bench-results.json as scripts/bench.sh writes it (report.py's rows and meta)."""
    results = report.Results(lines)
    return {"meta": {"started": "2026-11-28T10:00:00Z", "commit": "abc1234"},
            "rows": report.build_rows(results), "results": lines}


def by_key(entries):
    return {e["key"]: e for e in entries}


class FromARunTests(unittest.TestCase):
    def setUp(self):
        self.entries = by_key(chart.entries_from_run(run_of([
            line("fetchd", "change_latency", 10000, 4.0), line("fetchd", "change_latency", 1000000, 5.0),
            line("grdb", "change_latency", 10000, 2000.0), line("grdb", "change_latency", 1000000, 200000.0),
            line("fetchd", "initial_fetch", 1000000, 300000.0),
            line("sqlite-raw", "initial_fetch", 1000000, 100000.0),
            line("fetchd-e2e", "change_e2e", 1000000, 200.0),
            line("sqlite-raw", "commit_latency", 1000000, 20.0), line("pipe-python", "roundtrip", 0, 80.0),
            line("fetchd", "memory_per_row", 1000000, 24.0, unit="bytes"),
        ])))

    def test_ratios_are_in_the_goals_terms(self):
        e = self.entries
        self.assertEqual(e["change_vs_grdb"]["ratio"], 40000.0)  # times faster, goal >= 1000
        self.assertEqual(e["change_vs_grdb"]["better"], "higher")
        self.assertAlmostEqual(e["change_p50"]["ratio"], 0.5)  # 5 us over the 10 us limit
        self.assertAlmostEqual(e["change_scaling"]["ratio"], 1.25)
        self.assertEqual(e["fetch_vs_select"]["ratio"], 3.0)
        self.assertFalse(chart.met(e["fetch_vs_select"]))
        self.assertAlmostEqual(e["e2e_python_floors"]["ratio"], 2.0)  # 200 us over 20 + 80 us
        self.assertAlmostEqual(e["e2e_python_p50"]["ratio"], 200 / 150, places=3)
        self.assertAlmostEqual(e["memory_per_row"]["ratio"], 0.5)
        self.assertEqual(e["change_p50"]["when"], "2026-11-28, make bench abc1234")

    def test_only_the_largest_size_and_measured_figures(self):
        self.assertEqual(len([k for k in self.entries if k.startswith("change_p50")]), 1)
        self.assertNotIn("e2e_swift_floors", self.entries)  # the Swift client did not run
        self.assertNotIn("cycle_10k", self.entries)


class SwiftClientTests(unittest.TestCase):
    def test_the_swift_row_is_over_its_own_server_ping_not_the_raw_pipe(self):
        entries = by_key(chart.entries_from_run(run_of([
            line("fetchd-e2e", "change_e2e", 1000, 150.0), line("fetchd-swift", "change_e2e", 1000, 100.0),
            line("sqlite-raw", "commit_latency", 1000, 20.0), line("pipe-python", "roundtrip", 0, 80.0),
            line("fetchd-swift", "request_roundtrip", 0, 30.0), line("pipe-raw", "roundtrip", 0, 5.0)])))
        self.assertAlmostEqual(entries["e2e_swift_floors"]["ratio"], 2.0)  # 100 us over 20 + 30 us
        self.assertIn("floors 50", entries["e2e_swift_floors"]["measured"])


class GoalsAgreeTests(unittest.TestCase):
    def test_the_goals_match_report_py(self):
        self.assertEqual(chart.GOALS["e2e_python_floors"][2], report.E2E_FLOOR_FACTOR)
        rows = {r["metric"]: r for r in run_of([
            line("fetchd", "initial_fetch", 1000, 3.0), line("sqlite-raw", "initial_fetch", 1000, 1.0),
            line("fetchd", "grouped_sum", 1000, 3.0), line("sqlite-raw", "grouped_sum", 1000, 1.0)])["rows"]}
        self.assertIn("<= %gx" % chart.GOALS["fetch_vs_select"][2], rows["initial_fetch"]["goal"])
        self.assertIn("<= %gx" % chart.GOALS["grouped_sum"][2], rows["grouped_sum"]["goal"])

    def test_the_checked_in_figures_use_the_same_goals(self):
        with open(chart.DEFAULT_ENTRIES) as f:
            entries = json.load(f)["entries"]
        self.assertTrue(entries)
        for e in entries:
            group, _, goal, better, _ = chart.GOALS[e["key"]]
            self.assertEqual((e["group"], e["goal"], e["better"]), (group, goal, better), e["key"])
            if "range" in e:  # a range is judged by its worse end
                worse = max(e["range"]) if better == "lower" else min(e["range"])
                self.assertEqual(e["ratio"], worse, e["key"])


class LinesAndMergeTests(unittest.TestCase):
    def test_bulk_lines(self):
        got = by_key(chart.entries_from_lines([
            {"suite": "bulk", "metric": "batch_insert", "n": 1000000, "fetchd": 4.0, "baseline": 3.0},
            {"suite": "bulk", "metric": "batch_delete", "n": 100000, "fetchd": 0.6, "baseline": 0.4},
            {"suite": "bulk", "metric": "many_controllers", "n": 1000, "fetchd": 1.2, "baseline": None,
             "mode": "rows"},
            {"suite": "bulk", "metric": "many_controllers", "n": 1000, "fetchd": 0.7, "baseline": None,
             "mode": "difference"},
            {"suite": "grdb", "metric": "change_latency", "n": 10, "p50": 1.0},
        ], "today"))
        self.assertEqual(sorted(got), ["batch_delete", "batch_insert", "many_controllers", "many_controllers_rows"])
        self.assertAlmostEqual(got["batch_insert"]["ratio"], 0.75)  # rows/s: 3 s over 4 s
        self.assertTrue(chart.met(got["batch_insert"]))
        self.assertAlmostEqual(got["batch_delete"]["ratio"], 1.5)
        self.assertTrue(chart.met(got["batch_delete"]))  # on the goal is met
        self.assertEqual(got["many_controllers"]["ratio"], 0.7)
        self.assertEqual(got["many_controllers_rows"]["ratio"], 1.2)
        self.assertFalse(chart.met(got["many_controllers_rows"]))

    def test_lines_that_name_their_variant(self):
        def bulk(metric, variant, fetchd, baseline, fraction=None, **extra):
            d = {"suite": "bulk", "metric": metric, "n": 100000, "of": 200000, "fetchd": fetchd,
                 "baseline": baseline, "variant": variant, "fraction": fraction}
            d.update(extra)
            return d
        got = by_key(chart.entries_from_lines([
            bulk("batch_insert", "difference-ids", 2.0, 1.0, n=200000),
            bulk("batch_update", "difference-ids", 0.12, 0.1, 0.1),
            bulk("batch_update", "difference-ids", 0.9, 0.1, 0.5),  # no goal of its own in the chart
            bulk("batch_insert", "difference-values", 4.0, 1.0, n=200000),
            bulk("batch_delete", "difference-values", 0.3, 0.1, 0.5),
            bulk("batch_update", "none", 0.12, 0.1, 0.1),
            bulk("batch_update", "none", 0.2, 0.1, 0.5),
            bulk("batch_update", "rows-values", 0.9, 0.1, 0.5, vs_difference=2.5),
            bulk("batch_delete", "rows-values", 1.2, 0.1, 0.5, vs_difference=4.0),
            bulk("batch_insert", "rows-values", 4.0, 1.0, vs_difference=None),  # difference mode did not run
        ], "today"))
        self.assertEqual(sorted(got), ["batch_delete_values_half", "batch_insert", "batch_insert_values",
                                       "batch_update", "batch_update_none", "rows_vs_difference"])
        self.assertAlmostEqual(got["batch_insert"]["ratio"], 0.5)  # rows/s
        self.assertTrue(chart.met(got["batch_insert"]))
        self.assertFalse(chart.met(got["batch_insert_values"]))
        self.assertAlmostEqual(got["batch_update"]["ratio"], 1.2)
        self.assertEqual(got["batch_update"]["measured"], "0.12 s; SQLite 0.10 s (100k of 200k rows)")
        self.assertAlmostEqual(got["batch_delete_values_half"]["ratio"], 3.0)
        none = got["batch_update_none"]  # every fraction, judged by the worst
        self.assertEqual((none["ratio"], none["range"]), (2.0, [1.2, 2.0]))
        self.assertFalse(chart.met(none))
        rows = got["rows_vs_difference"]
        self.assertEqual((rows["ratio"], rows["range"], rows["measured"]),
                         (4.0, [2.5, 4.0], "worst: batch_delete 0.5, 2 figures"))
        self.assertFalse(chart.met(rows))

    def test_fresh_figures_replace_only_their_own(self):
        old = [chart.entry("pg_fetch_vs_select", 0.4, "old", "then"), chart.entry("change_p50", 0.9, "old", "then")]
        merged = chart.merge(old, [chart.entry("change_p50", 0.5, "new", "now")])
        self.assertEqual([(e["key"], e["when"]) for e in merged],
                         [("change_p50", "now"), ("pg_fetch_vs_select", "then")])  # group order

    def test_each_input_shape_is_read(self):
        with tempfile.TemporaryDirectory() as d:
            paths = {name: os.path.join(d, name) for name in ("entries.json", "run.json", "bulk.results")}
            with open(paths["entries.json"], "w") as f:
                json.dump({"entries": [chart.entry("change_p50", 0.5, "5 us", "x")]}, f)
            with open(paths["run.json"], "w") as f:
                json.dump(run_of([line("fetchd", "memory_per_row", 10, 12.0, unit="bytes")]), f)
            with open(paths["bulk.results"], "w") as f:
                f.write('{"suite": "bulk", "metric": "batch_update", "n": 10, "fetchd": 1.0, "baseline": 1.0}\n')
            self.assertEqual([e["key"] for e in chart.read_entries(paths["entries.json"])], ["change_p50"])
            self.assertEqual([e["key"] for e in chart.read_entries(paths["run.json"])], ["memory_per_row"])
            self.assertEqual([e["key"] for e in chart.read_entries(paths["bulk.results"])], ["batch_update"])


class LayoutTests(unittest.TestCase):
    def test_a_speedup_of_thousands_breaks_the_axis(self):
        spans, log = chart.axis_plan([chart.entry("change_vs_grdb", 27000, "", ""),
                                      chart.entry("change_p50", 0.5, "", ""), chart.entry("batch_insert", 0.8, "", "")])
        self.assertTrue(log)
        self.assertEqual(len(spans), 2)
        self.assertLess(spans[0][1], 1000 / 1.6 + 1)  # the goal of 1000x is on the second axis
        self.assertLessEqual(spans[1][0], 1000)

    def test_ratios_near_one_get_one_linear_axis(self):
        spans, log = chart.axis_plan([chart.entry("batch_delete", 1.4, "", ""), chart.entry("change_p50", 0.5, "", "")])
        self.assertEqual((len(spans), log), (1, False))

    def test_the_table_has_a_row_per_goal(self):
        table = chart.markdown_table([chart.entry("batch_delete", 1.6, "0.6 s", "today", range=[1.4, 1.6])])
        self.assertEqual(table.splitlines()[2],
                         "| batchDelete a tenth, objects: false, vs DELETE | <= 1.5x | 0.6 s (today) | 1.40-1.60x | **no** |")

    def test_draws_a_png(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            self.skipTest("matplotlib is not installed (Benchmarks/python/chart.sh installs it in a venv)")
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "chart.png")
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(chart.main([chart.DEFAULT_ENTRIES, "-o", out]), 0)
            with open(out, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


if __name__ == "__main__":
    unittest.main()
