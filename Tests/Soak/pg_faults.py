"""PostgreSQL faults a fetchd must survive (scripts/test-pg-faults.sh runs this against a
throwaway cluster; see Tests/Soak/README.md).

Three clients share one schema: A, the fetchd under test (`--watch auto`, a context with
transactionAuthor "A" and a controller whose mirror is built only from notifications); B,
another fetchd (`--watch off`, author "B"); P, a plain SQL writer (psycopg2). Our own
sessions (psycopg2) find A's backends by the application_name A's URL carries (fetchd sets
none of its own, protocol.md §5 "Sessions"; its LISTEN connection is the one whose last query
is LISTEN), hold locks so that A's request stops at a KNOWN point, and terminate A's backend
there:

  a1  save waiting for the writers' lock (P holds it: an INSERT in an open transaction)
  a2  save half done: its inserts written, its UPDATE waiting on a row P locked FOR UPDATE
  a3  save at COMMIT: the deferred foreign-key check waiting on a Folder row locked FOR UPDATE
  a4  save at COMMIT after the commit record is written: waiting for a synchronous standby
      that does not exist (synchronous_standby_names; only A's sessions commit synchronously)
  b   store/batchInsert of 1000 rows (the COPY path) waiting for a table lock (LOCK TABLE)
  c   idle: all of A's backends (store, LISTEN, upkeep) terminated between requests
  d   the server stopped (pg_ctl stop -m fast) and started again

Expected (protocol.md §3 storeUnavailable, §5 "A PostgreSQL server", "Watching"): the
request answers `storeUnavailable` (-32016) and nothing of it is in the database, except in
a4, where the transaction committed before the connection broke: fetchd checks on a new
session that its transaction's row is in `_fetchd_transactions` and the save answers success
(every row of it in the store, no retry needed); requests
while the server is down answer only `storeUnavailable`; fetchd reconnects by itself (a later
request succeeds, the process is never restarted); no write acknowledged by A, B or P is
lost; and A announces what B and P committed during and after the outage exactly once: B's
save tokens and P's inserted ids, and the changes A announced equal store/history's (A's own
transactions left out), in order, with no `gap`. A's mirror equals controller/rows and a
fresh context/fetch after every case.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import threading
import time
import traceback
from typing import Any, Callable, Dict, List, Optional, Tuple

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from soaklib import (  # noqa: E402
    Failure,
    FetchdError,
    add_to_url,
    exact_check,
    install_sigterm,
    pg_connect,
    rss_kb,
    spawn,
    stop_client,
)

MODEL = {
    "entities": [
        {
            "name": "Folder",
            "attributes": {"name": {"type": "string"}},
            "relationships": {"notes": {"destination": "Note", "toMany": True, "inverse": "folder"}},
        },
        {
            "name": "Note",
            "attributes": {"title": {"type": "string"}, "rank": {"type": "integer", "default": 0}},
            "relationships": {"folder": {"destination": "Folder", "inverse": "notes"}},
        },
    ]
}
REQUEST = {"entity": "Note", "sortDescriptors": [{"key": "title"}]}
ALL_CASES = ["a1", "a2", "a3", "a4", "b", "c", "d"]
# Cases that fail because of a fetchd bug found by this test (see Tests/Soak/README.md).
# None now: a4 (bug 1, a COMMIT whose outcome was lost answered "nothing was written") is fixed.
KNOWN_BUGS: Dict[str, str] = {}
# Generous bounds: nothing here is a timing threshold that can flake on a slow machine.
RECOVER_SECONDS = 60.0
KNOWN_POINT_SECONDS = 4.0  # under the 5 s busy timeout, after which the lock wait ends by itself


def log(msg: str) -> None:
    print(msg, flush=True)


class Outcome:
    def __init__(self, value: Any = None, error: Optional[FetchdError] = None) -> None:
        self.value, self.error = value, error

    @property
    def kind(self) -> str:
        return "success" if self.error is None else str(self.error.kind)


def attempt(fn: Callable[[], Any]) -> Outcome:
    try:
        return Outcome(fn())
    except FetchdError as e:
        return Outcome(error=e)


class Faults:
    def __init__(self, binary: str, url: str, cluster: str, workdir: str) -> None:
        self.binary, self.url, self.cluster, self.workdir = binary, url, cluster, workdir
        self.schema = f"faults_{os.getpid()}"
        self.app_a = f"{self.schema}_a"
        self.app_b = f"{self.schema}_b"
        self.bindir = subprocess.run(
            [os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "scripts",
                          "pg-cluster.sh"), "bindir"], check=True, capture_output=True, text=True).stdout.strip()
        self.A: Any = None
        self.B: Any = None
        self.sync_standby_set = False
        self.server_down = False
        self.phantoms_total = 0
        self.counter = 0
        # What was acknowledged: Note id -> (title, rank), or None once an acknowledged delete.
        self.expect: Dict[str, Optional[Tuple[str, int]]] = {}
        # Writes answered with an error ("nothing was written"): id -> title, never acknowledged later.
        self.refused: Dict[str, str] = {}
        self.a_tokens: List[int] = []  # A's own batch transactions (its saves carry author "A")
        self.b_tokens: List[int] = []
        self.p_ids: List[str] = []
        self.announced: List[Dict[str, Any]] = []  # A's store/didChangeExternally transactions
        self.gaps = 0
        self.notifications = 0
        self.results: List[Dict[str, Any]] = []

    # -- sessions ---------------------------------------------------------------------------
    def connect_sessions(self) -> None:
        self.admin = pg_connect(self.url, application_name=f"{self.schema}_admin")
        self.plain = pg_connect(self.url, application_name=f"{self.schema}_plain")
        self.holder = pg_connect(self.url, autocommit=False, application_name=f"{self.schema}_holder")

    def close_sessions(self) -> None:
        for name in ("admin", "plain", "holder"):
            conn = getattr(self, name, None)
            if conn is not None:
                try:
                    conn.close()
                except Exception:
                    pass

    def q(self, table: str) -> str:
        return f'"{self.schema}"."{table}"'

    def sql(self, statement: str, params: Tuple[Any, ...] = ()) -> List[Tuple[Any, ...]]:
        cur = self.admin.cursor()
        cur.execute(statement, params)
        return cur.fetchall() if cur.description else []

    def a_backends(self) -> List[Tuple[int, str]]:
        return [(int(p), str(q)) for p, q in self.sql(
            "SELECT pid, query FROM pg_stat_activity WHERE application_name = %s", (self.app_a,))]

    # -- the three writers ------------------------------------------------------------------
    def start(self) -> None:
        self.connect_sessions()
        self.sql(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')
        # A commits synchronously (only matters for a4, where a standby is required).
        url_a = add_to_url(self.url, application_name=self.app_a, options="-c synchronous_commit=on")
        self.A = spawn(self.binary, ["--watch", "auto"], os.path.join(self.workdir, "fetchd-A.log"))
        self.A.open_store(MODEL, url=url_a, schema=self.schema)
        self.t_open = self.A.store_history_token()["token"]
        self.B = spawn(self.binary, ["--watch", "off"], os.path.join(self.workdir, "fetchd-B.log"))
        self.B.open_store(MODEL, url=add_to_url(self.url, application_name=self.app_b), schema=self.schema)
        self.a = self.A.create_context("a", transaction_author="A")
        self.b = self.B.create_context("b", transaction_author="B")
        self.A.add_listener(self.heard)
        self.ctl = self.A.controller("a", "notes", REQUEST)
        self.folder = self.a.insert("Folder", {"name": "inbox"})["id"]
        self.seed = [self.a.insert("Note", {"title": f"seed-{i}", "rank": i, "folder": self.folder})["id"]
                     for i in range(4)]
        self.a.save()
        for i, nid in enumerate(self.seed):
            self.expect[nid] = (f"seed-{i}", i)
        self.rss_start = rss_kb(self.A.process.pid)

    def heard(self, method: str, params: Any) -> None:
        self.notifications += 1
        if method == "store/didChangeExternally":
            if params.get("gap"):
                self.gaps += 1
            self.announced.extend(params.get("transactions", []))

    def title(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}-{self.counter:03d}"

    def a_insert(self, prefix: str, rank: int = 0) -> Tuple[str, str]:
        t = self.title(prefix)
        return self.a.insert("Note", {"title": t, "rank": rank, "folder": self.folder})["id"], t

    def a_pending(self) -> Dict[str, Tuple[str, int]]:
        """A's unsaved inserts and updates, as they would be written."""
        ch = self.a.changes()
        ids = ch["inserted"] + ch["updated"]
        notes = [i for i in ids if i.startswith("Note/")]
        objs = self.a.get(notes) if notes else []
        return {o["id"]: (o["title"], o["rank"]) for o in objs}

    def a_saved(self, pending: Dict[str, Tuple[str, int]]) -> None:
        self.expect.update(pending)
        for nid in pending:
            self.refused.pop(nid, None)

    def b_write(self, prefix: str) -> Optional[str]:
        """B inserts a note and saves (retrying storeUnavailable/storeBusy); its token is
        exact because no one else writes at that moment."""
        t = self.title(prefix)
        nid = self.b.insert("Note", {"title": t, "rank": 7})["id"]
        deadline = time.monotonic() + RECOVER_SECONDS
        while True:
            out = attempt(self.b.save)
            if out.error is None:
                break
            if out.kind not in ("storeUnavailable", "storeBusy") or time.monotonic() > deadline:
                raise Failure(f"B's save answered {out.kind}: {out.error}")
            time.sleep(0.1)
        self.expect[nid] = (t, 7)
        self.b_tokens.append(self.B.store_history_token()["token"])
        return nid

    def p_write(self, prefix: str) -> str:
        t = self.title(prefix)
        cur = self.plain.cursor()
        cur.execute(f'INSERT INTO {self.q("Note")} (title, rank) VALUES (%s, 3) RETURNING _pk', (t,))
        nid = f"Note/{cur.fetchone()[0]}"
        self.expect[nid] = (t, 3)
        self.p_ids.append(nid)
        return nid

    # -- the known point --------------------------------------------------------------------
    def killer(self, predicate: Callable[[str, str, str], bool]) -> Tuple[threading.Thread, Dict[str, Any]]:
        """Terminates A's store backend (not its LISTEN connection) once it waits as
        `predicate(wait_event_type, wait_event, query)` says; records where it stood."""
        found: Dict[str, Any] = {}
        conn = pg_connect(self.url, application_name=f"{self.schema}_killer")

        def run() -> None:
            try:
                cur = conn.cursor()
                deadline = time.monotonic() + KNOWN_POINT_SECONDS
                while time.monotonic() < deadline:
                    cur.execute(
                        "SELECT pid, coalesce(wait_event_type, ''), coalesce(wait_event, ''), query"
                        " FROM pg_stat_activity WHERE application_name = %s AND state = 'active'"
                        " AND query NOT LIKE 'LISTEN%%'", (self.app_a,))
                    for pid, wt, we, query in cur.fetchall():
                        if predicate(wt, we, query):
                            cur.execute("SELECT pg_terminate_backend(%s)", (pid,))
                            found.update(pid=pid, wait=f"{wt}:{we}", query=" ".join(query.split())[:70],
                                         terminated=cur.fetchone()[0])
                            return
                    time.sleep(0.005)
            finally:
                conn.close()

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread, found

    # -- checks -----------------------------------------------------------------------------
    def store_rows(self) -> Dict[str, Tuple[str, int]]:
        return {f"Note/{pk}": (t, r) for pk, t, r in self.sql(f'SELECT _pk, title, rank FROM {self.q("Note")}')}

    def lost_and_phantoms(self) -> Tuple[List[str], List[str]]:
        rows = self.store_rows()
        lost = [i for i, v in self.expect.items() if (v is None and i in rows) or (v is not None and rows.get(i) != v)]
        phantoms = [i for i, t in self.refused.items() if i in rows and rows[i][0] == t]
        # An acknowledged row that a refused write overwrote anyway counts as a phantom.
        return [i for i in lost if i not in phantoms], phantoms

    def adopt_phantoms(self, phantoms: List[str]) -> None:
        """After a case reported them: take what the store holds as the baseline, so the next
        cases are judged on their own."""
        rows = self.store_rows()
        for i in phantoms:
            self.expect[i] = rows.get(i)
            self.refused.pop(i, None)

    def recover(self, fn: Callable[[], Any], allowed: Tuple[str, ...] = ("storeUnavailable",)) -> Tuple[Outcome, int, float]:
        """Repeats `fn` until it succeeds; (outcome, answers before success, seconds)."""
        t0 = time.monotonic()
        failures = 0
        while True:
            out = attempt(fn)
            if out.error is None:
                return out, failures, round(time.monotonic() - t0, 2)
            if out.kind not in allowed:
                return out, failures, round(time.monotonic() - t0, 2)
            failures += 1
            if time.monotonic() - t0 > RECOVER_SECONDS:
                return out, failures, round(time.monotonic() - t0, 2)
            time.sleep(0.05)

    def announced_b_and_p(self) -> Tuple[Dict[int, int], Dict[str, int]]:
        b: Dict[int, int] = {}
        p: Dict[str, int] = {}
        for t in self.announced:
            if t.get("author") == "B":
                b[t["token"]] = b.get(t["token"], 0) + 1
            elif t.get("author") is None:
                for c in t["changes"]:
                    if c["type"] == "insert" and c["id"] in self.p_ids:
                        p[c["id"]] = p.get(c["id"], 0) + 1
        return b, p

    def all_announced(self) -> bool:
        b, p = self.announced_b_and_p()
        return all(t in b for t in self.b_tokens) and all(i in p for i in self.p_ids)

    def settle(self, passive: bool = False, timeout: float = 30.0) -> bool:
        """Until A announced every B and P commit: passively (A's watch alone, no request) or
        asking (store/checkExternalChanges)."""
        deadline = time.monotonic() + timeout
        while not self.all_announced() and time.monotonic() < deadline:
            if passive:
                self.A.wait_for_notifications(0.5)
            else:
                out = attempt(self.A.store_check_external_changes)
                if out.error is not None and out.kind != "storeUnavailable":
                    raise Failure(f"store/checkExternalChanges answered {out.kind}")
                if not self.all_announced():
                    self.A.wait_for_notifications(0.2)
        return self.all_announced()

    def verify(self, r: Dict[str, Any]) -> None:
        """The checks every case ends with (appends problems to r['problems'])."""
        if not self.settle():
            r["problems"].append("A did not announce every B/P commit within 30 s")
        ok, why = exact_check(self.A, self.ctl, "a", REQUEST)
        r["mirror"] = "equal" if ok else why
        if not ok:
            r["problems"].append(f"mirror: {why}")
        lost, phantoms = self.lost_and_phantoms()
        r["lost"] = len(lost)
        r["phantoms"] = len(phantoms)
        if lost:
            r["problems"].append(f"acknowledged writes lost: {lost[:5]}")
        if phantoms:
            r["problems"].append(f"writes answered 'nothing was written' are in the store: {phantoms[:5]}")
            self.phantoms_total += len(phantoms)
            self.adopt_phantoms(phantoms)
        b, p = self.announced_b_and_p()
        dup_b = [t for t, n in b.items() if n != 1]
        dup_p = [i for i, n in p.items() if n != 1]
        missing = [t for t in self.b_tokens if t not in b] + [i for i in self.p_ids if i not in p]
        extra_b = [t for t in b if t not in self.b_tokens]
        if dup_b or dup_p or missing or extra_b:
            r["problems"].append(f"history: duplicates {dup_b + dup_p}, missing {missing}, unknown B tokens {extra_b}")
        tokens = [t["token"] for t in self.announced]
        if tokens != sorted(set(tokens)):
            r["problems"].append("announced tokens are not strictly increasing")
        if self.gaps:
            r["problems"].append(f"{self.gaps} announcement(s) with gap: true")
        if self.A.process.poll() is not None:
            r["problems"].append(f"fetchd A exited ({self.A.process.returncode})")

    def outage_writes(self, r: Dict[str, Any], tag: str) -> None:
        b0, p0 = len(self.b_tokens), len(self.p_ids)
        self.b_write(f"{tag}-B")
        self.p_write(f"{tag}-P")
        r["outage_writes"] = f"B {len(self.b_tokens) - b0}, P {len(self.p_ids) - p0}"

    # -- the cases --------------------------------------------------------------------------
    def blocked_save(self, r: Dict[str, Any], hold: Callable[[], Any], predicate: Callable[[str, str, str], bool],
                     edits: Callable[[], None], release: Callable[[], None]) -> None:
        """The save cases: A's unsaved edits, a lock held so that the save waits at a known
        point, A's backend terminated there, then the outage writes and recovery."""
        edits()
        pending = self.a_pending()
        hold()
        thread, found = self.killer(predicate)
        out = attempt(self.a.save)
        thread.join()
        release()
        r["known_point"] = f"{found.get('wait', 'NOT REACHED')} in {found.get('query', '')!r}"
        r["answer"] = out.kind
        if not found:
            r["problems"].append("the save never waited at the known point (nothing was terminated)")
        rows = self.store_rows()
        written = [i for i, v in pending.items() if rows.get(i) == v]
        if out.error is None:
            self.a_saved(pending)
            r["in_store_after_answer"] = f"{len(written)}/{len(pending)}"
            if len(written) != len(pending):
                r["problems"].append("save answered success but its rows are not all in the store")
        else:
            r["in_store_after_answer"] = f"{len(written)}/{len(pending)}"
            if out.kind != "storeUnavailable":
                r["problems"].append(f"expected storeUnavailable, got {out.kind}: {out.error}")
            if written:
                r["problems"].append(
                    f"answered {out.kind} ('nothing was written') but {len(written)}/{len(pending)} of the save's "
                    "rows are in the store")
            for i, v in pending.items():
                self.refused[i] = v[0]
        self.outage_writes(r, r["case"])
        if out.error is not None:
            again, before, secs = self.recover(self.a.save)
            r["unavailable_before_success"] = before
            r["recovered_s"] = secs
            r["retry"] = again.kind
            if again.error is None:
                self.a_saved(pending)
            else:
                r["problems"].append(f"the retried save answered {again.kind}: {again.error.message}")
                # Let the next cases start clean: drop A's unsaved changes (what the store
                # holds of them anyway stays counted as phantoms by verify).
                self.a.rollback()
        self.b_write(f"{r['case']}-after-B")
        self.p_write(f"{r['case']}-after-P")

    def case_a1(self, r: Dict[str, Any]) -> None:
        held: Dict[str, Any] = {}

        def hold() -> None:
            cur = self.holder.cursor()
            t = self.title("a1-P-holding")
            cur.execute(f'INSERT INTO {self.q("Note")} (title, rank) VALUES (%s, 3) RETURNING _pk', (t,))
            held["id"], held["title"] = f"Note/{cur.fetchone()[0]}", t

        def release() -> None:
            self.holder.commit()  # P's write lands during A's outage
            self.expect[held["id"]] = (held["title"], 3)
            self.p_ids.append(held["id"])

        self.blocked_save(r, hold, lambda wt, we, q: wt == "Lock" and "advisory" in we,
                          lambda: (self.a_insert("a1"), None)[1], release)

    def case_a2(self, r: Dict[str, Any]) -> None:
        target = self.seed[1]

        def hold() -> None:
            self.holder.cursor().execute(
                f'SELECT 1 FROM {self.q("Note")} WHERE _pk = %s FOR UPDATE', (int(target.split("/")[1]),))

        def edits() -> None:
            self.a_insert("a2")
            self.a.update(target, {"rank": 20 + self.counter})

        self.blocked_save(r, hold, lambda wt, we, q: wt == "Lock", edits, self.holder.rollback)

    def case_a3(self, r: Dict[str, Any]) -> None:
        def hold() -> None:
            self.holder.cursor().execute(
                f'SELECT 1 FROM {self.q("Folder")} WHERE _pk = %s FOR UPDATE', (int(self.folder.split("/")[1]),))

        self.blocked_save(r, hold, lambda wt, we, q: wt == "Lock" and q.strip().upper().startswith("COMMIT"),
                          lambda: (self.a_insert("a3"), None)[1], self.holder.rollback)

    def case_a4(self, r: Dict[str, Any]) -> None:
        target = self.seed[2]

        def hold() -> None:
            self.sql("ALTER SYSTEM SET synchronous_standby_names = 'fetchd_faults_no_such_standby'")
            self.sync_standby_set = True
            self.sql("SELECT pg_reload_conf()")
            time.sleep(0.5)  # the postmaster signals the backends; they reload before their next command
            self.await_waiting_commits()

        def release() -> None:
            self.reset_sync_standby()

        def edits() -> None:
            self.a_insert("a4")
            self.a.update(target, {"rank": 40 + self.counter})

        self.blocked_save(r, hold, lambda wt, we, q: we == "SyncRep", edits, release)
        # The commit record was written before the backend was terminated: the transaction
        # committed, and fetchd finds its row after reconnecting (protocol.md §5, "A COMMIT
        # without an answer").
        if r["answer"] != "success":
            r["problems"].append(f"the save committed before its connection broke but answered {r['answer']}")

    def await_waiting_commits(self) -> None:
        """A commit waits for the standby only once the checkpointer, not only the committing
        session, has reloaded the setting (it publishes it to all sessions), which a busy machine
        can delay: returns once a probe's commit waited, cancelling that wait (the probe's
        commit stands, as any does on a cancel)."""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            probe = pg_connect(add_to_url(self.url, options="-c synchronous_commit=on"),
                               application_name=f"{self.schema}_probe")
            pid = probe.get_backend_pid()

            def commit() -> None:
                try:
                    probe.cursor().execute("BEGIN; CREATE TEMP TABLE fetchd_probe (x int); COMMIT")
                finally:
                    probe.close()

            thread = threading.Thread(target=commit, daemon=True)
            thread.start()
            while thread.is_alive():
                if self.sql("SELECT 1 FROM pg_stat_activity WHERE pid = %s AND wait_event = 'SyncRep'", (pid,)):
                    self.sql("SELECT pg_cancel_backend(%s)", (pid,))
                    thread.join(10)
                    return
                thread.join(0.005)
            time.sleep(0.02)
        raise Failure("commits never waited for the missing standby")

    def reset_sync_standby(self) -> None:
        if self.sync_standby_set:
            self.sql("ALTER SYSTEM RESET synchronous_standby_names")
            self.sql("SELECT pg_reload_conf()")
            self.sync_standby_set = False
            time.sleep(0.3)

    def case_b(self, r: Dict[str, Any]) -> None:
        rows = [[self.title("b"), i % 50, self.folder] for i in range(1000)]
        cur = self.holder.cursor()
        cur.execute(f'LOCK TABLE {self.q("Note")} IN SHARE MODE')
        thread, found = self.killer(lambda wt, we, q: wt == "Lock" and q.strip().upper().startswith("COPY"))

        def batch() -> Any:
            return self.A.store_batch_insert("Note", keys=["title", "rank", "folder"], rows=rows, return_ids=True)

        out = attempt(batch)
        thread.join()
        self.holder.rollback()
        r["known_point"] = f"{found.get('wait', 'NOT REACHED')} in {found.get('query', '')!r}"
        r["answer"] = out.kind
        if not found:
            r["problems"].append("the batch never waited at the known point")
        titles = {t for _, (t, _) in self.store_rows().items()}
        written = sum(1 for row in rows if row[0] in titles)
        r["in_store_after_answer"] = f"{written}/{len(rows)}"
        if out.error is None:
            r["problems"].append("the batch answered success although its backend was terminated")
            self.expect.update({i: (row[0], row[1]) for i, row in zip(out.value["ids"], rows)})
        else:
            if out.kind != "storeUnavailable":
                r["problems"].append(f"expected storeUnavailable, got {out.kind}")
            if written:
                r["problems"].append(f"answered {out.kind} but {written} rows are in the store")
        self.outage_writes(r, "b")
        again, before, secs = self.recover(batch)
        r["unavailable_before_success"], r["recovered_s"], r["retry"] = before, secs, again.kind
        if again.error is None:
            self.expect.update({i: (row[0], row[1]) for i, row in zip(again.value["ids"], rows)})
            self.a_tokens.append(self.A.store_history_token()["token"])
        else:
            r["problems"].append(f"the retried batch answered {again.kind}")
        self.b_write("b-after-B")
        self.p_write("b-after-P")

    def case_c(self, r: Dict[str, Any]) -> None:
        self.A.wait_for_notifications(0.3)  # idle: nothing pending
        backends = self.a_backends()
        killed = self.sql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = %s",
                          (self.app_a,))[0][0]
        # store + LISTEN, and the upkeep session once ids were reserved while a snapshot was
        # held (protocol.md §5, "One state per message").
        r["known_point"] = f"idle, {killed} backends terminated ({len(backends)} before: store, LISTEN, upkeep?)"
        if killed not in (2, 3):
            r["problems"].append(f"expected A's 2 or 3 sessions (store, LISTEN, upkeep), terminated {killed}")
        self.outage_writes(r, "c")
        t0 = time.monotonic()
        on_its_own = self.settle(passive=True, timeout=30.0)
        r["announced_without_request"] = f"{'yes' if on_its_own else 'NO'} ({round(time.monotonic() - t0, 2)} s)"
        if not on_its_own:
            r["problems"].append("the watching fetchd did not announce the outage commits by itself within 30 s")
        first = attempt(lambda: self.a.count({"entity": "Note"}))
        r["answer"] = f"first request: {first.kind}"
        if first.error is not None and first.kind != "storeUnavailable":
            r["problems"].append(f"first request after the cut answered {first.kind}")
        out, before, secs = self.recover(lambda: self.a.count({"entity": "Note"}))
        r["unavailable_before_success"], r["recovered_s"], r["retry"] = before + (first.error is not None), secs, out.kind
        nid, t = self.a_insert("c")
        pending = self.a_pending()
        saved, _, _ = self.recover(self.a.save)
        if saved.error is None:
            self.a_saved(pending)
        else:
            r["problems"].append(f"a save after the cut answered {saved.kind}")
        self.b_write("c-after-B")
        self.p_write("c-after-P")

    def pg_ctl(self, *args: str) -> None:
        argv = [os.path.join(self.bindir, "pg_ctl"), "-D", os.path.join(self.cluster, "data"), *args]
        if os.getuid() == 0:
            argv = ["runuser", "-u", "postgres", "--"] + argv
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)

    def start_server(self) -> None:
        """pg_ctl start with the options the cluster was started with (postmaster.opts, written
        by scripts/pg-cluster.sh's start): the same socket directory, so the same URL."""
        with open(os.path.join(self.cluster, "data", "postmaster.opts")) as f:
            words = shlex.split(f.read())[1:]
        options: List[str] = []
        i = 0
        while i < len(words):
            if words[i] == "-D":
                i += 2
                continue
            options.append(shlex.quote(words[i]))
            i += 1
        self.pg_ctl("-l", os.path.join(self.cluster, "server.log"), "-w", "-t", "60", "-o", " ".join(options), "start")

    def case_d(self, r: Dict[str, Any]) -> None:
        nid, t = self.a_insert("d")
        pending = self.a_pending()
        bid_title = self.title("d-B-down")
        bid = self.b.insert("Note", {"title": bid_title, "rank": 7})["id"]
        self.close_sessions()
        t_stop = time.monotonic()
        self.pg_ctl("-m", "fast", "-w", "stop")
        self.server_down = True
        kinds: Dict[str, int] = {}
        for fn in [lambda: self.a.count({"entity": "Note"}), lambda: self.a.fetch(REQUEST), self.a.save,
                   lambda: self.A.store_history_token(), self.a.save]:
            out = attempt(fn)
            kinds[out.kind] = kinds.get(out.kind, 0) + 1
            time.sleep(0.2)
        b_down = attempt(self.b.save)
        kinds["B:" + b_down.kind] = 1
        r["answer"] = "while down: " + ", ".join(f"{k} x{n}" for k, n in sorted(kinds.items()))
        bad = [k for k in kinds if k.split(":")[-1] != "storeUnavailable"]
        if bad:
            r["problems"].append(f"requests while the server was down answered {bad}")
        for i, v in pending.items():
            self.refused[i] = v[0]
        self.refused[bid] = bid_title
        self.pg_ctl_start_time = time.monotonic()
        self.start_server()
        self.server_down = False
        self.connect_sessions()
        r["known_point"] = f"server stopped (-m fast) {round(time.monotonic() - t_stop, 2)} s, started again"
        # B and P commit while A has not yet been asked anything.
        out_b, _, _ = self.recover(self.b.save)
        if out_b.error is None:
            self.expect[bid] = (bid_title, 7)
            self.refused.pop(bid, None)
            self.b_tokens.append(self.B.store_history_token()["token"])
        else:
            r["problems"].append(f"B's save after the restart answered {out_b.kind}")
        self.p_write("d-P")
        r["outage_writes"] = "B 1, P 1 (after the start, before A's next request)"
        out, before, secs = self.recover(self.a.save)
        r["unavailable_before_success"], r["recovered_s"], r["retry"] = before, secs, out.kind
        if out.error is None:
            self.a_saved(pending)
        else:
            r["problems"].append(f"A's save after the restart answered {out.kind}")
        self.b_write("d-after-B")
        self.p_write("d-after-P")

    # -- the run ----------------------------------------------------------------------------
    def final_history(self) -> List[str]:
        """The changes A announced == store/history's after A's open token, A's own left out."""
        problems = []
        history: List[Dict[str, Any]] = []
        after = self.t_open
        while True:
            page = self.A.store_history(after, limit=500)
            history += page["transactions"]
            if not page["more"] or not page["transactions"]:
                break
            after = page["transactions"][-1]["token"]
        own = set(self.a_tokens)
        theirs = [t for t in history if t.get("author") != "A" and t["token"] not in own]
        flat_h = [(c["entity"], c["id"], c["type"], tuple(c.get("keys", []))) for t in theirs for c in t["changes"]]
        flat_a = [(c["entity"], c["id"], c["type"], tuple(c.get("keys", []))) for t in self.announced
                  for c in t["changes"]]
        if flat_h != flat_a:
            first = next((k for k, (x, y) in enumerate(zip(flat_h, flat_a)) if x != y), min(len(flat_h), len(flat_a)))
            problems.append(f"announced changes ({len(flat_a)}) != store/history's ({len(flat_h)}); "
                            f"first difference at {first}: {flat_h[first:first + 2]} vs {flat_a[first:first + 2]}")
        log(f"history: {len(history)} transactions after A's open token {self.t_open}, "
            f"{len(theirs)} of B and P; A announced {len(self.announced)} transactions, "
            f"{len(flat_a)} changes ({len(flat_h)} in store/history); gaps {self.gaps}")
        return problems

    def run(self, cases: List[str]) -> int:
        self.start()
        failed = []
        for case in cases:
            r: Dict[str, Any] = {"case": case, "problems": []}
            t0 = time.monotonic()
            try:
                getattr(self, f"case_{case}")(r)
                self.verify(r)
            except Failure as e:
                r["problems"].append(str(e))
            except FetchdError as e:
                r["problems"].append(f"unexpected {e.kind}: {e.message}")
                log(traceback.format_exc())
            finally:
                self.reset_sync_standby()
            r["seconds"] = round(time.monotonic() - t0, 2)
            self.results.append(r)
            self.print_case(r)
            if r["problems"]:
                failed.append(case)
        extra = self.final_history()
        code = self.A.process.poll()
        rss_end = rss_kb(self.A.process.pid)
        log(f"fetchd A: pid {self.A.process.pid}, still running: {code is None}, RSS {self.rss_start} kB -> "
            f"{rss_end} kB; notifications received by A: {self.notifications}")
        lost, phantoms = self.lost_and_phantoms()
        log(f"acknowledged writes: {sum(1 for v in self.expect.values() if v is not None)} rows expected, "
            f"lost {len(lost)}; B saves {len(self.b_tokens)}, P inserts {len(self.p_ids)}; "
            f"writes answered 'nothing was written' found in the store anyway: {self.phantoms_total}")
        for p in extra:
            log(f"FAIL history: {p}")
        a_exit = stop_client(self.A)
        self.A = None
        b_exit = stop_client(self.B)
        self.B = None
        log(f"exit codes: A {a_exit}, B {b_exit}")
        if a_exit != 0 or b_exit != 0:
            extra.append("a fetchd did not exit 0")
        log("")
        for case in failed:
            note = f"  [KNOWN {KNOWN_BUGS[case]}]" if case in KNOWN_BUGS else ""
            log(f"FAILED: case {case}{note}")
        if failed or extra or lost:
            log(f"pg-faults: FAILED ({len(failed)} of {len(cases)} cases)")
            return 1
        log(f"pg-faults: all {len(cases)} cases passed")
        return 0

    def print_case(self, r: Dict[str, Any]) -> None:
        status = "ok" if not r["problems"] else "FAIL"
        keys = ["known_point", "answer", "in_store_after_answer", "outage_writes", "unavailable_before_success",
                "recovered_s", "retry", "announced_without_request", "mirror", "lost", "phantoms", "seconds"]
        log(f"case {r['case']}: {status}")
        for k in keys:
            if k in r:
                log(f"    {k}: {r[k]}")
        for p in r["problems"]:
            mark = " [KNOWN BUG, see Tests/Soak/README.md]" if r["case"] in KNOWN_BUGS else ""
            log(f"    PROBLEM{mark}: {p}")

    def cleanup(self) -> None:
        for c in (self.A, self.B):
            if c is not None:
                stop_client(c, timeout=10)
        try:
            if getattr(self, "server_down", False):
                self.start_server()
                self.connect_sessions()
            self.reset_sync_standby()
            self.sql(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')
        except Exception:
            pass
        self.close_sessions()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fetchd", required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--cluster", required=True, help="the cluster's directory (scripts/pg-cluster.sh start DIR)")
    parser.add_argument("--workdir", required=True, help="for fetchd's logs")
    parser.add_argument("--cases", default=",".join(ALL_CASES))
    args = parser.parse_args()
    install_sigterm()
    cases = [c for c in args.cases.split(",") if c]
    unknown = [c for c in cases if c not in ALL_CASES]
    if unknown:
        parser.error(f"unknown cases {unknown}; known: {ALL_CASES}")
    faults = Faults(os.path.abspath(args.fetchd), args.url, args.cluster, args.workdir)
    try:
        return faults.run(cases)
    finally:
        faults.cleanup()


if __name__ == "__main__":
    sys.exit(main())
