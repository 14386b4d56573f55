"""The soak: many processes writing one store at random, every mirror checked (run by
scripts/soak.sh; Tests/Soak/README.md describes what is checked and how to read the figures).

Per phase (a SQLite file, then a PostgreSQL dataset), the coordinator (this script without
--worker) makes the store, starts 8 fetchd workers and 2 plain SQL writers as subprocesses of
this same script, and lets them write until the phase's deadline:

- a fetchd worker drives one fetchd (`--watch auto`) through the Python client: a root context
  "w" (transactionAuthor = its name, undo on) with two controllers whose TableMirrors are built
  only from notifications ("all": sections by bucket; "hot": a predicate through a relationship,
  a window). It runs transactions of 1-4 edits (inserts, updates and deletes of its own
  objects, updates of anyone's), sometimes a JSON-RPC batch of two edits, undo and redo of
  unsaved groups, then a save (storeBusy retried, mergeConflict resolved by
  context/refresh(mergeChanges) and retried), or batch requests (insert, updateObjects and
  delete of its own objects, a predicate batchUpdate of anyone's). Worker w0 also calls
  store/purgeHistory every ~10 s. Every 3-6 s each mirror is compared with the controller's
  own rows and a fresh context/fetch, read in one JSON-RPC batch (exact: see soaklib).
- a plain writer (python sqlite3, or psycopg2 for PostgreSQL: no fetchd code) runs small
  transactions of the same kinds directly in SQL.

Own objects carry `owner` and a `stamp` unique to each write, and only their owner changes
their stamp or deletes them, so each process knows the last value it wrote to each of its
objects and whether it deleted it: an acknowledged write is lost when, at the end, the store
does not hold that stamp (or holds an object whose acknowledged delete it saw). Shared keys
(rank, bucket, note) are written by everyone and make conflicts.

At the end all writers stop; each fetchd merges (store/checkExternalChanges) and checks its
mirrors exactly once more; then the coordinator reads the table directly and compares every
"all" mirror with it (same rows, values and order), checks the owners' last writes, that each
fetchd saw every other fetchd's transactions exactly once (identical token sets across
observers, strictly increasing tokens, no gap), and that every fetchd exited 0.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import subprocess
import sys
import time
import traceback
from typing import Any, Dict, List, Optional, Set, Tuple

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from soaklib import (  # noqa: E402
    FetchdError,
    exact_check,
    guard_mirror,
    install_sigterm,
    reload_mirror,
    pg_connect,
    rss_kb,
    spawn,
    stop_client,
)

# Debugging knobs (the soak's contract is 8 and 2).
FETCHD_WORKERS = int(os.environ.get("FETCHD_SOAK_WORKERS", "8"))
PLAIN_WRITERS = int(os.environ.get("FETCHD_SOAK_PLAIN", "2"))
BUCKETS = ["a", "b", "c", "d", "e"]
FOLDERS = ["f0", "f1", "f2"]
MODEL = {
    "entities": [
        {
            "name": "Folder",
            "attributes": {"name": {"type": "string"}},
            "relationships": {
                "items": {"destination": "Item", "toMany": True, "inverse": "folder", "deleteRule": "nullify"}
            },
        },
        {
            "name": "Item",
            "attributes": {
                "title": {"type": "string"},
                "rank": {"type": "integer", "default": 0, "indexed": True},
                "bucket": {"type": "string"},
                "stamp": {"type": "string"},
                "owner": {"type": "string"},
                "note": {"type": "string", "optional": True},
                "score": {"type": "double", "default": 0},
            },
            "relationships": {"folder": {"destination": "Folder", "inverse": "items"}},
        },
    ]
}
REQ_ALL = {"entity": "Item", "sortDescriptors": [{"key": "bucket"}, {"key": "rank"}, {"key": "stamp"}]}
REQ_HOT = {
    "entity": "Item",
    "predicate": "rank >= 500 AND folder.name != 'f2'",
    "sortDescriptors": [{"key": "rank", "ascending": False},
                        {"key": "title", "comparator": "localizedStandardCompare"}],
    "fetchOffset": 5,
    "fetchLimit": 40,
}
KEYS = ["title", "rank", "bucket", "stamp", "owner", "note", "folder"]
OWN_TARGET = 120  # own live objects a writer aims at (more: deletes are likelier)
DELETED = None


def now() -> float:
    return time.time()


def write_json(path: str, value: Any) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(value, f)
    os.replace(tmp, path)


def read_json(path: str) -> Any:
    with open(path) as f:
        return json.load(f)


def wait_for_file(path: str, deadline: float) -> bool:
    while not os.path.exists(path):
        if now() > deadline:
            return False
        time.sleep(0.05)
    return True


# ---------------------------------------------------------------------------------------------
# What a writer knows it wrote
# ---------------------------------------------------------------------------------------------
class Ledger:
    """The last acknowledged state of each object a writer owns (stamp, or DELETED), and its
    unsaved edits as undo groups mirroring the context's undo stack (protocol.md §6 Undo):
    each group a list of (id, before, after), None meaning absent/deleted."""

    def __init__(self) -> None:
        self.committed: Dict[str, Optional[str]] = {}
        self.pending: Dict[str, Optional[str]] = {}
        self.groups: List[List[Tuple[str, Optional[str], Optional[str]]]] = []
        self.redo_stack: List[List[Tuple[str, Optional[str], Optional[str]]]] = []
        # Every object each group touched (others' too), and which of them undo and redo
        # touched again: to tell which process wrote an object back that its owner deleted.
        self.touched: List[List[str]] = []
        self.redo_touched: List[List[str]] = []
        self.undo_log: Dict[str, List[str]] = {}
        self.ever: Set[str] = set()  # every id this writer inserted or tried to

    def view(self, oid: str) -> Optional[str]:
        if oid in self.pending:
            return self.pending[oid]
        return self.committed.get(oid)

    def live(self) -> List[str]:
        """The objects this writer owns as its context shows them (sorted: runs repeat)."""
        return sorted((i for i in set(self.committed) | set(self.pending) if self.view(i) is not None),
                      key=lambda i: int(i.split("/")[1]))

    def edit_group(self, entries: List[Tuple[str, Optional[str], Optional[str]]], touched: List[str]) -> None:
        for oid, _before, after in entries:
            self.pending[oid] = after
            self.ever.add(oid)
        self.groups.append(entries)
        self.touched.append(touched)
        self.redo_stack.clear()
        self.redo_touched.clear()

    def undo(self) -> None:
        g = self.groups.pop()
        for oid, before, _after in reversed(g):
            self.pending[oid] = before
        self.redo_stack.append(g)
        t = self.touched.pop()
        self.redo_touched.append(t)
        for oid in t:
            self.undo_log.setdefault(oid, []).append(f"undo at {now():.1f}")

    def redo(self) -> None:
        g = self.redo_stack.pop()
        for oid, _before, after in g:
            self.pending[oid] = after
        self.groups.append(g)
        t = self.redo_touched.pop()
        self.touched.append(t)
        for oid in t:
            self.undo_log.setdefault(oid, []).append(f"redo at {now():.1f}")

    def saved(self) -> None:
        self.committed.update(self.pending)
        self.discard()

    def discard(self) -> None:
        self.pending.clear()
        self.groups.clear()
        self.redo_stack.clear()
        self.touched.clear()
        self.redo_touched.clear()

    def acked(self, oid: str, stamp: Optional[str]) -> None:
        self.committed[oid] = stamp
        self.ever.add(oid)

    def expectations(self) -> Dict[str, Optional[str]]:
        return dict(self.committed)


class Stats:
    def __init__(self) -> None:
        self.saves_acked = 0
        self.batches_acked = 0
        self.writes_acked = 0  # saves + batches + plain transactions acknowledged
        self.refused: Dict[str, int] = {}
        self.unexpected: List[str] = []
        self.abandoned = 0
        self.undo = 0
        self.redo = 0
        self.rollbacks = 0
        self.checks = 0
        self.inconclusive = 0
        self.mismatches: List[str] = []
        self.purged = 0

    def refuse(self, kind: str) -> None:
        self.refused[kind] = self.refused.get(kind, 0) + 1

    def as_dict(self) -> Dict[str, Any]:
        return dict(self.__dict__)


# ---------------------------------------------------------------------------------------------
# A fetchd worker
# ---------------------------------------------------------------------------------------------
class FetchdWorker:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.name = args.name
        self.dir = args.phase_dir
        self.rng = random.Random(f"{args.seed}-{args.phase}-{self.name}")
        self.ledger = Ledger()
        self.stats = Stats()
        self.counter = 0
        self.notifications: Dict[str, int] = {}
        self.tokens: List[int] = []  # every announced transaction's token, in order
        self.by_author: Dict[str, List[int]] = {}
        self.gaps = 0
        self.client: Any = None
        # FETCHD_SOAK_TRACE=1: every notification in NAME.trace, to read a mismatch's history.
        self.trace = open(os.path.join(self.dir, f"{self.name}.trace"), "w") \
            if os.environ.get("FETCHD_SOAK_TRACE") == "1" else None

    def stamp(self) -> str:
        self.counter += 1
        return f"{self.name}-{self.counter:06d}"

    def heard(self, method: str, params: Any) -> None:
        self.notifications[method] = self.notifications.get(method, 0) + 1
        if self.trace is not None:
            self.trace.write(json.dumps([round(now(), 3), method, params]) + "\n")
        if method == "store/didChangeExternally":
            if params.get("gap"):
                self.gaps += 1
            for t in params.get("transactions", []):
                self.tokens.append(t["token"])
                if t.get("author"):
                    self.by_author.setdefault(t["author"], []).append(t["token"])

    def open(self) -> None:
        a = self.args
        args = ["--watch", "auto"]
        if os.environ.get("FETCHD_SOAK_TRACE") == "1":
            # fetchd's own record of every message, beside the notifications the worker applied.
            args += ["--trace", os.path.join(self.dir, f"{self.name}-fetchd.trace")]
        self.client = spawn(a.fetchd, args, os.path.join(self.dir, f"{self.name}-fetchd.log"))
        self.client.add_listener(self.heard)
        if a.pg_url:
            self.client.open_store(MODEL, url=a.pg_url, schema=a.schema)
        else:
            self.client.open_store(MODEL, path=a.store)
        self.ctx = self.client.create_context("w", transaction_author=self.name, undo={})
        self.all = self.ctx.controller("all", REQ_ALL, section_name_key_path="bucket")
        self.hot = self.ctx.controller("hot", REQ_HOT)
        for ctl in (self.all, self.hot):
            guard_mirror(ctl)
        self.folders = [o["id"] for o in self.ctx.fetch({"entity": "Folder", "sortDescriptors": [{"key": "name"}]})]
        self.rss_start = rss_kb(self.client.process.pid)

    # -- edits ------------------------------------------------------------------------------
    def values(self, stamp: str) -> Dict[str, Any]:
        r = self.rng
        return {"title": f"t {r.randint(0, 300)} {stamp}", "rank": r.randint(0, 999), "bucket": r.choice(BUCKETS),
                "stamp": stamp, "owner": self.name, "folder": r.choice(self.folders + [None])}

    def others(self) -> List[str]:
        mine = set(self.ledger.ever)
        return [row["id"] for s in self.all.mirror.sections for row in s.rows if row["id"] not in mine]

    def edit_call(self) -> Tuple[str, Dict[str, Any], List[Tuple[str, Optional[str], Optional[str]]]]:
        """One edit as (method, params, ledger entries if it succeeds)."""
        r = self.rng
        live = self.ledger.live()
        roll = r.random()
        over = len(live) > OWN_TARGET
        if not live or roll < (0.25 if over else 0.4):
            st = self.stamp()
            return "insert", {"entity": "Item", "values": self.values(st)}, [("?", None, st)]
        if roll < 0.7:
            oid = r.choice(live)
            st = self.stamp()
            vals: Dict[str, Any] = {"stamp": st, "title": f"t {r.randint(0, 300)} {st}"}
            if r.random() < 0.5:
                vals["rank"] = r.randint(0, 999)
            if r.random() < 0.3:
                vals["bucket"] = r.choice(BUCKETS)
            return "update", {"id": oid, "values": vals}, [(oid, self.ledger.view(oid), st)]
        if roll < (0.85 if over else 0.8):
            oid = r.choice(live)
            return "delete", {"id": oid}, [(oid, self.ledger.view(oid), DELETED)]
        others = self.others()
        if not others:
            oid = r.choice(live)
            st = self.stamp()
            return "update", {"id": oid, "values": {"stamp": st}}, [(oid, self.ledger.view(oid), st)]
        # Half the time one of the 15 oldest: every writer meets them, so saves conflict.
        oid = r.choice(sorted(others, key=lambda i: int(i.split("/")[1]))[:15] if r.random() < 0.5 else others)
        # Shared keys of someone else's object: a unique note, so the edit is always a change
        # (and always an undo group).
        vals = {"note": f"n {self.stamp()}", "rank": r.randint(0, 999)}
        if r.random() < 0.3:
            vals["bucket"] = r.choice(BUCKETS)
        return "update", {"id": oid, "values": vals}, []

    def send_edits(self, n: int) -> None:
        """n edits as one request each, or (sometimes) two as one JSON-RPC batch: one cycle,
        one undo group."""
        i = 0
        while i < n:
            if n - i >= 2 and self.rng.random() < 0.25:
                calls = [self.edit_call(), self.edit_call()]
                # Two edits of one object in one batch would make the ledger's before/after
                # depend on their order: keep them apart.
                ids = [c[1].get("id") for c in calls]
                if ids[0] is not None and ids[0] == ids[1]:
                    calls = calls[:1]
                responses = self.client.send_batch(
                    [(f"context/{m}", dict(p, context="w")) for m, p, _ in calls])
                entries: List[Tuple[str, Optional[str], Optional[str]]] = []
                touched: List[str] = []
                for (m, p, e), resp in zip(calls, responses):
                    if resp.error is not None:
                        self.edit_failed(m, p, e, resp.error)
                    else:
                        entries += self.entries_for(m, resp.result, e)
                        touched.append(p.get("id") or resp.result["object"]["id"])
                if entries or any(resp.error is None for resp in responses):
                    self.ledger.edit_group(entries, touched)
                i += len(calls)
                continue
            m, p, e = self.edit_call()
            try:
                result = self.client.request(f"context/{m}", dict(p, context="w"))
            except FetchdError as err:
                self.edit_failed(m, p, e, err)
            else:
                self.ledger.edit_group(self.entries_for(m, result, e), [p.get("id") or result["object"]["id"]])
            i += 1

    @staticmethod
    def entries_for(method: str, result: Any, entries: List[Tuple[str, Optional[str], Optional[str]]]
                    ) -> List[Tuple[str, Optional[str], Optional[str]]]:
        if method == "insert":
            return [(result["object"]["id"], None, entries[0][2])]
        return entries

    def edit_failed(self, method: str, params: Dict[str, Any], entries: List[Any], err: FetchdError) -> None:
        # Someone else's object may be gone by the time the edit runs (its owner deleted it and
        # the merge came first): the only refusal an edit may meet.
        if not entries and err.kind == "unknownObject":
            self.stats.refuse("unknownObject (edit of an object just deleted elsewhere)")
            return
        self.stats.unexpected.append(f"context/{method} {params}: {err.kind}: {err.message}")

    # -- a transaction ------------------------------------------------------------------------
    def transaction(self) -> None:
        r = self.rng
        self.send_edits(r.randint(1, 4))
        if self.ledger.groups and r.random() < 0.25:
            state = self.ctx.undo()
            self.ledger.undo()
            self.stats.undo += 1
            self.check_undo_state(state)
            if r.random() < 0.4:
                state = self.ctx.redo()
                self.ledger.redo()
                self.stats.redo += 1
                self.check_undo_state(state)
        if r.random() < 0.04:
            self.ctx.rollback()
            self.ledger.discard()
            self.stats.rollbacks += 1
            return
        self.save()

    def check_undo_state(self, state: Dict[str, Any]) -> None:
        if state["undoCount"] != len(self.ledger.groups) or state["redoCount"] != len(self.ledger.redo_stack):
            self.stats.mismatches.append(
                f"undo state {state['undoCount']}/{state['redoCount']} != the ledger's "
                f"{len(self.ledger.groups)}/{len(self.ledger.redo_stack)}")
            # Start again from a known state.
            self.ctx.rollback()
            self.ledger.discard()

    def save(self) -> None:
        for attempt in range(40):
            try:
                result = self.ctx.save()
            except FetchdError as err:
                self.stats.refuse(err.kind or "?")
                if err.kind == "storeBusy":
                    time.sleep(self.rng.uniform(0.02, 0.2))
                    continue
                if err.kind == "mergeConflict":
                    if not self.resolve(err):
                        break
                    continue
                self.stats.unexpected.append(f"context/save: {err.kind}: {err.message}")
                break
            else:
                self.ledger.saved()
                self.stats.saves_acked += 1
                self.stats.writes_acked += 1
                # Both undo stacks go: the ledger's groups are always exactly the unsaved ones.
                self.ctx.rollback()
                return
        self.stats.abandoned += 1
        self.ctx.rollback()
        self.ledger.discard()

    def resolve(self, err: FetchdError) -> bool:
        """Core Data's way out of a conflict: re-base each conflicting object on the stored one
        (refresh with mergeChanges), then save again."""
        for c in (err.data or {}).get("conflicts", []):
            try:
                self.ctx.refresh(c["id"], True)
            except FetchdError as e:
                # Its owner deleted it (`theirs: null`): drop our change to it instead.
                self.stats.refuse(f"refresh(mergeChanges) after conflict: {e.kind}")
                try:
                    self.ctx.refresh(c["id"], False)
                except FetchdError as e2:
                    self.stats.refuse(f"refresh(drop) after conflict: {e2.kind}")
                    return False
        return True

    # -- batch requests --------------------------------------------------------------------------
    def batch(self) -> None:
        r = self.rng
        live = self.ledger.live()
        roll = r.random()
        if not live or roll < (0.25 if len(live) > OWN_TARGET else 0.4):
            n = 300 if r.random() < 0.05 else r.randint(1, 20)  # 300: the COPY path on PostgreSQL
            stamps = [self.stamp() for _ in range(n)]
            rows = []
            for st in stamps:
                v = self.values(st)
                rows.append([v[k] for k in KEYS if k != "note"])
            result = self.retry_busy(lambda: self.client.store_batch_insert(
                "Item", keys=[k for k in KEYS if k != "note"], rows=rows, return_ids=True))
            if result is not None:
                for oid, st in zip(result["ids"], stamps):
                    self.ledger.acked(oid, st)
        elif roll < 0.65:
            ids = r.sample(live, min(len(live), r.randint(1, 12)))
            objects = []
            stamps = []
            for oid in ids:
                st = self.stamp()
                stamps.append(st)
                objects.append({"id": oid, "stamp": st, "rank": r.randint(0, 999)})
            result = self.retry_busy(lambda: self.client.store_batch_update_objects("Item", objects=objects))
            if result is not None:
                for oid, st in zip(ids, stamps):
                    self.ledger.acked(oid, st)
        elif roll < 0.8:
            lo = r.randint(0, 980)
            self.retry_busy(lambda: self.client.store_batch_update(
                "Item", {"note": f"b {self.stamp()}", "bucket": r.choice(BUCKETS)},
                predicate="rank >= $lo AND rank < $hi", variables={"lo": lo, "hi": lo + 15}))
        else:
            n = r.randint(1, 6) if len(live) <= OWN_TARGET else r.randint(10, 60)
            ids = r.sample(live, min(len(live), n))
            result = self.retry_busy(lambda: self.client.store_batch_delete("Item", ids=ids))
            if result is not None:
                for oid in ids:
                    self.ledger.acked(oid, DELETED)

    def retry_busy(self, fn: Any) -> Any:
        for _ in range(40):
            try:
                result = fn()
            except FetchdError as err:
                self.stats.refuse(err.kind or "?")
                if err.kind == "storeBusy":
                    time.sleep(self.rng.uniform(0.02, 0.2))
                    continue
                self.stats.unexpected.append(f"batch request: {err.kind}: {err.message}")
                return None
            self.stats.batches_acked += 1
            self.stats.writes_acked += 1
            return result
        self.stats.abandoned += 1
        return None

    # -- checks -------------------------------------------------------------------------------
    def check(self, when: str) -> None:
        for ctl, req in ((self.all, REQ_ALL), (self.hot, REQ_HOT)):
            self.stats.checks += 1
            # Bounded tries: a check must not starve the worker while others keep committing
            # (the final check, after every writer stopped, is always conclusive).
            ok, why = exact_check(self.client, ctl, "w", req, attempts=30 if when == "final" else 4)
            if ok is None:
                self.stats.inconclusive += 1
            elif not ok:
                self.mismatch(ctl, f"{when}: {why}")

    def mismatch(self, ctl: Any, why: str) -> None:
        self.stats.mismatches.append(f"{ctl.name}: {why}")
        if self.trace is not None:
            self.trace.write(json.dumps([round(now(), 3), "MISMATCH", ctl.name, why]) + "\n")
            self.trace.flush()
        if len(self.stats.mismatches) <= 3:
            self.diagnose(ctl, why)
        # Fetch again, so later checks judge later cycles.
        if not reload_mirror(self.client, ctl):
            self.stats.mismatches.append(f"{ctl.name}: could not load the mirror again (performFetch, rows)")

    def mirrors_applied(self) -> None:
        """A cycle a mirror could not apply is a mismatch (then the mirror is loaded again)."""
        for ctl in (self.all, self.hot):
            if ctl.mirror.errors:
                errors, ctl.mirror.errors = ctl.mirror.errors, []
                self.mismatch(ctl, "; ".join(errors[:3]))

    def diagnose(self, ctl: Any, why: str) -> None:
        """Appends what fetchd says about the objects a mismatch names to NAME.diagnosis."""
        import re
        lines = [f"== {time.strftime('%H:%M:%S')} {ctl.name}: {why}"]
        for oid in sorted(set(re.findall(r"Item/[0-9]+", why)))[:3]:
            where = [(i, j) for i, s in enumerate(ctl.mirror.sections) for j, r in enumerate(s.rows) if r["id"] == oid]
            lines.append(f"{oid}: in the mirror at {where}; ledger view {self.ledger.view(oid)!r}; "
                         f"mine: {oid in self.ledger.ever}")
            for call in (lambda: self.client.controller_index_path(ctl.name, oid),
                         lambda: self.ctx.get([oid]),
                         lambda: self.ctx.committed_values(oid),
                         lambda: self.client.store_history(max(0, self.client.store_history_token()["token"] - 100),
                                                           limit=100, entities=["Item"])):
                try:
                    out = call()
                    if isinstance(out, dict) and "transactions" in out:
                        out = [(t["token"], t["author"], [c for c in t["changes"] if c["id"] == oid])
                               for t in out["transactions"] if any(c["id"] == oid for c in t["changes"])]
                    lines.append(f"  {out}")
                except FetchdError as err:
                    lines.append(f"  {err.kind}: {err.message}")
        with open(os.path.join(self.dir, f"{self.name}.diagnosis"), "a") as f:
            f.write("\n".join(lines) + "\n")

    def purge(self) -> None:
        token = self.client.store_check_external_changes()["token"]
        try:
            self.stats.purged += self.client.store_purge_history(token)["deleted"]
        except FetchdError as err:
            # Busy like any write under load (documented, protocol.md §5): the next purge goes on.
            if err.kind == "storeBusy":
                self.stats.refuse(err.kind)
                return
            self.stats.unexpected.append(f"store/purgeHistory: {err.kind}: {err.message}")

    # -- the run ------------------------------------------------------------------------------
    def run(self) -> Dict[str, Any]:
        self.open()
        write_json(os.path.join(self.dir, f"{self.name}.ready"), {"pid": self.client.process.pid})
        go = os.path.join(self.dir, "go")
        if not wait_for_file(go, now() + 600):
            raise RuntimeError("no go from the coordinator")
        deadline = read_json(go)["deadline"]
        next_check = now() + self.rng.uniform(1, 3)
        next_purge = now() + 10
        while now() < deadline:
            if now() >= next_check:
                self.check("periodic")
                next_check = now() + self.rng.uniform(3, 6)
            if self.name == "w0" and now() >= next_purge:
                self.purge()
                next_purge = now() + 10
            if self.rng.random() < 0.6:
                self.transaction()
            else:
                self.batch()
            if self.rng.random() < 0.2:
                self.client.wait_for_notifications(self.rng.uniform(0, 0.05))
            self.mirrors_applied()
        write_json(os.path.join(self.dir, f"{self.name}.done"), {})
        if not wait_for_file(os.path.join(self.dir, "quiet"), now() + 600):
            raise RuntimeError("no quiet from the coordinator")
        # Every writer has stopped: merge what is left, then the last exact check.
        self.client.store_check_external_changes()
        before_final = len(self.stats.mismatches)
        self.mirrors_applied()
        self.check("final")
        self.mirrors_applied()
        final_ok = len(self.stats.mismatches) == before_final
        mirror = {row["id"]: [row.get(k) for k in KEYS] for s in self.all.mirror.sections for row in s.rows}
        order = [row["id"] for s in self.all.mirror.sections for row in s.rows]
        sections = [(s.name, s.number_of_objects) for s in self.all.mirror.sections]
        rss_end = rss_kb(self.client.process.pid)
        pid = self.client.process.pid
        code = stop_client(self.client)
        self.client = None
        return {
            "name": self.name, "kind": "fetchd", "pid": pid, "exit": code, "rss_start": self.rss_start,
            "rss_end": rss_end, "stats": self.stats.as_dict(), "notifications": self.notifications,
            "tokens": self.tokens, "by_author": self.by_author, "gaps": self.gaps,
            "expect": self.ledger.expectations(), "ever": sorted(self.ledger.ever), "mirror": mirror,
            "order": order, "sections": sections, "final_ok": final_ok, "undo_log": self.ledger.undo_log,
        }


# ---------------------------------------------------------------------------------------------
# A plain SQL writer (no fetchd code)
# ---------------------------------------------------------------------------------------------
class PlainWriter:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.name = args.name
        self.dir = args.phase_dir
        self.rng = random.Random(f"{args.seed}-{args.phase}-{self.name}")
        self.ledger = Ledger()
        self.stats = Stats()
        self.counter = 0
        self.pg = bool(args.pg_url)
        if self.pg:
            self.db = pg_connect(args.pg_url, autocommit=False, application_name=f"soak-{self.name}")
            self.db.cursor().execute(f'SET search_path TO "{args.schema}"')
            self.db.commit()
            self.param = "%s"
        else:
            self.db = sqlite3.connect(args.store, timeout=10, isolation_level=None)
            self.param = "?"
        self.folders = [r[0] for r in self.query('SELECT _pk FROM "Folder"')]

    def query(self, sql: str, params: Tuple[Any, ...] = ()) -> List[Tuple[Any, ...]]:
        sql = sql.replace("?", self.param)
        cur = self.db.cursor()
        cur.execute(sql, params)
        return cur.fetchall() if cur.description else []

    def stamp(self) -> str:
        self.counter += 1
        return f"{self.name}-{self.counter:06d}"

    def transaction(self) -> None:
        r = self.rng
        writes: List[Tuple[str, Optional[str]]] = []
        if self.pg:
            pass  # psycopg2 opens the transaction at the first statement
        else:
            self.db.execute("BEGIN IMMEDIATE")  # the write lock first (waits up to the timeout)
        live = [i for i in self.ledger.live()]
        for _ in range(r.randint(1, 4)):
            roll = r.random()
            over = len(live) > OWN_TARGET
            if not live or roll < (0.25 if over else 0.45):
                st = self.stamp()
                vals = (f"p {r.randint(0, 300)} {st}", r.randint(0, 999), r.choice(BUCKETS), st, self.name, 0.0,
                        r.choice(self.folders + [None]))
                sql = 'INSERT INTO "Item" (title, rank, bucket, stamp, owner, score, folder) VALUES (?, ?, ?, ?, ?, ?, ?)'
                if self.pg:
                    pk = self.query(sql + " RETURNING _pk", vals)[0][0]
                else:
                    pk = self.db.execute(sql, vals).lastrowid
                oid = f"Item/{pk}"
                writes.append((oid, st))
                live.append(oid)
            elif roll < 0.7:
                oid = r.choice(live)
                st = self.stamp()
                self.query('UPDATE "Item" SET stamp = ?, title = ?, rank = ? WHERE _pk = ?',
                           (st, f"p {r.randint(0, 300)} {st}", r.randint(0, 999), int(oid.split("/")[1])))
                writes.append((oid, st))
            elif roll < 0.85:
                oid = r.choice(live)
                self.query('DELETE FROM "Item" WHERE _pk = ?', (int(oid.split("/")[1]),))
                writes.append((oid, DELETED))
                live.remove(oid)
            elif roll < 0.95:
                # Someone's object, shared keys only.
                row = self.query('SELECT _pk FROM "Item" WHERE owner <> ? ORDER BY _pk DESC LIMIT 1 OFFSET ?',
                                 (self.name, r.randint(0, 200)))
                if row:
                    self.query('UPDATE "Item" SET rank = ?, note = ? WHERE _pk = ?',
                               (r.randint(0, 999), f"n {self.stamp()}", row[0][0]))
            else:
                lo = r.randint(0, 980)
                self.query('UPDATE "Item" SET bucket = ?, note = ? WHERE rank >= ? AND rank < ?',
                           (r.choice(BUCKETS), f"b {self.stamp()}", lo, lo + 10))
        if self.pg:
            self.db.commit()
        else:
            self.db.execute("COMMIT")
        for oid, st in writes:
            self.ledger.acked(oid, st)
        self.stats.writes_acked += 1

    def run(self) -> Dict[str, Any]:
        write_json(os.path.join(self.dir, f"{self.name}.ready"), {"pid": os.getpid()})
        go = os.path.join(self.dir, "go")
        if not wait_for_file(go, now() + 600):
            raise RuntimeError("no go from the coordinator")
        deadline = read_json(go)["deadline"]
        while now() < deadline:
            try:
                self.transaction()
            except Exception as err:  # a refused transaction: nothing of it was written
                kind = type(err).__name__ + ": " + str(err).split("\n")[0][:60]
                self.stats.refuse(kind)
                try:
                    if self.pg:
                        self.db.rollback()
                    elif self.db.in_transaction:
                        self.db.execute("ROLLBACK")
                except Exception:
                    pass
                if "locked" not in str(err) and "busy" not in str(err):
                    self.stats.unexpected.append(kind)
            # A few transactions a second: each commit is merged by 8 fetchd processes and
            # applied by their 8 Python clients, and the fetchd workers must keep up (2 cores).
            time.sleep(self.rng.uniform(0.1, 0.4))
        self.db.close()
        write_json(os.path.join(self.dir, f"{self.name}.done"), {})
        return {"name": self.name, "kind": "plain", "stats": self.stats.as_dict(),
                "expect": self.ledger.expectations(), "ever": sorted(self.ledger.ever)}


def worker_main(args: argparse.Namespace) -> int:
    install_sigterm()
    w: Any = None
    try:
        w = FetchdWorker(args) if args.worker == "fetchd" else PlainWriter(args)
        result = w.run()
    except BaseException as err:
        result = {"name": args.name, "kind": args.worker, "crash": f"{type(err).__name__}: {err}",
                  "trace": traceback.format_exc()}
        if isinstance(err, SystemExit):
            write_json(os.path.join(args.phase_dir, f"{args.name}.json"), result)
            raise
    finally:
        if w is not None and getattr(w, "client", None) is not None:
            stop_client(w.client, timeout=10)
    write_json(os.path.join(args.phase_dir, f"{args.name}.json"), result)
    return 0 if "crash" not in result else 1


# ---------------------------------------------------------------------------------------------
# The coordinator
# ---------------------------------------------------------------------------------------------
class Phase:
    def __init__(self, args: argparse.Namespace, kind: str, budget: float) -> None:
        self.args = args
        self.kind = kind
        self.budget = budget
        self.dir = os.path.join(args.workdir, kind)
        os.makedirs(self.dir, exist_ok=True)
        self.store = os.path.join(self.dir, "soak.sqlite")
        self.schema = f"soak_{os.getpid()}"
        self.procs: Dict[str, subprocess.Popen] = {}
        self.fetchd_pids: Dict[str, int] = {}
        self.problems: List[str] = []

    # -- the store, read directly ---------------------------------------------------------------
    def connect(self) -> Any:
        if self.kind == "postgresql":
            conn = pg_connect(self.args.pg_url, application_name="soak-coordinator")
            conn.cursor().execute(f'SET search_path TO "{self.schema}"')
            return conn
        return sqlite3.connect(self.store, timeout=30)

    def sql(self, statement: str) -> List[Tuple[Any, ...]]:
        conn = self.connect()
        try:
            cur = conn.cursor()
            cur.execute(statement)
            return cur.fetchall()
        finally:
            conn.close()

    def size(self) -> Dict[str, Any]:
        """The store's size and its history's rows (protocol.md §5: pruned automatically)."""
        h = self.sql('SELECT count(*), min(seq), max(seq) FROM "_fetchd_history"')[0]
        items = self.sql('SELECT count(*) FROM "Item"')[0][0]
        if self.kind == "postgresql":
            b = self.sql(
                "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c JOIN pg_namespace n"
                f" ON n.oid = c.relnamespace WHERE n.nspname = '{self.schema}' AND c.relkind = 'r'")[0][0]
        else:
            b = sum(os.path.getsize(self.store + s) for s in ("", "-wal", "-shm") if os.path.exists(self.store + s))
        return {"bytes": int(b), "history_rows": h[0], "history_seq": [h[1], h[2]], "items": items}

    def rows(self) -> Dict[str, List[Any]]:
        out = {}
        for pk, title, rank, bucket, stamp, owner, note, folder in self.sql(
                'SELECT _pk, title, rank, bucket, stamp, owner, note, folder FROM "Item"'):
            out[f"Item/{pk}"] = [title, rank, bucket, stamp, owner, note,
                                 None if folder is None else f"Folder/{folder}"]
        return out

    # -- processes ----------------------------------------------------------------------------------
    def spawn_worker(self, kind: str, name: str) -> None:
        a = self.args
        argv = [sys.executable, os.path.abspath(__file__), "--worker", kind, "--name", name, "--phase", self.kind,
                "--phase-dir", self.dir, "--seed", str(a.seed), "--fetchd", a.fetchd]
        if self.kind == "postgresql":
            argv += ["--pg-url", a.pg_url, "--schema", self.schema]
        else:
            argv += ["--store", self.store]
        out = open(os.path.join(self.dir, f"{name}.log"), "ab")
        try:
            self.procs[name] = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
        finally:
            out.close()

    def stop_all(self) -> None:
        """Every worker by its pid (TERM, then KILL), then any fetchd a killed worker left."""
        for p in self.procs.values():
            if p.poll() is None:
                p.terminate()
        t = now() + 15
        for p in self.procs.values():
            try:
                p.wait(max(0.1, t - now()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for name, pid in self.fetchd_pids.items():
            if rss_kb(pid) is not None and self.is_fetchd(pid):
                os.kill(pid, 9)
                self.problems.append(f"{name}'s fetchd (pid {pid}) was still running at the end; killed")

    def crash(self, name: str) -> str:
        """What a worker that ended early left: its exception and traceback, else its log's tail."""
        path = os.path.join(self.dir, f"{name}.json")
        try:
            r = read_json(path)
            return f"{r.get('crash')}\n{r.get('trace', '')}"
        except (OSError, ValueError):
            try:
                with open(os.path.join(self.dir, f"{name}.log"), errors="replace") as f:
                    return "log: " + f.read()[-1500:]
            except OSError:
                return "no result and no log"

    @staticmethod
    def is_fetchd(pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                return b"fetchd" in f.read().split(b"\0")[0]
        except OSError:
            return False

    # -- the phase ----------------------------------------------------------------------------------
    def run(self) -> Dict[str, Any]:
        t0 = now()
        try:
            return self.run_inner(t0)
        finally:
            self.stop_all()
            if self.kind == "postgresql":
                try:
                    conn = pg_connect(self.args.pg_url, application_name="soak-coordinator")
                    conn.cursor().execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')
                    conn.close()
                except Exception:
                    pass

    def run_inner(self, t0: float) -> Dict[str, Any]:
        a = self.args
        # Make the store and its folders with one fetchd, closed again before the workers start.
        setup = spawn(a.fetchd, ["--watch", "off"], os.path.join(self.dir, "setup-fetchd.log"))
        try:
            if self.kind == "postgresql":
                setup.open_store(MODEL, url=a.pg_url, schema=self.schema)
            else:
                setup.open_store(MODEL, path=self.store)
            main = setup.context()
            for f in FOLDERS:
                main.insert("Folder", {"name": f})
            main.save()
        finally:
            code = stop_client(setup)
        if code != 0:
            self.problems.append(f"the setup fetchd exited {code}")
        size_start = self.size()
        names = [f"w{i}" for i in range(FETCHD_WORKERS)] + [f"p{i}" for i in range(PLAIN_WRITERS)]
        for n in names:
            self.spawn_worker("fetchd" if n.startswith("w") else "plain", n)
        ready_by = now() + 180
        for n in names:
            while not os.path.exists(os.path.join(self.dir, f"{n}.ready")):
                if self.procs[n].poll() is not None or now() > ready_by:
                    raise RuntimeError(f"worker {n} did not get ready: {self.crash(n)}")
                time.sleep(0.05)
            if n.startswith("w"):
                self.fetchd_pids[n] = read_json(os.path.join(self.dir, f"{n}.ready"))["pid"]
        # Writes stop early enough for the final merge and checks to fit in the budget.
        reserve = min(max(10.0, self.budget * 0.2), 60.0)
        deadline = max(now() + 5, t0 + self.budget - reserve)
        write_json(os.path.join(self.dir, "go"), {"deadline": deadline})
        t_go = now()
        done_by = deadline + 300
        for n in names:
            while not os.path.exists(os.path.join(self.dir, f"{n}.done")):
                if self.procs[n].poll() is not None or now() > done_by:
                    raise RuntimeError(f"worker {n} stopped before its end: {self.crash(n)}")
                time.sleep(0.05)
        writing = round(now() - t_go, 1)
        write_json(os.path.join(self.dir, "quiet"), {})
        results: Dict[str, Any] = {}
        for n in names:
            try:
                self.procs[n].wait(timeout=300)
            except subprocess.TimeoutExpired:
                raise RuntimeError(f"worker {n} did not finish its final checks")
            path = os.path.join(self.dir, f"{n}.json")
            if not os.path.exists(path):
                raise RuntimeError(f"worker {n} left no result (exit {self.procs[n].returncode}): {self.crash(n)}")
            results[n] = read_json(path)
            if "crash" in results[n]:
                self.problems.append(f"{n} crashed: {results[n]['crash']}\n{results[n].get('trace', '')}")
        size_end = self.size()
        summary = self.verify(results)
        summary.update(size_start=size_start, size_end=size_end, writing_s=writing, elapsed_s=round(now() - t0, 1))
        return summary

    # -- the verdict ----------------------------------------------------------------------------------
    def verify(self, results: Dict[str, Any]) -> Dict[str, Any]:
        rows = self.rows()
        fetchd = {n: r for n, r in results.items() if r.get("kind") == "fetchd" and "crash" not in r}
        writers = {n: r for n, r in results.items() if "crash" not in r}
        # 1. Acknowledged writes: each owner's last stamp, or its delete.
        acked = lost = 0
        lost_examples: List[str] = []
        for n, r in writers.items():
            for oid, stamp in r["expect"].items():
                acked += 1
                row = rows.get(oid)
                ok = row is None if stamp is None else (row is not None and row[3] == stamp)
                if not ok:
                    lost += 1
                    if len(lost_examples) < 5:
                        # Who undid or redid an edit of it (protocol.md §6: an object another
                        # writer deleted stays deleted through undo and redo).
                        undone = {w: r2.get("undo_log", {}).get(oid) for w, r2 in results.items()
                                  if r2.get("undo_log", {}).get(oid)}
                        lost_examples.append(f"{n} {oid}: acknowledged {stamp!r}, store holds "
                                             f"{None if row is None else row[3]!r}"
                                             + (f"; undo/redo of an edit of it: {undone}" if undone else ""))
        # Rows an owner never had acknowledged (a write answered with an error that landed anyway).
        owners = {n: set(r["expect"]) for n, r in writers.items()}
        unexpected_rows = [oid for oid, row in rows.items() if row[4] in owners and oid not in owners[row[4]]]
        if lost:
            self.problems.append(f"{lost} acknowledged writes lost, e.g. {lost_examples}")
        if unexpected_rows:
            self.problems.append(f"{len(unexpected_rows)} rows no acknowledged write made, e.g. {unexpected_rows[:5]}")
        # 2. Every "all" mirror equals the table read directly: rows, values, order, sections.
        def key(oid: str) -> Tuple[Any, ...]:
            row = rows[oid]
            return (row[2].encode(), row[1], row[3].encode(), int(oid.split("/")[1]))
        order = sorted(rows, key=key)
        sections: List[List[Any]] = []
        for oid in order:
            b = rows[oid][2]
            if sections and sections[-1][0] == b:
                sections[-1][1] += 1
            else:
                sections.append([b, 1])
        mirror_equal = 0
        for n, r in fetchd.items():
            if r["mirror"] != rows:
                diff = [i for i in set(rows) | set(r["mirror"]) if rows.get(i) != r["mirror"].get(i)]
                self.problems.append(f"{n}: mirror != the table ({len(diff)} rows differ, e.g. "
                                     f"{[(i, r['mirror'].get(i), rows.get(i)) for i in diff[:2]]})")
            elif r["order"] != order or [list(s) for s in r["sections"]] != sections:
                self.problems.append(f"{n}: mirror's order or sections differ from the sort over the table")
            else:
                mirror_equal += 1
        # 3. History: every fetchd saw each other fetchd's transactions once, in token order.
        authors = sorted(fetchd)
        history_ok = True
        for n, r in fetchd.items():
            if r["tokens"] != sorted(set(r["tokens"])):
                history_ok = False
                self.problems.append(f"{n}: announced tokens are not strictly increasing (a duplicate or out of order)")
            if r["gaps"]:
                history_ok = False
                self.problems.append(f"{n}: {r['gaps']} announcements with gap: true")
            if n in r["by_author"]:
                history_ok = False
                self.problems.append(f"{n}: its own transactions were announced to it")
        seen_per_author: Dict[str, int] = {}
        for author in authors:
            sets = {n: tuple(r["by_author"].get(author, [])) for n, r in fetchd.items() if n != author}
            distinct = set(sets.values())
            seen_per_author[author] = len(next(iter(distinct))) if distinct else 0
            if len(distinct) > 1:
                history_ok = False
                counts = {n: len(s) for n, s in sets.items()}
                self.problems.append(f"the observers of {author} saw different transactions: {counts}")
        # 4. Each worker's own findings.
        for n, r in writers.items():
            s = r["stats"]
            if s["unexpected"]:
                self.problems.append(f"{n}: {len(s['unexpected'])} unexpected errors, e.g. {s['unexpected'][:3]}")
            if s["mismatches"]:
                self.problems.append(f"{n}: {len(s['mismatches'])} mirror mismatches, e.g. {s['mismatches'][:3]}")
        for n, r in fetchd.items():
            if r["exit"] != 0:
                self.problems.append(f"{n}: fetchd exited {r['exit']}")
        refused: Dict[str, int] = {}
        for r in writers.values():
            for k, v in r["stats"]["refused"].items():
                refused[k] = refused.get(k, 0) + v

        def total(field: str, among: Dict[str, Any] = writers) -> int:
            return sum(r["stats"][field] for r in among.values())

        return {
            "writes_acked": total("writes_acked"),
            "saves_acked": total("saves_acked", fetchd),
            "batches_acked": total("batches_acked", fetchd),
            "plain_transactions_acked": sum(r["stats"]["writes_acked"] for r in writers.values()
                                            if r["kind"] == "plain"),
            "objects_tracked": acked, "lost": lost, "unexpected_rows": len(unexpected_rows),
            "refused": refused, "abandoned": total("abandoned"),
            "undo": total("undo", fetchd), "redo": total("redo", fetchd), "rollbacks": total("rollbacks", fetchd),
            "checks": total("checks", fetchd), "inconclusive": total("inconclusive", fetchd), "mismatches": sum(len(r["stats"]["mismatches"]) for r in writers.values()),
            "mirrors_equal_to_table": f"{mirror_equal}/{len(fetchd)}",
            "final_checks_equal": f"{sum(1 for r in fetchd.values() if r['final_ok'])}/{len(fetchd)}",
            "history_exactly_once": history_ok, "transactions_seen_per_author": seen_per_author,
            "purged_history_rows": total("purged", fetchd),
            "notifications": {n: sum(r["notifications"].values()) for n, r in fetchd.items()},
            "rss_kb": {n: [r["rss_start"], r["rss_end"]] for n, r in fetchd.items()},
            "table_rows": len(rows),
        }


def print_summary(kind: str, s: Dict[str, Any], problems: List[str]) -> None:
    def p(label: str, value: Any) -> None:
        print(f"  {label:<34} {value}", flush=True)

    print(f"\n== {kind}: {'ok' if not problems else 'FAILED'} ==", flush=True)
    if "writes_acked" in s:
        p("time (writing / whole phase)", f"{s['writing_s']} s / {s['elapsed_s']} s")
        p("writes acknowledged", f"{s['writes_acked']} (saves {s['saves_acked']}, batch requests "
                                 f"{s['batches_acked']}, plain transactions {s['plain_transactions_acked']})")
        p("objects tracked / lost", f"{s['objects_tracked']} / {s['lost']} (rows nobody acknowledged: "
                                    f"{s['unexpected_rows']})")
        p("refused (retried) by kind", json.dumps(s["refused"], sort_keys=True) or "{}")
        p("abandoned after retries", s["abandoned"])
        p("undo / redo / rollbacks", f"{s['undo']} / {s['redo']} / {s['rollbacks']}")
        p("mirror checks / mismatches", f"{s['checks']} / {s['mismatches']} (inconclusive: a commit "
                                        f"landed during every try: {s['inconclusive']})")
        p("final check equal (before any reload)", s["final_checks_equal"])
        p("final mirrors equal to the table", f"{s['mirrors_equal_to_table']} (after the final check; a mirror "
                                              "whose check failed was loaded again first)")
        p("history exactly once", f"{s['history_exactly_once']} (transactions per author seen by the others: "
                                  f"{json.dumps(s['transactions_seen_per_author'], sort_keys=True)})")
        p("notifications received", json.dumps(s["notifications"], sort_keys=True))
        p("RSS kB (start -> end)", ", ".join(f"{n} {a}->{b}" for n, (a, b) in sorted(s["rss_kb"].items())))
        a, b = s["size_start"], s["size_end"]
        p("store bytes (start -> end)", f"{a['bytes']} -> {b['bytes']}")
        p("history rows (start -> end)", f"{a['history_rows']} -> {b['history_rows']} (seq {b['history_seq']}; "
                                         f"purged by w0: {s['purged_history_rows']})")
        p("items in the table at the end", s["table_rows"])
    for problem in problems:
        print(f"  PROBLEM: {problem}", flush=True)


def coordinator_main(args: argparse.Namespace) -> int:
    install_sigterm()
    kinds = ["sqlite"] + (["postgresql"] if args.pg_url else [])
    print(f"soak: seed {args.seed} (FETCHD_SOAK_SEED={args.seed} repeats the choices; the interleaving of "
          f"processes differs), {args.seconds} s: {', '.join(kinds)} {args.seconds / len(kinds):.0f} s each; "
          f"{FETCHD_WORKERS} fetchd + {PLAIN_WRITERS} plain writers per phase; fetchd {args.fetchd}", flush=True)
    failed = False
    for kind in kinds:
        phase = Phase(args, kind, args.seconds / len(kinds))
        summary: Dict[str, Any] = {}
        try:
            summary = phase.run()
        except RuntimeError as err:
            phase.problems.append(str(err))
        except SystemExit:
            print(f"\nsoak: interrupted during the {kind} phase; every worker and fetchd stopped", flush=True)
            raise
        print_summary(kind, summary, phase.problems)
        failed = failed or bool(phase.problems)
    print(f"\nsoak: {'FAILED' if failed else 'ok'} (seed {args.seed})", flush=True)
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fetchd", required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--workdir")
    parser.add_argument("--pg-url")
    # worker mode (started by the coordinator)
    parser.add_argument("--worker", choices=["fetchd", "plain"])
    parser.add_argument("--name")
    parser.add_argument("--phase")
    parser.add_argument("--phase-dir")
    parser.add_argument("--store")
    parser.add_argument("--schema")
    args = parser.parse_args()
    args.fetchd = os.path.abspath(args.fetchd)
    if args.worker:
        return worker_main(args)
    if args.seconds is None or args.workdir is None:
        parser.error("--seconds and --workdir are required")
    return coordinator_main(args)


if __name__ == "__main__":
    sys.exit(main())
