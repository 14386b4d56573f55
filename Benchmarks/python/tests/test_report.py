import unittest

from . import support  # noqa: F401
import report


def line(suite, metric, n, p50, p99=None, **extra):
    d = {"suite": suite, "metric": metric, "n": n, "unit": "us", "samples": 10, "p50": p50,
         "p99": p99 or p50, "mean": p50, "min": p50, "max": p99 or p50}
    d.update(extra)
    return d


def rows_by(rows, metric, n):
    return next(r for r in rows if r["metric"] == metric and r["n"] == n)


class ReportTests(unittest.TestCase):
    def test_ratios_and_goals_at_the_largest_size(self):
        results = report.Results([
            line("fetchd", "change_latency", 10000, 4.0), line("fetchd", "change_latency", 1000000, 5.0),
            line("grdb", "change_latency", 10000, 2000.0), line("grdb", "change_latency", 1000000, 200000.0),
            line("python", "change_latency", 1000000, 1900000.0),
            line("fetchd", "initial_fetch", 1000000, 300000.0), line("sqlite-raw", "initial_fetch", 1000000, 100000.0),
        ])
        rows = report.build_rows(results)
        change = rows_by(rows, "change_latency", 1000000)
        self.assertEqual([b["ratio"] for b in change["baselines"]], [40000.0, 380000.0])
        self.assertTrue(change["passed"])
        self.assertIsNone(rows_by(rows, "change_latency", 10000)["passed"])  # goals apply at the largest n
        scaling = rows_by(rows, "change_latency_scaling", 1000000)
        self.assertAlmostEqual(scaling["fetchd_p50"], 1.25)
        self.assertTrue(scaling["passed"])
        fetch = rows_by(rows, "initial_fetch", 1000000)
        self.assertEqual(fetch["baselines"][0]["ratio"], 3.0)  # fetchd costs 3x the raw SELECT
        self.assertFalse(fetch["passed"])

    def test_a_slow_fetchd_fails_the_speedup_goal(self):
        results = report.Results([line("fetchd", "change_latency", 1000000, 500.0),
                                  line("grdb", "change_latency", 1000000, 200000.0)])
        change = rows_by(report.build_rows(results), "change_latency", 1000000)
        self.assertEqual(change["baselines"][0]["ratio"], 400.0)
        self.assertFalse(change["passed"])

    def test_in_process_figures_win_over_end_to_end_ones(self):
        results = report.Results([line("fetchd-e2e", "memory_per_row", 1000, 80.0, unit="bytes"),
                                  line("fetchd", "memory_per_row", 1000, 30.0, unit="bytes")])
        self.assertEqual(results.fetchd("memory_per_row", 1000)["p50"], 30.0)

    def test_unavailable_fetchd_is_shown_with_its_reason(self):
        reason = "store/open answers -32601 (method not found)"
        results = report.Results([
            {"suite": "fetchd-e2e", "metric": "change_e2e", "n": 1000, "unavailable": reason},
            line("grdb", "change_latency", 1000, 900.0)])
        rows = report.build_rows(results)
        e2e = rows_by(rows, "change_e2e", 1000)
        self.assertEqual((e2e["fetchd"], e2e["passed"], e2e["unavailable"]), ("not available", None, reason))
        self.assertIn("fetchd: not available: " + reason, report.render(rows))
        self.assertIn("vs GRDB: 900.0 us", report.render(rows))

    def test_different_workloads_are_detected(self):
        lines = [line("grdb", "change_latency", 10, 1.0, workload="3:5"),
                 line("python", "change_latency", 10, 1.0, workload="3:5"),
                 line("fetchd-e2e", "change_e2e", 10, 1.0, workload="4:5")]
        self.assertEqual(list(report.workload_mismatches(lines)), [10])
        self.assertEqual(report.workload_mismatches(lines[:2]), {})


if __name__ == "__main__":
    unittest.main()


