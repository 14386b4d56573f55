import io
import json
import os
import stat
import sys
import tempfile
import unittest

from . import support
import benchlib
import fetchd_driver


def run_driver(server_args, *extra, pings=0):
    with tempfile.TemporaryDirectory() as scratch:
        out = io.StringIO()
        argv = ["--fetchd", server_args[0]] + [a for arg in server_args[1:] for a in ("--fetchd-arg", arg)]
        argv += ["--dir", scratch, "--timeout", "20", "--pings", str(pings)] + list(extra)
        status = fetchd_driver.main(argv, out=out)
        leftovers = [f for f in os.listdir(scratch) if f.endswith(".sqlite")]
    return status, [json.loads(t) for t in out.getvalue().splitlines()], leftovers


class FetchdDriverTests(unittest.TestCase):
    def test_measures_every_figure_against_a_working_server(self):
        status, lines, leftovers = run_driver(
            [sys.executable, support.FAKE, "working"], "--sizes", "150,400", "--iterations", "25",
            "--insert-batch", "64", "--cycle-min-rows", "400", "--cycle-changes", "50")
        self.assertEqual(status, 0)
        self.assertEqual(leftovers, [])
        got = {(l["metric"], l["n"]): l for l in lines}
        self.assertEqual(set(got), {(m, n) for m in ("bulk_load", "initial_fetch", "memory_per_row", "change_e2e")
                                    for n in (150, 400)} | {("cycle_latency", 400)})
        self.assertTrue(all("unavailable" not in l for l in lines))
        change = got[("change_e2e", 400)]
        self.assertEqual((change["samples"], change["notified"]), (25, 25))
        self.assertEqual(change["workload"], "%d:%d" % benchlib.Changes(400).next())
        self.assertEqual(got[("cycle_latency", 400)]["notified_objects"], 50)
        self.assertEqual(got[("initial_fetch", 150)]["samples"], 3)
        self.assertEqual(got[("memory_per_row", 150)]["unit"], "bytes")

    def test_transport_figures_and_the_client_floor(self):
        status, lines, _ = run_driver([sys.executable, support.FAKE, "working"], "--sizes", "50",
                                      "--iterations", "3", pings=1000)
        self.assertEqual(status, 0)
        got = {(l["suite"], l["metric"]): l for l in lines if l["n"] == 0}
        self.assertEqual(set(got), {("pipe-python", "roundtrip"), ("fetchd-e2e", "request_roundtrip"),
                                    ("fetchd-e2e", "pipelined_throughput")})
        self.assertEqual(got[("pipe-python", "roundtrip")]["samples"], 1000)
        self.assertEqual(got[("fetchd-e2e", "request_roundtrip")]["samples"], 1000)
        throughput = got[("fetchd-e2e", "pipelined_throughput")]
        self.assertEqual((throughput["unit"], throughput["samples"]), ("req/s", 2))
        self.assertGreater(throughput["p50"], 0)

    def test_method_not_found_reports_not_available_cleanly(self):
        status, lines, _ = run_driver([sys.executable, support.FAKE, "not-found"],
                                      "--sizes", "100,200", "--cycle-min-rows", "200", pings=10)
        self.assertEqual(status, 0)
        transport = [l for l in lines if l["suite"] == "fetchd-e2e" and l["n"] == 0]
        self.assertEqual([l["unavailable"] for l in transport], ["server/ping answers -32601"] * 2)
        sized = [l for l in lines if l["n"] > 0]
        self.assertEqual(len(sized), 4 + 5)  # no cycle at 100 rows
        for line in sized:
            self.assertEqual(line["unavailable"], "store/open answers -32601 (method not found)")

    def test_a_server_that_is_not_json_rpc_is_not_available(self):
        with tempfile.TemporaryDirectory() as bindir:
            fake = os.path.join(bindir, "fetchd")
            with open(fake, "w") as f:
                f.write("#!/bin/sh\necho fetchd\n")
            os.chmod(fake, stat.S_IRWXU)
            status, lines, _ = run_driver([fake], "--sizes", "100")
        self.assertEqual(status, 0)
        self.assertEqual(len(lines), 4)
        self.assertTrue(all("non-JSON output" in l["unavailable"] for l in lines))

    def test_other_errors_are_failures(self):
        status, lines, _ = run_driver([sys.executable, support.FAKE, "fail-create"], "--sizes", "100")
        self.assertEqual(status, 1)
        by_metric = {l["metric"]: l for l in lines}
        self.assertNotIn("unavailable", by_metric["bulk_load"])
        self.assertTrue(by_metric["change_e2e"]["unavailable"].startswith("failed: controller/create: -32603"))


if __name__ == "__main__":
    unittest.main()
