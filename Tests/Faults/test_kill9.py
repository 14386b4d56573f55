"""kill -9 of a watching fetchd at random (seeded) moments while two other fetchd processes and
a plain Python `sqlite3` writer keep committing to the same file (protocol.md §5, "Other
processes on the file" and "External changes and the history").

The victim keeps a controller on context `main` (its mirror applied from every notification)
and saves from a context `edit` (inserts, updates, deletes; batch inserts, updates, and a
batch delete of its batch rows when they pile up). It
records the newest history token it was told of (`store/didChangeExternally`'s `token`, or
`store/checkExternalChanges`'s). At a seeded moment (between requests, with a save or a batch
in flight, or during the replay of a restart) it is killed with SIGKILL; whatever it wrote
before dying is read to the end, and it restarts with `store/open {path, model,
historyToken: last}`. Then, with the other writers paused (the file holds still):

- every history row after the token a life opened with, up to the last token it was told of,
  except that life's own saves, was announced exactly once, as the transaction it belongs to,
  in order (no gap, no duplicate; checked against `_fetchd_history` read by plain SQLite);
- every save and batch the victim had acknowledged is in the history, as it was sent; a save
  in flight at the kill is there whole or not at all;
- the client's picture before the kill (its mirror) plus what the restart announced is the
  file: every object the replay did not name is unchanged since; the new controller's rows
  equal the file's rows and a fresh `context/fetch`; `PRAGMA integrity_check` is "ok".

At seeded quiescent points within a life (the others paused, the victim merged) its mirror,
`controller/rows`, `context/fetch` and the file must agree too; at the end every write the
other fetchd processes acknowledged is in the file, and every row the plain writer committed.

FAULTS_KILLS=N rounds (default 20), FAULTS_SEED=S (default 1; printed).
"""
import os
import random
import select
import threading
import time
import unittest
from collections import Counter
from typing import Any, Dict, List, Optional, Set, Tuple

import faults_harness as h

KILLS = int(os.environ.get("FAULTS_KILLS", "20"))
SEED = int(os.environ.get("FAULTS_SEED", "1"))
TYPES = {"I": "insert", "U": "update", "D": "delete"}
ANSWER_KEYS = {"insert": "inserted", "update": "updated", "delete": "deleted"}  # context/save's answer
# What a writer's save or batch may meet from the others, and then rolls back and goes on.
EXPECTED_WRITE_ERRORS = {"mergeConflict", "unknownObject", "storeBusy", "validation"}


def expand(entity: str, pk: int, op: str, other: Optional[int]) -> List[Tuple[str, str, str]]:
    """A history row as the changes it stands for (fetchd records a run of inserts as one row)."""
    last = max(pk, other) if (op == "I" and other is not None) else pk
    return [(entity, f"{entity}/{n}", TYPES[op]) for n in range(pk, last + 1)]


