import io
import json
import os
import tempfile
import unittest
from contextlib import redirect_stdout

from . import support  # noqa: F401
import benchlib
import requery_difflib


class RequeryDiffTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.db = requery_difflib.build(os.path.join(self.dir.name, "t.sqlite"), 200)

    def tearDown(self):
        self.db.close()
        self.dir.cleanup()

    def test_table_holds_the_workload_in_key_order(self):
        ids = requery_difflib.fetch_ids(self.db)
        by_key = [r[0] for r in sorted(benchlib.rows(200), key=lambda r: (r[1], r[0]))]
        self.assertEqual(ids, by_key)

    def test_a_moved_row_shows_up_in_the_diff(self):
        old = requery_difflib.fetch_ids(self.db)
        row_id = old[-1]
        new, edits = requery_difflib.requery_diff(self.db, old, (row_id, 0))
        self.assertEqual(new[0], row_id)
        self.assertEqual(sorted(new), sorted(old))
        self.assertTrue(edits)

    def test_an_unchanged_order_gives_an_empty_diff(self):
        old = requery_difflib.fetch_ids(self.db)
        current_ts = self.db.execute("SELECT ts FROM msg WHERE id = ?", (old[5],)).fetchone()[0]
        new, edits = requery_difflib.requery_diff(self.db, old, (old[5], current_ts))
        self.assertEqual(new, old)
        self.assertEqual(edits, [])


class CommandLineTests(unittest.TestCase):
    def test_prints_fetch_and_change_lines_for_each_size(self):
        with tempfile.TemporaryDirectory() as scratch:
            out = io.StringIO()
            with redirect_stdout(out):
                requery_difflib.main(["--sizes", "100,300", "--iterations", "4", "--dir", scratch])
            self.assertEqual(os.listdir(scratch), [])  # scratch databases removed
        lines = [json.loads(t) for t in out.getvalue().splitlines()]
        self.assertEqual([(l["metric"], l["n"]) for l in lines],
                         [("initial_fetch", 100), ("change_latency", 100),
                          ("initial_fetch", 300), ("change_latency", 300)])
        change = lines[3]
        self.assertEqual(change["samples"], 4)
        self.assertEqual(change["workload"], "%d:%d" % benchlib.Changes(300).next())
        self.assertLessEqual(change["p50"], change["p99"])


if __name__ == "__main__":
    unittest.main()
