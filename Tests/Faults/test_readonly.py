"""The store's files stop being writable, or vanish, while fetchd has them open.

- Read-only (EROFS) or failing (EIO) writes during a session: the kernel refuses
  `mount -o remount,ro` while a process holds a file open for writing (checked below), so the
  fault is injected at a known point by faultinject.c (LD_PRELOAD): from the moment the test
  writes the control file, every write-class call on the store's directory fails with that
  errno. The save is answered with a documented kind that says why, nothing is written, the
  context keeps its changes, fetchd keeps answering; once lifted, the same save succeeds.
- A store on a filesystem that is already read-only when fetchd opens it (a real tmpfs
  remounted read-only): a clear `storeError`, with and without `model`; with the -wal/-shm a
  killed fetchd left behind, the store opens read-only: reads answer, writes fail clearly.
- The store's directory removed (rm -rf) during a session: saves and reads are answered
  (SQLite keeps the open files) or fail clearly; no crash, no busy loop; a clean exit.
"""
import os
import shutil
import time
import unittest

import faults_harness as h

SQLITE_IOERR = 10
SQLITE_READONLY = 8
SQLITE_CANTOPEN = 14


class ReadOnlyDuringSessionTests(unittest.TestCase):
    def setUp(self) -> None:
        self.shim = h.build_shim()
        if self.shim is None:
            h.skip_loudly(self, "needs a C compiler (cc, gcc or clang) to build Tests/Faults/faultinject.c")

    def run_fault(self, errno_name: str) -> dict:
        d = os.path.join(h.WORKDIR, f"session-{errno_name.lower()}")
        os.makedirs(d)
        path = os.path.join(d, "notes.sqlite")
        control = os.path.join(h.WORKDIR, f"control-{errno_name.lower()}")
        f = h.Fetchd(f"session-{errno_name.lower()}", env={"LD_PRELOAD": self.shim, "FAULTINJECT_CONTROL": control})
        self.addCleanup(f.kill)
        c = f.client
        c.store_open(model=h.NOTES_MODEL, path=path)
        main = c.context()
        notes = main.controller("notes", h.NOTES_REQUEST)
        for i in range(3):
            main.insert("Note", {"title": f"pre{i}", "rank": i})
        main.save()
        acknowledged = h.note_rows(path)
        new = [main.insert("Note", {"title": f"new{i}", "rank": 10 + i})["id"] for i in range(3)]
        main.update("Note/1", {"title": "pre0 changed"})
        changes = c.context_changes("main")

        # The fault, exactly before the save.
        with open(control, "w") as out:
            out.write(f"{errno_name} {d}\n")
        save_error = h.expect_error(main.save)
        self.assertEqual([r["id"] for r in notes.mirror.sections[0].rows],
                         [r["id"] for r in c.controller_rows("notes", 0)["objects"]])
        batch_error = h.expect_error(c.store_batch_insert, "Note", objects=[{"title": "batch", "rank": 50}])
        faulted_calls = os.path.getsize(control + ".count") if os.path.exists(control + ".count") else 0
        for what, error in (("context/save", save_error), ("store/batchInsert", batch_error)):
            self.assertIn(error.kind, h.STORE_FAULT_KINDS, f"{what}: {error}")
            self.assertEqual(error.kind, "storeError", f"{what}: {error}")
            self.assertEqual(error.code, -32013, f"{what}: {error}")
            # What SQLite says of a failed write(2), whatever its errno: an I/O error (IOERR_*).
            self.assertIn("I/O error", error.message, f"{what}: the message says why: {error.message!r}")
            self.assertEqual(error.data.get("code", 0) & 0xFF, SQLITE_IOERR, f"{what}: {error.data}")
        self.assertGreater(faulted_calls, 0, "the shim failed at least one write")
        self.assertTrue(f.alive())
        self.assertEqual(c.server_ping(), {})
        self.assertEqual(c.context_has_changes("main"), {"hasChanges": True})
        self.assertEqual(c.context_changes("main"), changes, "the context keeps its unsaved changes")
        self.assertEqual(c.context_count("main", {"entity": "Note"})["count"], 6)
        self.assertEqual(h.note_rows(path), acknowledged, "nothing of the failed writes reached the file")

        # Lifted: the same save succeeds, and so does the batch.
        os.remove(control)
        self.assertEqual(main.save(), {"inserted": 3, "updated": 1, "deleted": 0})
        batch = c.store_batch_insert("Note", objects=[{"title": "batch", "rank": 50}], return_ids=True)
        rows = h.note_rows(path)
        for object_id in new + batch["ids"]:
            self.assertIn(object_id, rows)
        self.assertEqual(rows["Note/1"]["title"], "pre0 changed")
        self.assertEqual(h.integrity(path), "ok")
        self.assertEqual(f.close(), 0)
        self.assertEqual(h.integrity(path), "ok")
        self.assertEqual(len(h.note_rows(path)), 7)
        return {"errno": errno_name, "kind": save_error.kind, "message": repr(save_error.message),
                "sqlite_code": save_error.data.get("code"), "faulted_calls": faulted_calls}

    def test_read_only_writes_during_a_session(self) -> None:
        figures = self.run_fault("EROFS")
        h.summary("read-only-session", **figures, retry="saved", integrity="ok")

    def test_io_errors_during_a_session(self) -> None:
        figures = self.run_fault("EIO")
        h.summary("io-error-session", **figures, retry="saved", integrity="ok")


