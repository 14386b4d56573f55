"""Controllers while another process writes: two bugs the kill -9 test ran into during ordinary
concurrent writes (no fault injected), each reproduced here at a known point (`--watch off`
makes "another process committed, not merged yet" a state that holds still).

1. Reading a controller while another process deletes its rows. A controller's rows are its
   results as of its last change cycle (protocol.md §9, "After every cycle of its context a
   controller holds exactly..."); another process's commit reaches it as a cycle when fetchd
   merges (§5), and a request may see the file newer than its notifications (§5, "Merging").
   Either way, `controller/rows` and `controller/object` for rows the controller holds
   (`controller/sections` counts them) must answer, not fail with `unknownObject`.
2. This process's own write (a batch update, or a save whose merge policy lets it through) to
   an object another process changed and fetchd has not merged yet: the controller must still
   hold each object once, equal to the file after the merge.
"""
import os
import threading
import unittest

import faults_harness as h

REQUEST = {"entity": "Note", "sortDescriptors": [{"key": "rank"}, {"key": "title"}]}


class ControllerReadsUnderExternalDeletesTests(unittest.TestCase):
    def make_store(self, name: str, watch: str) -> h.Fetchd:
        d = os.path.join(h.WORKDIR, name)
        os.makedirs(d)
        self.path = os.path.join(d, "notes.sqlite")
        f = h.Fetchd(name, ["--watch", watch])
        self.addCleanup(f.kill)
        f.client.store_open(model=h.NOTES_MODEL, path=self.path)
        f.client.store_batch_insert("Note", keys=["title", "rank"], rows=[[f"n{i}", i % 10] for i in range(200)])
        f.client.controller_create("main", "notes", REQUEST)
        return f

    def test_rows_after_an_unmerged_external_delete(self) -> None:
        """Deterministic: --watch off merges nothing until asked; a plain client deletes one row."""
        f = self.make_store("unmerged-delete", "off")
        c = f.client
        db = h.connect(self.path)
        db.execute("DELETE FROM Note WHERE _pk = 1")
        db.close()
        held = c.controller_sections("notes")["sections"][0]["numberOfObjects"]
        outcomes = {}
        for what, call in (("controller/rows", lambda: len(c.controller_rows("notes", 0)["objects"])),
                           ("controller/object", lambda: c.controller_object("notes", [0, 0])["object"]["id"])):
            try:
                outcomes[what] = call()
            except h.FetchdError as error:
                outcomes[what] = f"{error.kind}: {error.message}"
        merged = c.store_check_external_changes()["merged"]
        after = len(c.controller_rows("notes", 0)["objects"])
        self.assertEqual(f.close(), 0)
        h.summary("controller-read-unmerged-delete", held=held, **{k.replace("/", "_"): repr(v) for k, v in
                                                                    outcomes.items()}, merged=merged,
                  rows_after_merge=after)
        self.assertEqual(after, 199)
        self.assertEqual(outcomes["controller/rows"], held, "controller/rows answers the rows the controller holds")
        self.assertEqual(outcomes["controller/object"], "Note/1", "controller/object answers its row")

    def test_rows_while_another_process_deletes(self) -> None:
        """--watch auto with a plain client inserting and deleting meanwhile: 300 reads, none may fail."""
        f = self.make_store("concurrent-delete", "auto")
        c = f.client
        stop = threading.Event()
        failure = []

        def writer() -> None:
            db = h.connect(self.path)
            i = 0
            try:
                while not stop.is_set():
                    db.execute("INSERT INTO Note (title, rank) VALUES (?, ?)", (f"w{i}", i % 10))
                    db.execute("DELETE FROM Note WHERE _pk = (SELECT min(_pk) FROM Note)")
                    i += 1
                    stop.wait(0.001)
            except Exception as error:  # noqa: BLE001
                failure.append(error)
            finally:
                db.close()

        thread = threading.Thread(target=writer, daemon=True)
        thread.start()
        errors, calls, first = 0, 300, None
        try:
            for _ in range(calls):
                try:
                    c.controller_rows("notes", 0)
                except h.FetchdError as error:
                    errors += 1
                    first = first or f"{error.kind}: {error.message}"
        finally:
            stop.set()
            thread.join(h.REPLY_TIMEOUT)
        self.assertEqual(failure, [])
        self.assertEqual(f.close(), 0)
        h.summary("controller-read-concurrent-deletes", calls=calls, failed=errors, first=repr(first))
        self.assertEqual(errors, 0, f"controller/rows failed {errors} of {calls} times: {first}")



class OwnWriteOverAnUnmergedChangeTests(unittest.TestCase):
    def run_variant(self, variant: str) -> dict:
        name = "unmerged-" + "".join(ch if ch.isalnum() else "-" for ch in variant)
        d = os.path.join(h.WORKDIR, name)
        os.makedirs(d)
        path = os.path.join(d, "notes.sqlite")
        f = h.Fetchd(name, ["--watch", "off"])
        self.addCleanup(f.kill)
        c = f.client
        c.store_open(model=h.NOTES_MODEL, path=path)
        for title, rank in (("a", 1), ("b", 2), ("c", 3)):
            c.context_insert("main", "Note", {"title": title, "rank": rank})
        c.context_save("main")
        c.context_create("w", merge_policy="objectTrump")
        c.controller_create("main", "notes", REQUEST)
        if variant == "context/save (objectTrump)":
            c.context_update("w", "Note/1", {"title": "A"})
        # Another process moves Note/1 to the end; this fetchd has not merged it.
        db = h.connect(path)
        db.execute("UPDATE Note SET rank = 9 WHERE _pk = 1")
        db.close()
        if variant == "store/batchUpdateObjects":
            c.store_batch_update_objects("Note", objects=[{"id": "Note/1", "title": "A"}])
        elif variant == "store/batchUpdate":
            c.store_batch_update("Note", {"title": "A"}, predicate="title == 'a'")
        else:
            c.context_save("w")
        c.store_check_external_changes()
        rows = [o["id"] for o in c.controller_rows("notes", 0)["objects"]]
        fetched = [o["id"] for o in c.context_fetch("main", REQUEST)["objects"]]
        self.assertEqual(f.close(), 0)
        return {"controller": rows, "file": fetched}

    def test_own_writes_over_an_unmerged_external_change(self) -> None:
        results = {v: self.run_variant(v) for v in ("store/batchUpdateObjects", "store/batchUpdate",
                                                    "context/save (objectTrump)")}
        wrong = {v: r for v, r in results.items() if r["controller"] != r["file"]}
        h.summary("own-write-over-unmerged-change", variants=len(results), wrong=len(wrong),
                  detail=repr({v: r["controller"] for v, r in wrong.items()}), file=repr(
                      next(iter(results.values()))["file"]))
        self.assertEqual(wrong, {}, "the controller holds an object twice (or misses one) after its own write")


if __name__ == "__main__":
    unittest.main()
