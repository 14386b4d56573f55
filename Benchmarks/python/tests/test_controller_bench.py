import io
import json
import os
import tempfile
import unittest

from . import support  # noqa: F401
import controller_bench

SAMPLE = """\
Test run started.
BENCH n=10000 bulk load (performFetch minus the source's sort) 1.5 ms; tree 19.75 bytes/row
BENCH n=10000 one changed object: p50 1.2 us, p99 3.4 us
BENCH n=1000000 bulk load (performFetch minus the source's sort) 81.25 ms; tree 20.1 bytes/row
BENCH n=1000000 one changed object: p50 2.5 us, p99 7.0 us
BENCH n=1000000 10k-change cycle 14.5 ms (20003 events)
Test run with 3 tests passed.
"""


class ControllerBenchParseTests(unittest.TestCase):
    def test_turns_bench_lines_into_result_lines(self):
        lines = controller_bench.parse(SAMPLE)
        got = {(l["metric"], l["n"]): l for l in lines}
        self.assertEqual(set(got), {("tree_load", 10000), ("memory_per_row", 10000), ("change_latency", 10000),
                                    ("tree_load", 1000000), ("memory_per_row", 1000000),
                                    ("change_latency", 1000000), ("cycle_latency", 1000000)})
        self.assertEqual((got[("change_latency", 1000000)]["p50"], got[("change_latency", 1000000)]["p99"]), (2.5, 7.0))
        self.assertEqual(got[("memory_per_row", 10000)]["p50"], 19.75)
        self.assertEqual(got[("memory_per_row", 10000)]["unit"], "bytes")
        self.assertEqual(got[("cycle_latency", 1000000)]["p50"], 14500.0)
        self.assertEqual(got[("cycle_latency", 1000000)]["changes"], 10000)
        self.assertEqual(got[("tree_load", 1000000)]["p50"], 81250.0)
        self.assertTrue(all(l["suite"] == "fetchd" for l in lines))

    def test_reads_the_median_cycle_and_a_negative_load_time(self):
        text = ("BENCH n=1000000 bulk load (performFetch minus the source's sort) -12.5 ms; tree 19.3 bytes/row\n"
                "BENCH n=1000000 10k-change cycle: median 38.25 ms, best 36.1 ms\n")
        got = {(l["metric"], l["n"]): l for l in controller_bench.parse(text)}
        self.assertEqual(got[("cycle_latency", 1000000)]["p50"], 38250.0)
        self.assertEqual(got[("cycle_latency", 1000000)]["changes"], 10000)
        self.assertEqual(got[("memory_per_row", 1000000)]["p50"], 19.3)

    def test_set_request_lines_give_the_change_and_its_refetch_baseline(self):
        lines = controller_bench.parse(
            "BENCH n=1000000 setRequest predicate change 412.5 ms (20000 events) vs performFetch of the new "
            "request 430.25 ms: 0.96x\nBENCH n=10000 setRequest refinement: p50 0.75 ms, p99 1.5 ms\n")
        got = {(l["suite"], l["metric"], l["n"]): (l["p50"], l["p99"]) for l in lines}
        self.assertEqual(got, {("fetchd", "set_request", 1000000): (412500.0, 412500.0),
                               ("fetchd-refetch", "set_request", 1000000): (430250.0, 430250.0),
                               ("fetchd", "set_request_refinement", 10000): (750.0, 1500.0)})

    def test_keystroke_and_grouped_sum_lines(self):
        lines = controller_bench.parse(
            "BENCH n=10000 setRequest keystroke: p50 1.25 ms, p99 2.5 ms\n"
            "BENCH n=1000000 grouped sum 210.5 ms vs raw SQL GROUP BY 200.25 ms: 1.05x\n")
        got = {(l["suite"], l["metric"], l["n"]): (l["p50"], l["p99"]) for l in lines}
        self.assertEqual(got, {("fetchd", "set_request_keystroke", 10000): (1250.0, 2500.0),
                               ("fetchd", "grouped_sum", 1000000): (210500.0, 210500.0),
                               ("sqlite-raw", "grouped_sum", 1000000): (200250.0, 200250.0)})

    def test_keeps_only_the_requested_sizes(self):
        self.assertEqual({l["n"] for l in controller_bench.parse(SAMPLE, [10000])}, {10000})

    def test_output_without_figures_is_reported_as_unavailable(self):
        with tempfile.TemporaryDirectory() as scratch:
            path = os.path.join(scratch, "out.txt")
            with open(path, "w") as f:
                f.write("Test run with 0 tests passed.\n")
            out = io.StringIO()
            status = controller_bench.main(["--parse", path, "--sizes", "1000"], out=out)
        lines = [json.loads(t) for t in out.getvalue().splitlines()]
        self.assertEqual(status, 1)
        self.assertEqual({l["metric"] for l in lines}, {"change_latency", "memory_per_row", "cycle_latency"})
        self.assertTrue(all("no BENCH lines" in l["unavailable"] for l in lines))


if __name__ == "__main__":
    unittest.main()