class UnavailableLinesTests(unittest.TestCase):
    def test_lists_every_metric_and_the_cycle_only_at_large_sizes(self):
        import io
        import json
        import unavailable
        out = io.StringIO()
        unavailable.main(["--suite", "fetchd", "--metrics", "change_latency,cycle_latency",
                          "--sizes", "10,1000", "--cycle-min-rows", "1000", "--reason", "why"], out=out)
        lines = [json.loads(t) for t in out.getvalue().splitlines()]
        self.assertEqual([(l["metric"], l["n"]) for l in lines],
                         [("change_latency", 10), ("change_latency", 1000), ("cycle_latency", 1000)])
        self.assertTrue(all(l["unavailable"] == "why" and l["suite"] == "fetchd" for l in lines))


class FloorTests(unittest.TestCase):
    def test_end_to_end_rows_show_the_commit_and_pipe_floors_without_ratios(self):
        results = report.Results([line("fetchd-e2e", "change_e2e", 1000, 100.0),
                                  line("sqlite-raw", "commit_latency", 1000, 20.0),
                                  line("pipe-raw", "roundtrip", 0, 5.0)])
        rows = report.build_rows(results)
        self.assertEqual({r["n"] for r in rows}, {1000})
        row = rows_by(rows, "change_e2e", 1000)
        floors = {b["label"]: b for b in row["baselines"] if b["suite"] in ("sqlite-raw", "pipe-raw")}
        self.assertEqual(floors["floor: SQLite commit"]["p50"], 20.0)
        self.assertEqual(floors["floor: pipe round trip (Swift)"]["p50"], 5.0)
        self.assertTrue(all(b["ratio"] is None for b in floors.values()))
        self.assertIsNone(row["passed"])  # the Python client's own floor was not measured

    def test_python_end_to_end_is_held_to_its_floors_as_well_as_150_us(self):
        def verdict(e2e, python_floor):
            results = report.Results([line("fetchd-e2e", "change_e2e", 1000, e2e),
                                      line("sqlite-raw", "commit_latency", 1000, 20.0),
                                      line("pipe-python", "roundtrip", 0, python_floor)])
            row = rows_by(report.build_rows(results), "change_e2e", 1000)
            return row["goal"], row["passed"]
        goal, passed = verdict(100.0, 60.0)  # 100 <= 1.3 x (20 + 60) = 104
        self.assertEqual(goal, "p50 <= 150.0 us, <= 1.3x (SQLite commit + same Python client vs cat)")
        self.assertTrue(passed)
        self.assertFalse(verdict(110.0, 60.0)[1])  # under 150 us, over the floors
        self.assertFalse(verdict(160.0, 200.0)[1])  # within the floors, over 150 us

    def test_the_swift_client_row_is_held_to_its_own_floors(self):
        results = report.Results([line("fetchd-e2e", "change_e2e", 1000, 100.0),
                                  line("fetchd-swift", "change_e2e", 1000, 50.0),
                                  line("fetchd-swift", "request_roundtrip", 0, 30.0),
                                  line("sqlite-raw", "commit_latency", 1000, 20.0),
                                  line("pipe-raw", "roundtrip", 0, 20.0)])
        row = rows_by(report.build_rows(results), "change_e2e_swift", 1000)
        self.assertEqual((row["fetchd_suite"], row["fetchd_p50"]), ("fetchd-swift", 50.0))
        self.assertEqual([b["p50"] for b in row["baselines"]], [20.0, 20.0, 30.0])
        # Its floors are the commit and the same client's server/ping, not the raw pipe.
        self.assertTrue(row["passed"])  # 50 <= 1.3 x (20 + 30) = 65
        results.index[("fetchd-swift", "change_e2e", 1000)]["p50"] = 66.0
        self.assertFalse(rows_by(report.build_rows(results), "change_e2e_swift", 1000)["passed"])
        self.assertIn("one change e2e (pipe+save), Swift client", report.render(report.build_rows(results)))

    def test_no_swift_client_row_without_its_figure(self):
        results = report.Results([line("fetchd-e2e", "change_e2e", 1000, 100.0)])
        self.assertFalse([r for r in report.build_rows(results) if r["metric"] == "change_e2e_swift"])