class Shared:
    """Ids the writers know of (for updates and deletes); approximate under races, by design."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ids: Set[int] = set()

    def add(self, ids: List[int]) -> None:
        with self.lock:
            self.ids.update(ids)

    def remove(self, ids: List[int]) -> None:
        with self.lock:
            self.ids.difference_update(ids)

    def pick(self, rng: random.Random, n: int = 1) -> List[int]:
        with self.lock:
            if not self.ids:
                return []
            pool = sorted(self.ids)
        return rng.sample(pool, min(n, len(pool)))

    def size(self) -> int:
        with self.lock:
            return len(self.ids)


def pk_of(object_id: str) -> int:
    return int(object_id.rsplit("/", 1)[1])


class Writer(threading.Thread):
    """Commits until stopped; pauses on request (finishing the write under way first)."""

    def __init__(self, name: str, seed: int, shared: Shared) -> None:
        super().__init__(name=name, daemon=True)
        self.rng = random.Random(seed)
        self.shared = shared
        self.pause_requested = threading.Event()
        # Held for each write: once pause_requested is set and the lock taken, no write is
        # under way and none starts until resumed.
        self.step_lock = threading.Lock()
        self.stop_requested = threading.Event()
        self.failure: Optional[BaseException] = None
        self.acked = 0
        self.errors: Counter = Counter()
        self.unexpected: List[str] = []
        self.counter = 0

    def run(self) -> None:
        try:
            while not self.stop_requested.is_set():
                with self.step_lock:
                    wrote = not self.pause_requested.is_set() and not self.stop_requested.is_set()
                    if wrote:
                        self.step()
                time.sleep(self.rng.uniform(0.002, 0.02) if wrote else 0.002)
        except BaseException as error:  # noqa: BLE001 - reported by the test
            if not self.stop_requested.is_set():
                self.failure = error
        finally:
            self.finish()

    def finish(self) -> None:
        pass

    def title(self) -> str:
        self.counter += 1
        return f"{self.name}-{self.counter}"

    def step(self) -> None:
        raise NotImplementedError


class FetchdWriter(Writer):
    def __init__(self, name: str, seed: int, shared: Shared, path: str, watch: str, policy: str) -> None:
        super().__init__(name, seed, shared)
        self.f = h.Fetchd(f"writer-{name}", ["--watch", watch])
        self.c = self.f.client
        self.c.store_open(model=h.NOTES_MODEL, path=path)
        self.c.context_create("w", merge_policy=policy, transaction_author=name)
        self.origin: Optional[str] = None
        # Each acknowledged write: the changes sent, the answer, whether it was a context save.
        self.log: List[Tuple[Counter, Any, bool]] = []

    def step(self) -> None:
        c, rng = self.c, self.rng
        roll = rng.random()
        big = self.shared.size() > 300
        expected: Counter = Counter()
        try:
            if roll < 0.45 and not big:
                ids = [pk_of(c.context_insert("w", "Note", {"title": self.title(), "rank": rng.randint(0, 9),
                                                             "body": rng.choice([None, "b"])})["object"]["id"])
                       for _ in range(rng.randint(1, 4))]
                expected.update(("Note", f"Note/{i}", "insert") for i in ids)
                answer = c.context_save("w")
                self.shared.add(ids)
            elif roll < 0.65:
                targets = self.shared.pick(rng)
                if not targets:
                    return
                c.context_update("w", f"Note/{targets[0]}", {"title": self.title(), "rank": rng.randint(0, 9)})
                expected[("Note", f"Note/{targets[0]}", "update")] += 1
                answer = c.context_save("w")
            elif roll < 0.8 or big:
                targets = self.shared.pick(rng)
                if not targets:
                    return
                c.context_delete("w", f"Note/{targets[0]}")
                expected[("Note", f"Note/{targets[0]}", "delete")] += 1
                answer = c.context_save("w")
                self.shared.remove(targets)
            elif roll < 0.9:
                answer = c.store_batch_insert("Note", objects=[{"title": self.title(), "rank": rng.randint(0, 9)}
                                                               for _ in range(rng.randint(5, 40))], return_ids=True)
                expected.update(("Note", i, "insert") for i in answer["ids"])
                self.shared.add([pk_of(i) for i in answer["ids"]])
            else:
                targets = self.shared.pick(rng, rng.randint(1, 4))
                if not targets:
                    return
                answer = c.store_batch_update_objects("Note", objects=[{"id": f"Note/{t}", "title": self.title()}
                                                                       for t in targets])
                expected.update(("Note", f"Note/{t}", "update") for t in targets)
            self.acked += 1
            self.log.append((expected, answer, "count" not in answer))
        except h.FetchdError as error:
            self.errors[error.kind] += 1
            if error.kind not in EXPECTED_WRITE_ERRORS:
                self.unexpected.append(str(error))
            c.context_rollback("w")


class PlainWriter(Writer):
    """Python's sqlite3 module, no fetchd code: one to three statements per transaction."""

    def __init__(self, name: str, seed: int, shared: Shared, path: str) -> None:
        super().__init__(name, seed, shared)
        self.path = path
        self.db: Any = None
        # Every history row this writer committed (its own transactions' rows).
        self.rows: List[int] = []

    def finish(self) -> None:
        if self.db is not None:
            self.db.close()

    def note(self, error: Exception) -> None:
        """SQLITE_BUSY past the busy timeout is expected under load; anything else is not."""
        self.errors[type(error).__name__] += 1
        text = str(error)
        if "locked" not in text and "busy" not in text:
            self.unexpected.append(repr(error))

    def step(self) -> None:
        if self.db is None:  # made in the writer's own thread
            self.db = h.connect(self.path)
        db, rng = self.db, self.rng
        try:
            db.execute("BEGIN IMMEDIATE")
        except Exception as error:  # noqa: BLE001 - busy past the timeout: try later
            self.note(error)
            return
        try:
            before = db.execute("SELECT coalesce(max(seq), 0) FROM _fetchd_history").fetchone()[0]
            added: List[int] = []
            removed: List[int] = []
            for _ in range(rng.randint(1, 3)):
                roll = rng.random()
                targets = self.shared.pick(rng)
                if roll < 0.5 or not targets:
                    if self.shared.size() > 300:
                        continue
                    cur = db.execute("INSERT INTO Note (title, rank, body) VALUES (?, ?, ?)",
                                     (self.title(), rng.randint(0, 9), rng.choice([None, "p"])))
                    added.append(int(cur.lastrowid))
                elif roll < 0.8:
                    db.execute("UPDATE Note SET title = ?, rank = ? WHERE _pk = ?",
                               (self.title(), rng.randint(0, 9), targets[0]))
                else:
                    db.execute("DELETE FROM Note WHERE _pk = ?", (targets[0],))
                    removed.append(targets[0])
            mine = [r[0] for r in db.execute("SELECT seq FROM _fetchd_history WHERE seq > ?", (before,))]
            db.execute("COMMIT")
        except Exception as error:  # noqa: BLE001
            self.note(error)
            if db.in_transaction:
                db.execute("ROLLBACK")
            return
        self.rows.extend(mine)
        self.shared.add(added)
        self.shared.remove(removed)
        self.acked += 1


