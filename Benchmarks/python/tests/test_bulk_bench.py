"""bulk_bench.py: its goals and bands on their own, and against the real (debug) fetchd at a
tiny size: every figure comes out for every controller variant and fraction, and each
controller's mirror was checked against the file after the inserts, the updates and the
deletes (the tool exits with an error when they differ)."""
import json
import os
import subprocess
import sys
import unittest

from . import support  # noqa: F401
import bulk_bench

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
FETCHD = os.environ.get("FETCHD", os.path.join(ROOT, ".build", "debug", "fetchd"))
TOOL = os.path.join(ROOT, "Benchmarks", "python", "bulk_bench.py")


class GoalTests(unittest.TestCase):
    def test_the_issues_goals_per_variant_and_fraction(self):
        def goal(metric, variant, fraction=None):
            return bulk_bench.goal_for(metric, variant, fraction)[1:]
        self.assertEqual(goal("batch_insert", "difference-values"), ("raw", 2.0))  # >= 0.5x rows/s
        self.assertEqual(goal("update_objects", "none"), ("raw", 2.0))
        self.assertEqual(goal("batch_update", "none", 0.5), ("raw", 1.5))  # no controller: any fraction
        self.assertEqual(goal("batch_delete", "difference-ids", 0.1), ("raw", 1.5))
        self.assertEqual(goal("batch_delete", "difference-ids", 0.5), ("raw", 2.0))
        self.assertEqual(goal("batch_update", "difference-values", 0.5), ("raw", 2.0))
        self.assertEqual(goal("batch_update", "rows-values", 0.1), ("difference", 3.0))

    def test_rows_mode_is_judged_against_difference_mode(self):
        done = {}
        self.assertEqual(bulk_bench.judged("batch_update", "difference-values", 0.5, 0.3, 0.1, done),
                         {"goal": "<= 2x", "goal_limit": 2.0, "met": False})
        rows = bulk_bench.judged("batch_update", "rows-values", 0.5, 0.6, 0.1, done)
        self.assertEqual((rows["met"], rows["vs_difference"]), (True, 2.0))
        alone = bulk_bench.judged("batch_update", "rows-values", 0.1, 0.6, 0.1, done)  # no difference figure
        self.assertEqual((alone["met"], alone["vs_difference"]), (None, None))

    def test_bands_follow_one_another(self):
        space = bulk_bench.KEY_SPACE
        self.assertEqual(bulk_bench.bands([0.1, 0.5]),
                         [(0.1, 0, int(space * 0.1)), (0.5, int(space * 0.1), int(space * 0.6))])
        with self.assertRaises(Exception):
            bulk_bench.fraction_list("0.6,0.5")


@unittest.skipUnless(os.access(FETCHD, os.X_OK), "no fetchd binary at %s (swift build first)" % FETCHD)
class BulkBenchTests(unittest.TestCase):
    def test_every_figure_at_a_tiny_size(self):
        out = subprocess.run([sys.executable, TOOL, "--fetchd", FETCHD, "--rows", "3000", "--controllers", "12"],
                             capture_output=True, text=True, timeout=600)
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = [json.loads(line) for line in out.stdout.splitlines()]
        figures = [("batch_insert", None), ("update_objects", None), ("batch_update", 0.1), ("batch_update", 0.5),
                   ("batch_delete", 0.1), ("batch_delete", 0.5)]
        self.assertEqual([(l["metric"], l.get("variant"), l.get("fraction")) for l in lines[:-2]],
                         [(m, v, f) for v in ("none", "difference-ids", "difference-values", "rows-values")
                          for (m, f) in figures])
        self.assertEqual([l.get("mode") for l in lines[:-2:6]], [None, "difference", "difference", "rows"])
        for variant in range(4):
            insert, objects, update_tenth, update_half, delete_tenth, delete_half = lines[6 * variant:6 * variant + 6]
            self.assertEqual(insert["n"], 3000)
            self.assertEqual((objects["n"], objects["of"]), (3000, 3000))  # --updates above the rows: every row
            self.assertEqual((update_tenth["n"], delete_tenth["n"]), (update_tenth["n"], update_tenth["n"]))
            self.assertEqual(update_half["n"], delete_half["n"])
            self.assertLess(update_tenth["n"], update_half["n"])
            self.assertEqual(delete_half["of"], 3000 - delete_tenth["n"])
            for line in (insert, objects, update_tenth, update_half, delete_tenth, delete_half):
                self.assertGreater(line["baseline"], 0)
                self.assertIn(line["met"], (True, False))
                self.assertGreaterEqual(line["client_cpu"], 0)
                if sys.platform.startswith("linux"):  # fetchd's CPU comes from /proc
                    self.assertGreaterEqual(line["fetchd_cpu"], 0)
        # Every variant touched the same rows (same workload, same bands).
        self.assertEqual(len({l["n"] for l in lines[:-2] if l["metric"] == "batch_update" and l["fraction"] == 0.5}),
                         1)
        self.assertTrue(all(l["vs_difference"] > 0 for l in lines[18:24]))
        rows, difference = lines[-2:]
        self.assertEqual((rows["metric"], rows["mode"], difference["mode"]), ("many_controllers", "rows", "difference"))
        self.assertEqual(rows["notifications"], 12 * 102)  # per controller: will, 100 objects, did
        self.assertEqual(difference["notifications"], 12)


if __name__ == "__main__":
    unittest.main()
