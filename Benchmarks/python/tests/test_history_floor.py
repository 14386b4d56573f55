"""history_floor.py does the work fetchd does: on the same rows, its history side leaves the
same `_fetchd_history` rows (entity, pk, op, keys, version, old values; compared by number,
since the floor leaves their order within the transaction to SQLite) and the same table as
the real (debug) fetchd's batchUpdate, batchDelete and batchUpdateObjects; the raw side
changes the same rows and records nothing."""
import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

from . import support  # noqa: F401
import history_floor
from rpc_client import CLIENT  # noqa: F401  (puts clients/python on the path)
from fetchd import Client

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
FETCHD = os.environ.get("FETCHD", os.path.join(ROOT, ".build", "debug", "fetchd"))
ROWS = 400
MODEL = {"entities": [{"name": "Msg", "attributes": {
    "ts": {"type": "integer", "indexed": True}, "sender": {"type": "string"}, "body": {"type": "string"}}}]}


def history(path):
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT entity, pk, op, keys, version, old FROM _fetchd_history WHERE op != 'I' "
                          "ORDER BY pk").fetchall()
    finally:
        db.close()


def table(path):
    db = sqlite3.connect(path)
    try:
        return db.execute('SELECT _pk, _version, ts, sender, body FROM "Msg" ORDER BY _pk').fetchall()
    finally:
        db.close()


@unittest.skipUnless(os.access(FETCHD, os.X_OK), "no fetchd binary at %s (swift build first)" % FETCHD)
class HistoryFloorTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="history-floor-test.")
        self.template = os.path.join(self.dir, "template.sqlite")
        history_floor.make_template(self.template, ROWS)
        args = argparse.Namespace(rows=ROWS, fractions=[0.1, 0.5], updates=50)
        self.figures = history_floor.figures(args)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def floor(self, figure, side, params):
        path = os.path.join(self.dir, "%s-%s-%s.sqlite" % (figure, params.get("value", ""), side))
        shutil.copyfile(self.template, path)
        result = history_floor.run_side(path, figure, side, params)
        return path, result["changed"]

    def fetchd(self, figure, params):
        path = os.path.join(self.dir, "%s-%s-fetchd.sqlite" % (figure, params.get("value", "")))
        client = Client.spawn(FETCHD, framing="ndjson", args=["--watch", "off"])
        try:
            client.open_store(MODEL, path=path)
            rows = [[ts, sender, body] for (_, ts, sender, body) in history_floor.benchlib.rows(ROWS)]
            client.store_batch_insert("Msg", keys=["ts", "sender", "body"], rows=rows)
            where = "ts >= %d AND ts < %d" % (params.get("low", 0), params.get("high", 0))
            if figure == "batch_update":
                client.store_batch_update("Msg", {"body": params["value"]}, predicate=where)
            elif figure == "batch_delete":
                client.store_batch_delete("Msg", predicate=where)
            else:
                client.store_batch_update_objects("Msg", ids=["Msg/%d" % pk for (_, pk) in params["rows"]],
                                                  keys=["ts"], rows=[[ts] for (ts, _) in params["rows"]])
        finally:
            client.close()
        return path

    def test_the_history_side_records_what_fetchd_records(self):
        for figure, fraction, params in self.figures:
            with self.subTest(figure=figure, fraction=fraction):
                raw, raw_changed = self.floor(figure, "raw", params)
                floor, floor_changed = self.floor(figure, "history", params)
                ours = self.fetchd(figure, params)
                self.assertGreater(floor_changed, 0)
                self.assertEqual(raw_changed, floor_changed)
                self.assertEqual(history(raw), [])
                self.assertEqual(len(history(floor)), floor_changed)
                self.assertEqual(history(floor), history(ours))
                self.assertEqual(table(floor), table(ours))
                # The raw side changes the same values (its versions stay as they were).
                self.assertEqual([r[:1] + r[2:] for r in table(raw)], [r[:1] + r[2:] for r in table(ours)])


class CommandTests(unittest.TestCase):
    def test_every_figure_with_both_sides(self):
        out = subprocess.run([sys.executable, history_floor.__file__, "--rows", "300", "--updates", "30",
                              "--repeats", "1"], capture_output=True, text=True, timeout=300)
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = [json.loads(line) for line in out.stdout.splitlines() if not line.startswith("#")]
        self.assertEqual([(l["figure"], l["fraction"]) for l in lines],
                         [("batch_update", 0.1), ("batch_delete", 0.1), ("batch_update", 0.5), ("batch_delete", 0.5),
                          ("update_objects", None)])
        for line in lines:
            self.assertEqual(line["raw_changed"], line["history_changed"])
            self.assertGreater(line["raw_s"], 0)
            self.assertGreater(line["ratio_s"], 0)
        self.assertEqual(lines[-1]["raw_changed"], 30)
        self.assertIn("# figure", out.stdout)


if __name__ == "__main__":
    unittest.main()