class FailedBatchTests(unittest.TestCase):
    """A batch request that fails to commit (here: EIO on every write of the store, injected
    right before it) changes nothing (protocol.md §3: "A request that fails changes nothing"),
    so no controller may be told of it: its rows stay equal to a fresh fetch."""

    def setUp(self) -> None:
        self.shim = h.build_shim()
        if self.shim is None:
            h.skip_loudly(self, "needs a C compiler (cc, gcc or clang) to build Tests/Faults/faultinject.c")

    def test_batches_that_fail_to_commit_change_no_controller(self) -> None:
        d = os.path.join(h.WORKDIR, "failed-batches")
        os.makedirs(d)
        path = os.path.join(d, "notes.sqlite")
        control = os.path.join(h.WORKDIR, "control-batches")
        f = h.Fetchd("failed-batches", ["--watch", "off"],
                     env={"LD_PRELOAD": self.shim, "FAULTINJECT_CONTROL": control})
        self.addCleanup(f.kill)
        c = f.client
        c.store_open(model=h.NOTES_MODEL, path=path)
        main = c.context()
        notes = main.controller("notes", {"entity": "Note", "sortDescriptors": [{"key": "title"}]})
        for title in ("a", "b", "c"):
            main.insert("Note", {"title": title, "rank": 0})
        main.save()
        heard = []
        c.add_listener(lambda method, params: heard.append(method))
        batches = {
            "store/batchInsert": lambda: c.store_batch_insert("Note", objects=[{"title": "new", "rank": 1}]),
            "store/batchUpdate": lambda: c.store_batch_update("Note", {"title": "zz"}, predicate="title == 'a'"),
            "store/batchUpdateObjects": lambda: c.store_batch_update_objects(
                "Note", objects=[{"id": "Note/2", "title": "yy"}]),
            "store/batchDelete": lambda: c.store_batch_delete("Note", ids=["Note/3"]),
        }
        wrong = {}
        for method, call in batches.items():
            with open(control, "w") as out:
                out.write(f"EIO {d}\n")
            heard.clear()
            error = h.expect_error(call)
            os.remove(control)
            self.assertEqual(error.kind, "storeError", f"{method}: {error}")
            fresh = [o["id"] for o in c.context_fetch("main", {"entity": "Note", "sortDescriptors": [
                {"key": "title"}]})["objects"]]
            try:
                rows = [o["id"] for o in c.controller_rows("notes", 0)["objects"]]
            except h.FetchdError as rows_error:
                rows = [f"controller/rows failed: {rows_error.message}"]
            mirror = [o["id"] for o in notes.mirror.sections[0].rows] if notes.mirror.sections else []
            if heard or rows != fresh or mirror != fresh:
                wrong[method] = {"notifications": heard[:], "controller": rows, "mirror": mirror, "file": fresh}
            if rows != fresh:  # the next batch starts from a controller in step again
                c.controller_close("notes")
                notes = main.controller("notes", {"entity": "Note", "sortDescriptors": [{"key": "title"}]})
        self.assertEqual(f.close(), 0)
        h.summary("failed-batches", batches=len(batches), wrong=len(wrong),
                  detail=repr({k: v["controller"] for k, v in wrong.items()}))
        self.assertEqual(wrong, {}, "a failed batch sent a change cycle: the controller no longer matches the file")