class Life:
    """One run of the victim, from its store/open to its kill (or the end)."""

    def __init__(self, index: int, open_token: int) -> None:
        self.index = index
        self.open_token = open_token
        self.last_token = open_token
        self.announced: List[Dict[str, Any]] = []
        self.gaps = 0
        self.origin: Optional[str] = None
        self.acked: List[Any] = []
        self.answers: List[Optional[Dict[str, Any]]] = []  # a save's {inserted, updated, deleted}
        self.inflight: Optional[Any] = None  # what a write in flight at the kill would write
        self.inflight_id: Optional[int] = None
        self.inflight_method = ""
        self.f: Optional[h.Fetchd] = None
        self.controller: Any = None
        self.mirror_errors: List[str] = []

    def listen(self, method: str, params: Any) -> None:
        if method == "store/didChangeExternally":
            self.announced.extend(params.get("transactions", []))
            self.last_token = max(self.last_token, int(params["token"]))
            if params.get("gap"):
                self.gaps += 1

    def mirror_rows(self) -> List[Dict[str, Any]]:
        if self.controller is None or self.controller.mirror is None:
            return []
        return [dict(r) for s in self.controller.mirror.sections for r in s.rows]


class AcknowledgedCheckTests(unittest.TestCase):
    """The check of an acknowledged save on a history made by hand: a change left out is
    accepted only when another writer (here a plain client, whose rows have no txn) deleted
    that object before the save, and only as the save's answer counts it."""

    def setUp(self) -> None:
        self.test = KillNineTests("test_kill_nine_while_others_write")
        self.test.setUp()
        self.test.path = os.path.join(self.test.dir, "check.sqlite")
        db = h.connect(self.test.path)
        db.executescript(
            "CREATE TABLE _fetchd_transactions (token INTEGER PRIMARY KEY, author TEXT, origin TEXT, time REAL);"
            "CREATE TABLE _fetchd_history (seq INTEGER PRIMARY KEY, txn INTEGER, time REAL, entity TEXT NOT NULL,"
            " pk INTEGER NOT NULL, op TEXT NOT NULL, keys TEXT, version INTEGER, old TEXT, other INTEGER);"
            "INSERT INTO _fetchd_history (seq, txn, entity, pk, op) VALUES (3, NULL, 'Note', 5, 'D');"
            "INSERT INTO _fetchd_transactions VALUES (4, 'victim', 'me', 0);"
            "INSERT INTO _fetchd_history (seq, txn, entity, pk, op) VALUES (4, 4, 'Note', 9, 'I');")
        db.commit()
        db.close()

    def tearDown(self) -> None:
        os.remove(self.test.path)

    def test_a_delete_another_writer_made_first_is_not_lost(self) -> None:
        ((first, written),) = self.test.own_transactions_with_tokens("me")
        sent = Counter({("Note", "Note/9", "insert"): 1, ("Note", "Note/5", "delete"): 1})
        answer = {"inserted": 1, "updated": 0, "deleted": 0}
        self.assertTrue(self.test.matches((first, written), sent, "me", answer))
        self.assertFalse(self.test.matches((first, written), sent, "me", dict(answer, deleted=1)))
        # Not deleted by anyone else: lost. Nor a dropped insert.
        other = Counter({("Note", "Note/9", "insert"): 1, ("Note", "Note/6", "delete"): 1})
        self.assertFalse(self.test.matches((first, written), other, "me", answer))
        self.assertFalse(self.test.matches((first, Counter()), sent, "me", {"inserted": 0, "updated": 0,
                                                                             "deleted": 0}))


