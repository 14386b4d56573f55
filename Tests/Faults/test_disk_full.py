"""Disk full (protocol.md §3.2 `storeError`, §6 "On any failure nothing is written and the
context keeps all its changes"): the store lives on a 2 MiB tmpfs; the disk is filled
exactly before a `context/save` and before a `store/batchInsert`. Each is answered with a
documented error kind naming SQLite's "database or disk is full" (SQLITE_FULL, 13), nothing
of it reaches the file, the context keeps its unsaved changes, fetchd keeps serving, and once
the filler is removed the same save succeeds."""
import os
import unittest

import faults_harness as h

# SQLite's result code and sentence for a full disk (sqlite3_errstr(SQLITE_FULL)).
SQLITE_FULL = 13
FULL_TEXT = "database or disk is full"


class DiskFullTests(unittest.TestCase):
    def setUp(self) -> None:
        if not h.MOUNTS_OK:
            h.skip_loudly(self, "needs root in a private mount namespace for a tmpfs (scripts/test-faults.sh "
                                "runs the tests under `unshare -m` as root)")
        self.dir = os.path.join(h.WORKDIR, "diskfull")
        h.mount_tmpfs(self.dir, "2m")
        self.addCleanup(h.umount, self.dir)

    def assert_disk_full(self, error: h.FetchdError, what: str) -> None:
        self.assertIn(error.kind, h.STORE_FAULT_KINDS, f"{what}: {error}")
        self.assertEqual(error.kind, "storeError", f"{what}: {error}")
        self.assertEqual(error.code, -32013, f"{what}: {error}")
        self.assertIn(FULL_TEXT, error.message, f"{what}: the message says why")
        self.assertEqual(error.data.get("code"), SQLITE_FULL, f"{what}: {error.data}")
        self.assertEqual(error.data.get("message"), FULL_TEXT, f"{what}: {error.data}")

    def test_disk_full_at_save_and_batch_insert(self) -> None:
        path = os.path.join(self.dir, "notes.sqlite")
        f = h.Fetchd("diskfull")
        self.addCleanup(f.kill)
        c = f.client
        c.store_open(model=h.NOTES_MODEL, path=path)
        main = c.context()
        for i in range(5):
            main.insert("Note", {"title": f"pre{i}", "rank": i, "body": "x" * 100})
        self.assertEqual(main.save(), {"inserted": 5, "updated": 0, "deleted": 0})
        acknowledged = h.note_rows(path)
        token_before = h.max_token(path)

        # The unsaved work: 40 inserts of 2 KB, an update and a delete (ids are reserved while
        # there is room; an insert that needs a new block on a full disk is checked below).
        pending = [main.insert("Note", {"title": f"new{i}", "rank": 10 + i, "body": "y" * 2000})["id"]
                   for i in range(40)]
        main.update("Note/1", {"title": "pre0 changed"})
        main.delete("Note/2")
        changes = c.context_changes("main")
        self.assertEqual(changes, {"inserted": pending, "updated": ["Note/1"], "deleted": ["Note/2"]})

        # The fault, at a known point: no byte left, right before the save.
        filler = h.fill_disk(self.dir)
        self.assertEqual(h.free_bytes(self.dir), 0)
        save_error = h.expect_error(main.save)
        self.assert_disk_full(save_error, "context/save")
        self.assertTrue(f.alive(), "fetchd is still running")
        self.assertEqual(c.context_has_changes("main"), {"hasChanges": True})
        self.assertEqual(c.context_changes("main"), changes, "the context keeps every unsaved change")
        # fetchd keeps serving: reads answer, with the pending changes on top of the file.
        self.assertEqual(c.server_ping(), {})
        self.assertEqual(c.context_count("main", {"entity": "Note"})["count"], 5 + 40 - 1)
        self.assertEqual(c.context_get("main", ["Note/1"])["objects"][0]["title"], "pre0 changed")

        batch_error = h.expect_error(c.store_batch_insert, "Note", keys=["title", "rank", "body"],
                                     rows=[[f"batch{i}", 100 + i, "z" * 2000] for i in range(40)], return_ids=True)
        self.assert_disk_full(batch_error, "store/batchInsert")
        self.assertEqual(c.server_ping(), {})

        # An insert that must reserve a new block of ids on the full disk fails cleanly too.
        inserted_while_full = 0
        insert_error = None
        for i in range(5000):
            try:
                main.insert("Note", {"title": f"more{i}", "rank": 1000 + i})
                inserted_while_full += 1
            except h.FetchdError as error:
                insert_error = error
                break
        self.assertIsNotNone(insert_error, "an insert needing a new id block failed on the full disk")
        assert insert_error is not None
        self.assert_disk_full(insert_error, "context/insert (reserving ids)")
        after_insert_error = c.context_changes("main")
        self.assertEqual(len(after_insert_error["inserted"]), 40 + inserted_while_full,
                         "the failed insert changed nothing in the context")

        # Nothing partially written: a plain reader (and a fresh fetchd) see the acknowledged rows only.
        self.assertEqual(h.note_rows(path), acknowledged)
        self.assertEqual(h.max_token(path), token_before, "no history row of the failed writes")
        self.assertEqual(h.integrity(path), "ok")
        fresh = h.Fetchd("diskfull-fresh", ["--watch", "off"])
        self.addCleanup(fresh.kill)
        fresh.client.store_open(path=path)
        seen = {o["id"]: o for o in fresh.client.context_fetch("main", {"entity": "Note"})["objects"]}
        self.assertEqual(seen, acknowledged)
        self.assertEqual(fresh.close(), 0)

        # The disk has room again: the same save succeeds and everything is in the file.
        os.remove(filler)
        saved = main.save()
        self.assertEqual(saved, {"inserted": 40 + inserted_while_full, "updated": 1, "deleted": 1})
        self.assertEqual(c.context_has_changes("main"), {"hasChanges": False})
        batch = c.store_batch_insert("Note", keys=["title", "rank", "body"],
                                     rows=[[f"batch{i}", 100 + i, "z" * 2000] for i in range(40)], return_ids=True)
        self.assertEqual(batch["count"], 40)
        rows = h.note_rows(path)
        self.assertEqual(len(rows), 5 - 1 + 40 + inserted_while_full + 40)
        self.assertEqual(rows["Note/1"]["title"], "pre0 changed")
        self.assertNotIn("Note/2", rows)
        for object_id in pending + batch["ids"]:
            self.assertIn(object_id, rows)
        self.assertEqual(h.integrity(path), "ok")

        # Full again, then the session ends: fetchd closes cleanly and the file keeps every save.
        main.insert("Note", {"title": "unsaved at exit", "rank": 0})
        filler = h.fill_disk(self.dir)
        self.assertEqual(h.free_bytes(self.dir), 0)
        acknowledged = h.note_rows(path)
        self.assertEqual(f.close(), 0, "exit code after end of input on a full disk")
        os.remove(filler)
        self.assertEqual(h.note_rows(path), acknowledged)
        self.assertEqual(h.integrity(path), "ok")
        h.summary("disk-full", save_error=repr(save_error.message), batch_error=repr(batch_error.message),
                  insert_error=repr(insert_error.message), kind=save_error.kind, sqlite_code=save_error.data.get("code"),
                  pending_kept=len(changes["inserted"]) + 2, rows_after_retry=len(rows), integrity="ok")

    def test_a_batch_that_fails_on_a_full_disk_changes_no_controller(self) -> None:
        """A batch failing on a full disk sends no change cycle (§3: a failed request changes nothing)."""
        path = os.path.join(self.dir, "notes.sqlite")
        f = h.Fetchd("diskfull-controller", ["--watch", "off"])
        self.addCleanup(f.kill)
        c = f.client
        c.store_open(model=h.NOTES_MODEL, path=path)
        main = c.context()
        notes = main.controller("notes", h.NOTES_REQUEST)
        main.insert("Note", {"title": "kept", "rank": 0})
        main.save()
        heard = []
        c.add_listener(lambda method, params: heard.append(method))
        filler = h.fill_disk(self.dir)
        error = h.expect_error(c.store_batch_insert, "Note", keys=["title", "rank", "body"],
                               rows=[[f"batch{i}", i, "z" * 2000] for i in range(40)])
        self.assert_disk_full(error, "store/batchInsert")
        fresh = [o["id"] for o in c.context_fetch("main", h.NOTES_REQUEST)["objects"]]
        try:
            rows = [o["id"] for o in c.controller_rows("notes", 0)["objects"]]
        except h.FetchdError as rows_error:
            rows = [f"controller/rows failed: {rows_error.message}"]
        os.remove(filler)
        self.assertEqual(f.close(), 0)
        h.summary("disk-full-batch-controller", notifications=len(heard), controller_rows=len(rows),
                  file_rows=len(fresh), first=repr(rows[:2]))
        self.assertEqual(fresh, ["Note/1"])
        self.assertEqual(heard, [], "no change cycle for a batch that wrote nothing")
        self.assertEqual(rows, fresh, "the controller still matches the file")


if __name__ == "__main__":
    unittest.main()