class ReadOnlyFilesystemTests(unittest.TestCase):
    def setUp(self) -> None:
        if not h.MOUNTS_OK:
            h.skip_loudly(self, "needs root in a private mount namespace to remount a tmpfs read-only "
                                "(scripts/test-faults.sh runs the tests under `unshare -m` as root)")
        self.dir = os.path.join(h.WORKDIR, "rofs")
        h.mount_tmpfs(self.dir, "8m")
        self.addCleanup(h.umount, self.dir)
        self.addCleanup(h.remount, self.dir, "rw")
        self.path = os.path.join(self.dir, "notes.sqlite")

    def seed(self, name: str) -> h.Fetchd:
        f = h.Fetchd(name)
        self.addCleanup(f.kill)
        f.client.store_open(model=h.NOTES_MODEL, path=self.path)
        main = f.client.context()
        for i in range(3):
            main.insert("Note", {"title": f"pre{i}", "rank": i})
        main.save()
        return f

    def test_remount_read_only_is_refused_while_fetchd_writes(self) -> None:
        """The kernel refuses remount,ro while fetchd writes: why the session faults are injected."""
        f = self.seed("rofs-busy")
        refused = h.remount(self.dir, "ro")
        if refused.returncode == 0:  # a kernel that allows it: then the save must fail clearly
            f.client.context().insert("Note", {"title": "after ro", "rank": 9})
            error = h.expect_error(f.client.context().save)
            self.assertIn(error.kind, h.STORE_FAULT_KINDS)
            h.remount(self.dir, "rw")
            f.client.context().save()
            verdict = "remount allowed; save failed clearly, then saved"
        else:
            self.assertIn("busy", refused.stderr.lower())
            verdict = "kernel refused remount,ro (busy) while fetchd holds the files open for writing"
        self.assertEqual(f.close(), 0)
        h.summary("remount-ro-while-open", verdict=repr(verdict))

    def test_open_on_a_read_only_filesystem(self) -> None:
        f = self.seed("rofs-seed")
        self.assertEqual(f.close(), 0)
        self.assertEqual(sorted(os.listdir(self.dir)), ["notes.sqlite"], "a clean close leaves no -wal/-shm")
        before = h.note_rows(self.path)
        self.assertEqual(h.remount(self.dir, "ro").returncode, 0)

        g = h.Fetchd("rofs-open")
        self.addCleanup(g.kill)
        with_model = h.expect_error(g.client.store_open, model=h.NOTES_MODEL, path=self.path)
        without_model = h.expect_error(g.client.store_open, path=self.path)
        self.assertEqual(g.client.server_ping(), {})
        self.assertEqual(h.remount(self.dir, "rw").returncode, 0)
        self.assertEqual(g.client.store_open(model=h.NOTES_MODEL, path=self.path)["entities"], ["Note"])
        g.client.context().insert("Note", {"title": "after rw", "rank": 7})
        g.client.context().save()
        self.assertEqual(len(h.note_rows(self.path)), len(before) + 1)
        self.assertEqual(g.close(), 0)
        self.assertEqual(h.integrity(self.path), "ok")
        h.summary("open-read-only-fs", with_model=f"{with_model.kind}:{with_model.message!r}",
                  without_model=f"{without_model.kind}:{without_model.message!r}")
        # An existing store that cannot be opened is a store failure (protocol.md §5: "Store
        # failures (I/O, a file that is not a store) are storeError"), with or without model.
        self.assertEqual(with_model.kind, "storeError", str(with_model))
        self.assertIn(self.path, with_model.message)
        self.assertEqual(without_model.kind, "storeError",
                         f"the file exists and is a fetchd store: an I/O failure, not a missing model: {without_model}")

    def test_open_read_only_with_the_wal_a_killed_fetchd_left(self) -> None:
        f = self.seed("rofs-killed")
        before = h.note_rows(self.path)  # while fetchd has it open: the last close would remove the -wal
        f.kill()
        self.assertIn("notes.sqlite-wal", os.listdir(self.dir))
        self.assertEqual(h.remount(self.dir, "ro").returncode, 0)

        g = h.Fetchd("rofs-wal")
        self.addCleanup(g.kill)
        c = g.client
        self.assertEqual(c.store_open(model=h.NOTES_MODEL, path=self.path)["entities"], ["Note"])
        self.assertEqual({o["id"]: o for o in c.context_fetch("main", {"entity": "Note"})["objects"]}, before)
        c.context_update("main", "Note/1", {"title": "changed"})
        save_error = h.expect_error(c.context_save, "main")
        insert_error = h.expect_error(c.context_insert, "main", "Note", {"title": "new", "rank": 1})
        batch_error = h.expect_error(c.store_batch_insert, "Note", objects=[{"title": "b", "rank": 2}])
        for what, error in (("save", save_error), ("insert", insert_error), ("batchInsert", batch_error)):
            self.assertEqual(error.kind, "storeError", f"{what}: {error}")
            self.assertIn("readonly", error.message.replace("-", "").replace(" ", ""), f"{what}: says why")
            self.assertEqual(error.data.get("code", 0) & 0xFF, SQLITE_READONLY, f"{what}: {error.data}")
        self.assertEqual(c.context_changes("main"), {"inserted": [], "updated": ["Note/1"], "deleted": []})
        self.assertEqual(c.server_ping(), {})
        self.assertEqual(h.remount(self.dir, "rw").returncode, 0)
        # SQLite keeps a connection opened read-only read-only: the save still fails the same
        # clear way until the store is opened again (a limitation, reported, not a crash).
        try:
            c.context_save("main")
            after_rw = "saved"
        except h.FetchdError as error:
            self.assertEqual(error.kind, "storeError", str(error))
            after_rw = f"{error.kind}:{error.message!r}"
        # Opening another store first drops the read-only connection; then the file opens
        # writable again and saves work (see the next test for opening it in place).
        c.store_open(model=h.NOTES_MODEL)
        c.store_open(model=h.NOTES_MODEL, path=self.path)
        c.context_update("main", "Note/1", {"title": "changed"})
        c.context_save("main")
        self.assertEqual(h.note_rows(self.path)["Note/1"]["title"], "changed")
        self.assertEqual(g.close(), 0)
        self.assertEqual(h.integrity(self.path), "ok")
        h.summary("open-read-only-fs-with-wal", reads="answered", save=f"{save_error.kind}:{save_error.message!r}",
                  insert=f"{insert_error.kind}:{insert_error.message!r}", save_after_remount_rw=after_rw,
                  after_reopen_via_memory="saved")

    def test_reopen_in_place_once_the_filesystem_is_writable_again(self) -> None:
        """Reopening a store opened read-only, once the filesystem is rw again, makes it writable.

        store/open of the path already open replaces the open store (protocol.md §5)."""
        f = self.seed("rofs-killed2")
        f.kill()
        self.assertEqual(h.remount(self.dir, "ro").returncode, 0)
        g = h.Fetchd("rofs-reopen")
        self.addCleanup(g.kill)
        c = g.client
        c.store_open(model=h.NOTES_MODEL, path=self.path)
        self.assertEqual(h.remount(self.dir, "rw").returncode, 0)
        try:
            c.store_open(model=h.NOTES_MODEL, path=self.path)
            c.context_insert("main", "Note", {"title": "after rw", "rank": 1})
            c.context_save("main")
            outcome = "saved"
        except h.FetchdError as error:
            outcome = f"{error.kind}:{error.message!r}"
        self.assertEqual(g.close(), 0)
        h.summary("reopen-in-place-after-rw", outcome=outcome)
        self.assertEqual(outcome, "saved", "reopening the store in place once the filesystem is writable")