class KillNineTests(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = os.path.join(h.WORKDIR, "kill9")
        os.makedirs(self.dir, exist_ok=True)
        self.path = os.path.join(self.dir, "shared.sqlite")
        # The schedule (how many writes, of which kind, when and how the victim dies) comes
        # from its own generator, so a seed gives the same kill points whatever the data;
        # values and targets (which depend on what the others wrote) from another.
        self.rng = random.Random(SEED)
        self.data_rng = random.Random(SEED + 1)
        self.shared = Shared()
        self.known_origins: Set[str] = set()
        self.problems: List[str] = []
        self.figures: Counter = Counter()
        self.writers: List[Writer] = []

    # -- the file -------------------------------------------------------------------------
    def rows_between(self, after: int, upto: int) -> List[Tuple[Any, ...]]:
        db = h.connect(self.path)
        try:
            return db.execute(
                "SELECT h.seq, h.txn, h.entity, h.pk, h.op, h.other, t.origin FROM _fetchd_history h "
                "LEFT JOIN _fetchd_transactions t ON t.token = h.txn WHERE h.seq > ? AND h.seq <= ? ORDER BY h.seq",
                (after, upto)).fetchall()
        finally:
            db.close()

    def own_transactions(self, origin: Optional[str], after: int = 0) -> List[Counter]:
        """The writes of one store (its origin) after token ``after``, each as its changes."""
        return [changes for _, changes in self.own_transactions_with_tokens(origin, after)]

    def own_transactions_with_tokens(self, origin: Optional[str], after: int = 0) -> List[Tuple[int, Counter]]:
        if origin is None:
            return []
        db = h.connect(self.path)
        try:
            rows = db.execute(
                "SELECT h.seq, h.txn, h.entity, h.pk, h.op, h.other FROM _fetchd_history h "
                "JOIN _fetchd_transactions t ON t.token = h.txn WHERE h.seq > ? AND t.origin = ? ORDER BY h.seq",
                (after, origin)).fetchall()
        finally:
            db.close()
        # Each transaction by its first row's seq (its place in commit order) and its changes.
        out: List[Tuple[int, Counter]] = []
        current = None
        for seq, txn, entity, pk, op, other in rows:
            if txn != current:
                out.append((seq, Counter()))
                current = txn
            out[-1][1].update(expand(entity, pk, op, other))
        return out

    def deleted_by_others_before(self, object_id: str, origin: Optional[str], seq: int) -> bool:
        """Whether another writer (another fetchd, or the plain one, whose rows have no txn)
        deleted the object before the history row ``seq``: a save that was going to update or
        delete it then drops that change when it merges the delete (protocol.md §5,
        merging), and its answer counts so."""
        entity, pk = object_id.split("/")
        db = h.connect(self.path)
        try:
            return db.execute(
                "SELECT 1 FROM _fetchd_history h LEFT JOIN _fetchd_transactions t ON t.token = h.txn "
                "WHERE h.entity = ? AND h.pk = ? AND h.op = 'D' AND h.seq < ? "
                "AND (t.origin IS NULL OR t.origin != ?) LIMIT 1",
                (entity, int(pk), seq, origin or "")).fetchone() is not None
        finally:
            db.close()

    def origin_of(self, pid: int) -> Optional[str]:
        db = h.connect(self.path)
        try:
            found = [r[0] for r in db.execute("SELECT consumer FROM _fetchd_cursors WHERE consumer LIKE ?",
                                              (f"{pid}-%",))]
        finally:
            db.close()
        fresh = [o for o in found if o not in self.known_origins]
        if len(fresh) != 1:
            self.problems.append(f"pid {pid}: cannot tell its origin among {found}")
            return None
        self.known_origins.add(fresh[0])
        return fresh[0]

    # -- checks ---------------------------------------------------------------------------
    def check_announcements(self, life: Life, upto: int, what: str, count: bool = True) -> None:
        """Every external row in (open_token, upto] announced once, as its transaction, in order."""
        rows = [r for r in self.rows_between(life.open_token, upto) if r[6] is None or r[6] != life.origin]
        at, previous = 0, life.open_token
        for tx in life.announced:
            token = int(tx["token"])
            got = Counter((c["entity"], c["id"], c["type"]) for c in tx["changes"])
            if token <= previous:
                self.problems.append(f"{what}: token {token} announced after {previous} (a duplicate)")
                continue
            chunk = []
            while at < len(rows) and rows[at][0] <= token:
                chunk.append(rows[at])
                at += 1
            if not chunk:
                self.problems.append(f"{what}: token {token} covers no external row after {previous} (a duplicate, "
                                     f"or its own save announced)")
            elif chunk[-1][0] != token or len({r[1] for r in chunk}) != 1:
                self.problems.append(f"{what}: token {token} after {previous} stands for rows "
                                     f"{[(r[0], r[1]) for r in chunk]}: a transaction was skipped or split")
            else:
                expected = Counter(c for r in chunk for c in expand(r[2], r[3], r[4], r[5]))
                if got != expected:
                    self.problems.append(f"{what}: token {token}: announced {dict(got)}, the history holds "
                                         f"{dict(expected)}")
            previous = token
        if at < len(rows):
            self.problems.append(f"{what}: {len(rows) - at} external rows up to token {upto} never announced "
                                 f"(first seq {rows[at][0]}, last announced {previous})")
        if count:
            self.figures["transactions announced"] += len(life.announced)
            self.figures["gaps flagged"] += life.gaps
        if life.gaps:
            self.problems.append(f"{what}: store/didChangeExternally said gap: true (nothing was purged)")

    def check_acknowledged(self, life: Life, what: str) -> None:
        """Each acknowledged save is in the file as sent (less the changes to objects another
        writer deleted first, as its answer counts); the one in flight whole or not at all."""
        txns = self.own_transactions_with_tokens(life.origin, life.open_token)
        lost = 0
        for k, expected in enumerate(life.acked):
            if k >= len(txns):
                lost += 1
                self.problems.append(f"{what}: acknowledged write {k + 1} of {len(life.acked)} is not in the file")
            elif not self.matches(txns[k], expected, life.origin, life.answers[k]):
                lost += 1
                self.problems.append(f"{what}: acknowledged write {k + 1}: sent {expected} (answer "
                                     f"{life.answers[k]}), the file holds {dict(txns[k][1])}")
        extra = txns[len(life.acked):]
        if extra:
            inflight = life.inflight
            ok = len(extra) == 1 and inflight is not None and self.matches(extra[0], inflight, life.origin, None)
            if ok:
                self.figures["in-flight writes committed whole"] += 1
            else:
                self.problems.append(f"{what}: unacknowledged writes in the file {[dict(e) for _, e in extra]}, "
                                     f"in flight: {inflight}")
        elif life.inflight is not None:
            self.figures["in-flight writes rolled back whole"] += 1
        self.figures["acknowledged saves"] += len(life.acked)
        self.figures["lost"] += lost

    def check_integrity(self, what: str) -> None:
        result = h.integrity(self.path)
        self.figures["integrity checks"] += 1
        if result != "ok":
            self.figures["integrity failures"] += 1
            self.problems.append(f"{what}: integrity_check: {result}")

    def check_views(self, life: Life, what: str) -> Dict[str, Dict[str, Any]]:
        """With the file holding still: mirror == controller/rows == context/fetch == the file."""
        assert life.f is not None
        c = life.f.client
        mirror = life.mirror_rows()
        rows = [dict(o) for s in range(len(life.controller.sections()))
                for o in c.controller_rows("notes", s)["objects"]]
        fetched = c.context_fetch("main", h.NOTES_REQUEST)["objects"]
        file_rows = h.note_rows(self.path)
        if mirror != rows or mirror != fetched:
            self.figures["mirror mismatches"] += 1
            self.problems.append(f"{what}: mirror {len(mirror)} rows, controller/rows {len(rows)}, fetch "
                                 f"{len(fetched)}: they differ")
        if {r["id"]: r for r in fetched} != file_rows:
            self.figures["mirror mismatches"] += 1
            missing = set(file_rows) ^ {r["id"] for r in fetched}
            self.problems.append(f"{what}: context/fetch differs from the file's rows (ids differing: "
                                 f"{sorted(missing)[:5]})")
        return file_rows

    def check_writer_log(self, w: "FetchdWriter") -> None:
        """Each acknowledged write of a fetchd writer is its next transaction in the file. A save
        writes what its answer counts: under objectTrump an update of an object another process
        deleted meanwhile writes it again (an insert); a save that wrote nothing has none."""
        written = self.own_transactions(w.origin)
        at, wrong = 0, 0
        for k, (sent, answer, is_save) in enumerate(w.log):
            txn = written[at] if at < len(written) else None
            if is_save:
                counts = {kind: answer[counted] for kind, counted in ANSWER_KEYS.items()}
                if not any(counts.values()):
                    self.figures["writer saves that wrote nothing"] += 1  # objectTrump: a delete already done
                    continue
                ok = txn is not None and {i for (_, i, _) in txn} == {i for (_, i, _) in sent} and all(
                    sum(n for (_, _, t), n in txn.items() if t == kind) == m for kind, m in counts.items())
            else:
                ok = txn == sent
            if ok:
                at += 1
                continue
            wrong += 1
            self.problems.append(f"writer {w.name}: acknowledged write {k + 1} {dict(sent)} (answer {answer}) is "
                                 f"not its next transaction in the file ({dict(txn) if txn else 'none left'})")
            if wrong > 5:
                return
        if at != len(written):
            self.problems.append(f"writer {w.name}: {len(written) - at} transactions in the file it never acknowledged")

    # -- the victim -----------------------------------------------------------------------
    def spawn_victim(self, life: Life) -> None:
        trace = ["--trace", h.log_path(f"victim-{life.index}") + ".trace"] if os.environ.get("FAULTS_TRACE") else []
        life.f = h.Fetchd(f"victim-{life.index}", ["--watch", "auto", *trace])
        life.f.client.add_listener(life.listen)

    def open_victim(self, life: Life, token: Optional[int]) -> None:
        assert life.f is not None
        c = life.f.client
        c.store_open(model=h.NOTES_MODEL, path=self.path, history_token=token)
        life.origin = self.origin_of(life.f.pid)
        # A watching fetchd announces what followed the token before its first answer after the open.
        c.context_create("edit", transaction_author=f"victim-{life.index}")
        life.controller = c.controller("main", "notes", h.NOTES_REQUEST)

    def drain(self, life: Life) -> None:
        """After the kill: everything fetchd wrote before dying, read to the end and dispatched,
        after what the client had read but held back (notifications that came after the last
        answer it waited for: a watching fetchd's merge). Without those first, the mirror
        would take the next cycle on a state it never reached."""
        assert life.f is not None
        if life.f.client.held_back():
            self.figures["kill: notifications held back by the client"] += 1
        try:
            life.f.client.wait_for_notifications(0)
        except Exception as error:  # noqa: BLE001
            life.mirror_errors.append(repr(error))
        stdout = life.f.process.stdout
        assert stdout is not None
        fd = stdout.fileno()
        while True:
            ready, _, _ = select.select([fd], [], [], h.REPLY_TIMEOUT)
            if not ready:
                raise AssertionError("a killed fetchd's output did not end")
            data = os.read(fd, 1 << 20)
            if not data:
                break
            try:
                life.f.client.core.receive(data)
            except Exception as error:  # noqa: BLE001
                life.mirror_errors.append(repr(error))
        error = life.f.client.core.take_handler_error()
        if error is not None:
            life.mirror_errors.append(repr(error))

    def kill(self, life: Life) -> None:
        assert life.f is not None
        life.f.kill()
        self.drain(life)
        life.f.client.core.abandon()
        life.f.client.close(timeout=5)
        self.figures["kills"] += 1

    def victim_write(self, life: Life, send_only: bool = False, kind: Optional[str] = None) -> None:
        """One save or batch of the victim (``kind``: save, batch or update; else seeded);
        acknowledged ones are recorded. With send_only the request is written and left
        unanswered (the kill follows). Expected changes: a Counter of (entity, id, type), or
        ("insert", n) for a batch insert whose ids come with its answer, or ("trim", None) for
        the batch delete of every row the victim's batches inserted (keeping the table small)."""
        assert life.f is not None
        c, rng = life.f.client, self.data_rng
        roll = self.rng.random() if kind is None else {"save": 0.0, "batch": 0.7, "update": 0.9}[kind]
        expected: Any = Counter()
        rows = life.mirror_rows()
        if 0.6 <= roll < 0.85 and sum(1 for r in rows if r["title"].startswith("vb")) > 1000:
            method, params = "store/batchDelete", {"entity": "Note", "predicate": "title BEGINSWITH 'vb'"}
            expected = ("trim", None)
        elif roll < 0.6:
            for _ in range(rng.choice([0, 1, 2, 3, 30, 150]) if send_only else rng.randint(0, 3)):
                o = c.context_insert("edit", "Note", {"title": f"v{life.index}-{rng.random():.6f}",
                                                      "rank": rng.randint(0, 9)})["object"]
                expected[("Note", o["id"], "insert")] += 1
            targets = rng.sample(rows, min(len(rows), 2))
            if targets and rng.random() < 0.5:
                try:
                    c.context_update("edit", targets[0]["id"], {"title": f"u{life.index}-{rng.random():.6f}"})
                    expected[("Note", targets[0]["id"], "update")] += 1
                except h.FetchdError:
                    pass
            if len(targets) > 1 and rng.random() < 0.4:
                try:
                    c.context_delete("edit", targets[1]["id"])
                    expected[("Note", targets[1]["id"], "delete")] += 1
                except h.FetchdError:
                    pass
            if not expected:
                o = c.context_insert("edit", "Note", {"title": f"v{life.index}-{rng.random():.6f}", "rank": 0})["object"]
                expected[("Note", o["id"], "insert")] += 1
            method, params = "context/save", {"context": "edit"}
        elif roll < 0.85:
            n = rng.randint(1, 400) if not send_only else rng.randint(50, 3000)
            method = "store/batchInsert"
            params = {"entity": "Note", "returnIds": True, "keys": ["title", "rank"],
                      "rows": [[f"vb{life.index}-{i}", rng.randint(0, 9)] for i in range(n)]}
            expected = ("insert", n)
        else:
            targets = rng.sample(rows, min(len(rows), rng.randint(1, 3)))
            if not targets:
                return self.victim_write(life, send_only, "save")
            method = "store/batchUpdateObjects"
            params = {"entity": "Note", "objects": [{"id": t["id"], "title": f"vu{life.index}-{rng.random():.6f}"}
                                                    for t in targets]}
            expected = Counter(("Note", t["id"], "update") for t in targets)
        request_id, data = c.core.request(method, params)
        c.write(data)
        if send_only:
            life.inflight, life.inflight_id, life.inflight_method = expected, request_id, method
            return
        (response,) = c.wait([request_id])
        self.settle(life, response, expected, method)

    def settle(self, life: Life, response: Any, expected: Any, method: str, alive: bool = True) -> None:
        """Records a write's answer: acknowledged (what it wrote), or refused."""
        if response.error is None:
            if method == "store/batchInsert":
                expected = Counter(("Note", i, "insert") for i in response.result["ids"])
            elif method == "store/batchDelete":
                expected = ("delete", response.result["count"])
                self.figures["victim trims (batch deletes)"] += 1
                if not expected[1]:
                    return  # nothing matched: nothing written
            if method == "context/save" and not any(response.result[k] for k in ANSWER_KEYS.values()):
                # Every change it held was to objects others deleted first: it wrote nothing.
                self.figures["victim saves that wrote nothing"] += 1
                return
            life.acked.append(expected)
            life.answers.append(response.result if method == "context/save" else None)
            if isinstance(expected, Counter) and method == "context/save":  # the others leave batch rows be
                self.shared.add([pk_of(i) for (_, i, t) in expected if t == "insert"])
        else:
            self.figures[f"victim {response.error.kind}"] += 1
            if response.error.kind not in EXPECTED_WRITE_ERRORS:
                self.problems.append(f"victim {method}: {response.error}")
            if method == "context/save" and alive:
                life.f.client.context_rollback("edit")

    def matches(self, txn: Tuple[int, Counter], expected: Any, origin: Optional[str],
                answer: Optional[Dict[str, Any]]) -> bool:
        """Whether one transaction in the file is exactly the write that was sent. A save may
        leave out an update or delete of an object another writer deleted before it (the
        merge dropped that change); then its answer, when there is one, counts what it wrote."""
        first_seq, written = txn
        if isinstance(expected, Counter):
            if written == expected:
                return True
            if any(written[c] > n for c, n in expected.items()) or any(c not in expected for c in written):
                return False
            missing = [c for c, n in expected.items() if written[c] < n]
            if any(kind == "insert" or not self.deleted_by_others_before(i, origin, first_seq)
                   for _, i, kind in missing):
                return False
            self.figures["victim changes dropped (deleted by another writer first)"] += len(missing)
            if answer is None:
                return True
            kinds = Counter(kind for (_, _, kind), n in written.items() for _ in range(n))
            return all(kinds[k] == answer[counted] for k, counted in ANSWER_KEYS.items())
        kind, n = expected
        if kind == "trim":  # whole: not one of the victim's batch rows is left (no one else makes them)
            db = h.connect(self.path)
            try:
                left = db.execute("SELECT count(*) FROM Note WHERE title LIKE 'vb%'").fetchone()[0]
            finally:
                db.close()
            return {t for _, _, t in written} == {"delete"} and left == 0
        return {t for _, _, t in written} == {kind} and sum(written.values()) == n

    def kill_at_a_seeded_moment(self, life: Life) -> str:
        assert life.f is not None
        rng = self.rng
        mode = rng.choice(["between requests", "during a merge", "save in flight", "batch in flight",
                           "save in flight"])
        life.inflight_id = None
        if mode == "between requests":
            life.f.client.wait_for_notifications(rng.uniform(0, 0.05))
        elif mode == "during a merge":  # the first notification of a merge read: the rest is being written
            life.f.client.wait_for_notifications(h.REPLY_TIMEOUT, until="controller/willChangeContent")
        else:
            self.victim_write(life, send_only=True, kind="save" if mode == "save in flight" else "batch")
            time.sleep(rng.choice([0, rng.uniform(0, 0.0005), rng.uniform(0, 0.004)]))
        self.kill(life)
        if life.inflight_id is not None and life.f.client.core.is_answered(life.inflight_id):
            # Answered before the kill: it is acknowledged (a client could have read it).
            response = life.f.client.core.take(life.inflight_id)
            inflight, life.inflight = life.inflight, None
            self.settle(life, response, inflight, life.inflight_method, alive=False)
            self.figures["in-flight writes answered before the kill"] += 1
        self.figures[f"kill: {mode}"] += 1
        return mode

    # -- the writers ----------------------------------------------------------------------
    def pause_writers(self) -> None:
        for w in self.writers:
            w.pause_requested.set()
        for w in self.writers:
            if not w.step_lock.acquire(timeout=h.REPLY_TIMEOUT):
                raise AssertionError(f"writer {w.name} did not pause")
            w.step_lock.release()
            if w.failure is not None:
                raise AssertionError(f"writer {w.name} failed: {w.failure!r}")

    def resume_writers(self) -> None:
        for w in self.writers:
            w.pause_requested.clear()

    def stop_writers(self) -> None:
        for w in self.writers:
            w.stop_requested.set()
        for w in self.writers:
            w.join(h.REPLY_TIMEOUT)

    # -- the test -------------------------------------------------------------------------
    def test_kill_nine_while_others_write(self) -> None:
        try:
            self.run_rounds()
        except Exception as error:
            logs = os.path.join(h.WORKDIR, "logs")
            tails = "".join(f"\n--- {name} (stderr, last lines):\n{h.tail(os.path.join(logs, name), 8)}"
                            for name in sorted(os.listdir(logs)) if name.endswith(".log")
                            and os.path.getsize(os.path.join(logs, name)) > 0) if os.path.isdir(logs) else ""
            if tails:
                raise AssertionError(f"{error!r}{tails}") from error
            raise

    def run_rounds(self) -> None:
        started = time.monotonic()
        h.summary("kill-9 start", seed=SEED, kills=KILLS, store=self.path)
        life = Life(0, 0)
        self.spawn_victim(life)
        self.addCleanup(lambda: life.f.kill() if life.f else None)
        self.open_victim(life, None)
        life.open_token = life.last_token = life.f.client.store_history_token()["token"]

        self.writers = [
            FetchdWriter("B", SEED * 1000 + 1, self.shared, self.path, "auto", "objectTrump"),
            FetchdWriter("C", SEED * 1000 + 2, self.shared, self.path, "off", "error"),
            PlainWriter("P", SEED * 1000 + 3, self.shared, self.path),
        ]
        self.addCleanup(self.stop_writers)
        for w in self.writers:
            if isinstance(w, FetchdWriter):
                self.addCleanup(w.f.kill)
                w.origin = self.origin_of(w.f.pid)
        for w in self.writers:
            w.start()

        for round_ in range(KILLS):
            for _ in range(self.rng.randint(1, 8)):
                self.victim_write(life)
                life.f.client.wait_for_notifications(self.rng.uniform(0, 0.03))
                if self.rng.random() < 0.15:
                    # A quiescent point within the life: the others hold still, the victim merges
                    # what is left, and its mirror must be the file. (controller/rows is only read
                    # at such points: see test_concurrency.py for why.)
                    self.pause_writers()
                    result = life.f.client.store_check_external_changes()
                    life.last_token = max(life.last_token, result["token"])
                    self.check_views(life, f"round {round_ + 1} (life {life.index}), a quiescent point")
                    self.figures["quiescent checks within lives"] += 1
                    self.resume_writers()
            mode = self.kill_at_a_seeded_moment(life)
            self.pause_writers()
            what = f"round {round_ + 1} (life {life.index}, killed {mode})"
            if life.mirror_errors:
                self.problems.append(f"{what}: mirror: {life.mirror_errors}")
            self.check_announcements(life, life.last_token, what)
            self.check_acknowledged(life, what)
            self.check_integrity(what)
            picture = {r["id"]: r for r in life.mirror_rows()}
            touched: Set[str] = set()
            token = life.last_token

            if self.rng.random() < 0.2:  # killed again, during the replay of its restart
                replay = Life(life.index + 1, token)
                self.spawn_victim(replay)
                c = replay.f.client
                ids, data = c.core.pipeline([
                    ("store/open", {"path": self.path, "model": h.NOTES_MODEL, "historyToken": token}),
                    ("context/create", {"name": "edit"}), ("server/ping", None)])
                c.write(data)
                time.sleep(self.rng.uniform(0, 0.01))
                self.kill(replay)
                self.figures["kill: during the replay of a restart"] += 1
                self.check_announcements(replay, replay.last_token, f"{what}, killed again in its replay")
                touched |= {c["id"] for tx in replay.announced for c in tx["changes"]}
                token = replay.last_token
                life = replay

            life = Life(life.index + 1, token)
            self.spawn_victim(life)
            self.open_victim(life, token)
            result = life.f.client.store_check_external_changes()
            life.last_token = max(life.last_token, result["token"])
            newest = h.max_token(self.path)
            if result["merged"] != 0 or result["token"] != newest:
                self.problems.append(f"{what}: after the restart's replay, checkExternalChanges answered {result}, "
                                     f"the newest token is {newest}")
            self.check_announcements(life, newest, f"{what}: the restart's replay", count=False)
            touched |= {c["id"] for tx in life.announced for c in tx["changes"]}
            file_rows = self.check_views(life, f"{what}, restarted")
            stale = sorted(i for i in set(picture) | set(file_rows)
                           if i not in touched and picture.get(i) != file_rows.get(i))
            if stale:
                self.figures["unannounced changes"] += len(stale)
                self.problems.append(f"{what}: changed since the last token but not announced by the restart: "
                                     f"{[(i, picture.get(i), file_rows.get(i)) for i in stale[:3]]}")
            self.figures["objects named by replays"] += len(touched)
            if self.problems and os.environ.get("FAULTS_STOP_AT_FIRST"):
                raise AssertionError(f"stopped at the first problem: {self.problems}")
            self.resume_writers()

        # The end: the writers stop; the last life has heard everything and saved everything.
        self.pause_writers()
        self.stop_writers()
        c = life.f.client
        result = c.store_check_external_changes()
        life.last_token = max(life.last_token, result["token"])
        newest = h.max_token(self.path)
        self.check_announcements(life, newest, f"the last life ({life.index})")
        self.check_acknowledged(life, f"the last life ({life.index})")
        self.check_views(life, "the end")
        self.check_integrity("the end")
        self.assertEqual(life.f.close(), 0, life.f.stderr_tail())
        for w in self.writers:
            if isinstance(w, FetchdWriter):
                self.assertEqual(w.f.close(), 0, w.f.stderr_tail())
                self.check_writer_log(w)
            else:
                assert isinstance(w, PlainWriter)
                db = h.connect(self.path)
                try:
                    present = {r[0] for r in db.execute("SELECT seq FROM _fetchd_history WHERE txn IS NULL")}
                finally:
                    db.close()
                missing = [s for s in w.rows if s not in present]
                if missing:
                    self.problems.append(f"plain writer: committed history rows missing: {missing[:5]}")
            if w.unexpected:
                self.problems.append(f"writer {w.name}: unexpected errors {w.unexpected[:3]}")
            if w.failure is not None:
                self.problems.append(f"writer {w.name} failed: {w.failure!r}")
        self.check_integrity("after every process closed")

        f = self.figures
        h.summary("kill-9", seed=SEED, kills=f["kills"], acknowledged_saves=f["acknowledged saves"], lost=f["lost"],
                  integrity_failures=f["integrity failures"], integrity_checks=f["integrity checks"],
                  announced_transactions=f["transactions announced"], problems=len(self.problems),
                  inflight_committed=f["in-flight writes committed whole"],
                  inflight_rolled_back=f["in-flight writes rolled back whole"],
                  inflight_answered=f["in-flight writes answered before the kill"],
                  quiescent_checks=f["quiescent checks within lives"], trims=f["victim trims (batch deletes)"],
                  dropped_as_deleted_by_others=f["victim changes dropped (deleted by another writer first)"],
                  writers="/".join(f"{w.name}:{w.acked}" for w in self.writers),
                  writer_saves_that_wrote_nothing=f["writer saves that wrote nothing"],
                  writer_errors=dict(sum((w.errors for w in self.writers), Counter())),
                  seconds=round(time.monotonic() - started, 1))
        h.summary("kill-9 modes", **{k.replace(" ", "_").replace(":", ""): v for k, v in f.items()
                                     if k.startswith("kill") or k.startswith("victim")})
        for p in self.problems[:20]:
            h.summary("kill-9 problem", detail=p)
        self.assertEqual(f["lost"], 0, "acknowledged saves lost")
        self.assertEqual(f["integrity failures"], 0)
        self.assertEqual(self.problems, [])


if __name__ == "__main__":
    unittest.main()