class TransportRowTests(unittest.TestCase):
    def test_round_trip_and_pipelined_throughput_rows(self):
        results = report.Results([
            line("fetchd-e2e", "request_roundtrip", 0, 50.0), line("pipe-python", "roundtrip", 0, 40.0),
            dict(line("fetchd-e2e", "pipelined_throughput", 0, 50000.0), unit="req/s"),
            line("grdb", "change_latency", 1000, 900.0)])
        rows = report.build_rows(results)
        ping = rows_by(rows, "request_roundtrip", 0)
        self.assertEqual(ping["baselines"][0]["p50"], 40.0)
        throughput = rows_by(rows, "pipelined_throughput", 0)
        self.assertEqual((throughput["goal"], throughput["passed"]), ("p50 >= 60000 req/s", False))
        self.assertIn("50000 req/s", report.render(rows))


class BulkTableTests(unittest.TestCase):
    def bulk(self, metric, variant, fetchd, baseline, fraction=None, **extra):
        d = {"suite": "bulk", "metric": metric, "n": 100000, "of": 200000, "unit": "s", "fetchd": fetchd,
             "baseline": baseline, "ratio": round(fetchd / baseline, 3), "variant": variant, "goal": "<= 2x"}
        d.update({"fraction": fraction} if fraction else {})
        d.update(extra)
        return d

    def test_one_row_per_figure_variant_and_fraction(self):
        table = report.bulk_table([
            self.bulk("batch_insert", "none", 1.0, 0.5, met=True, n=200000, fetchd_cpu=0.8, client_cpu=0.25),
            self.bulk("batch_update", "difference-values", 0.3, 0.1, 0.5, met=False),
            self.bulk("batch_update", "rows-values", 0.9, 0.1, 0.5, met=True, vs_difference=3.0,
                      goal="<= 3x difference mode with values"),
            {"suite": "bulk", "metric": "many_controllers", "n": 1000, "fetchd": 0.7, "baseline": None},
            {"suite": "bulk", "metric": "batch_update", "n": 10, "fetchd": 1.0, "baseline": 1.0},  # no variant
        ]).splitlines()
        self.assertEqual(len(table), 2 + 3)
        self.assertEqual(table[2], "| batchInsert | none | 200k | 1.000 s | 0.80 s / 0.25 s | 0.500 s "
                                   "| 2.00x (0.50x rows/s) | <= 2x | yes |")
        self.assertEqual(table[3], "| batchUpdate | difference, keys: [ts] | 100k (half of 200k) | 0.300 s | - "
                                   "| 0.100 s | 3.00x | <= 2x | **no** |")
        self.assertIn("| 9.00x; 3.00x difference | <= 3x difference mode with values | yes |", table[4])

    def test_several_runs_make_one_row_of_ranges(self):
        table = report.bulk_table([
            self.bulk("batch_delete", "none", 0.12, 0.1, 0.1, met=True, fetchd_cpu=0.1, client_cpu=0.0),
            self.bulk("batch_delete", "none", 0.2, 0.1, 0.1, met=False, fetchd_cpu=0.15, client_cpu=0.0),
        ]).splitlines()
        self.assertEqual(table[2:], ["| batchDelete | none | 100k (a tenth of 200k) | 0.120-0.200 s "
                                     "| 0.10-0.15 s / 0.00 s | 0.100 s | 1.20-2.00x | <= 2x | **no** |"])

    def test_the_cli_prints_only_the_bulk_table(self):
        import contextlib
        import io
        import json
        import os
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bulk.results")
            with open(path, "w") as f:
                f.write(json.dumps(self.bulk("batch_delete", "none", 0.2, 0.1, 0.1, met=False)) + "\n")
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(report.main(["--bulk", path]), 0)
        self.assertEqual(out.getvalue().splitlines()[2],
                         "| batchDelete | none | 100k (a tenth of 200k) | 0.200 s | - | 0.100 s | 2.00x | <= 2x | **no** |")


class SourceNoteTests(unittest.TestCase):
    def test_in_process_figures_name_their_source_and_clock(self):
        results = report.Results([dict(line("fetchd", "change_latency", 1000, 2.0), source="X/Bench",
                                       clock="thread CPU time")])
        text = report.render(report.build_rows(results))
        self.assertIn("fetchd in-process figures from X/Bench (thread CPU time, its own workload)", text)
