"""bulk_bench.py against the real (debug) fetchd at a tiny size: every figure comes out, and
the controller's mirror was checked against the file after the inserts and the deletes
(the tool exits with an error when they differ)."""
import json
import os
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
FETCHD = os.environ.get("FETCHD", os.path.join(ROOT, ".build", "debug", "fetchd"))
TOOL = os.path.join(ROOT, "Benchmarks", "python", "bulk_bench.py")


@unittest.skipUnless(os.access(FETCHD, os.X_OK), "no fetchd binary at %s (swift build first)" % FETCHD)
class BulkBenchTests(unittest.TestCase):
    def test_every_figure_at_a_tiny_size(self):
        out = subprocess.run([sys.executable, TOOL, "--fetchd", FETCHD, "--rows", "3000", "--controllers", "12"],
                             capture_output=True, text=True, timeout=300)
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = [json.loads(line) for line in out.stdout.splitlines()]
        self.assertEqual([(l["metric"], l.get("mode")) for l in lines], [
            ("batch_insert", "difference"), ("update_objects", "difference"), ("batch_update", "difference"),
            ("batch_delete", "difference"),
            ("many_controllers", "rows"), ("many_controllers", "difference")])
        insert, objects, update, delete = lines[:4]
        self.assertEqual((objects["n"], objects["of"]), (3000, 3000))  # --updates above the rows: every row
        self.assertEqual(insert["n"], 3000)
        self.assertGreater(insert["baseline"], 0)
        self.assertEqual(update["n"], delete["n"])
        self.assertGreater(update["n"], 0)
        rows, difference = lines[4:]
        self.assertEqual(rows["notifications"], 12 * 102)  # per controller: will, 100 objects, did
        self.assertEqual(difference["notifications"], 12)


if __name__ == "__main__":
    unittest.main()