class RemovedDirectoryTests(unittest.TestCase):
    def run_removed(self, watch: str) -> dict:
        d = os.path.join(h.WORKDIR, f"gone-{watch}")
        os.makedirs(d)
        path = os.path.join(d, "notes.sqlite")
        f = h.Fetchd(f"gone-{watch}", ["--watch", watch])
        self.addCleanup(f.kill)
        c = f.client
        c.store_open(model=h.NOTES_MODEL, path=path)
        main = c.context()
        notes = main.controller("notes", h.NOTES_REQUEST)
        for i in range(3):
            main.insert("Note", {"title": f"pre{i}", "rank": i})
        main.save()
        main.insert("Note", {"title": "pending", "rank": 5})
        main.update("Note/1", {"title": "changed"})

        shutil.rmtree(d)
        # No busy loop on the vanished directory (an idle fetchd uses next to no CPU; a spin
        # would use most of a core for the whole wait).
        cpu = f.cpu_seconds()
        time.sleep(2)
        idle_cpu = f.cpu_seconds() - cpu
        self.assertLess(idle_cpu, 0.5, "fetchd spins after its directory vanished")

        outcomes = {}
        for what, call in (("save", lambda: main.save()),
                           ("batchInsert", lambda: c.store_batch_insert("Note", objects=[{"title": "b", "rank": 9}])),
                           ("fetch", lambda: c.context_fetch("main", {"entity": "Note"})),
                           ("checkExternalChanges", lambda: c.store_check_external_changes())):
            try:
                call()
                outcomes[what] = "ok"
            except h.FetchdError as error:
                self.assertIn(error.kind, h.STORE_FAULT_KINDS, f"{what}: a documented kind: {error}")
                self.assertTrue(error.message, f"{what}: says why")
                outcomes[what] = f"{error.kind}:{error.message!r}"
        self.assertTrue(f.alive())
        self.assertEqual(c.server_ping(), {})
        self.assertEqual([r["id"] for r in notes.mirror.sections[0].rows],
                         [r["id"] for r in c.controller_rows("notes", 0)["objects"]])
        cpu = f.cpu_seconds()
        time.sleep(1)
        self.assertLess(f.cpu_seconds() - cpu, 0.5, "fetchd spins after its directory vanished")
        code = f.stop()
        self.assertEqual(code, 0, f"shutdown + exit: exit code 0; stderr: {f.stderr_tail()}")
        return {**outcomes, "idle_cpu_2s": round(idle_cpu, 2), "exit": code}

    def test_directory_removed_while_watching_with_inotify(self) -> None:
        h.summary("removed-directory-auto", **self.run_removed("auto"))

    def test_directory_removed_while_polling(self) -> None:
        h.summary("removed-directory-poll", **self.run_removed("poll"))


if __name__ == "__main__":
    unittest.main()
