"""Shared helpers of the soak (soak.py) and the PostgreSQL fault test (pg_faults.py).

Everything here runs in the venv scripts/soak.sh and scripts/test-pg-faults.sh make under
.build/soak-venv (psycopg2-binary for the PostgreSQL sessions), with the Python client taken
from the source tree (clients/python on sys.path).
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "clients", "python"))

from fetchd import Client, FetchdError  # noqa: E402

__all__ = ["Client", "FetchdError", "install_sigterm", "rss_kb", "spawn", "exact_check", "guard_mirror", "Failure",
           "add_to_url", "pg_connect", "SIGTERMED"]


class Failure(Exception):
    """A check failed (the message says which)."""


SIGTERMED = [False]


def install_sigterm() -> None:
    """SIGTERM and SIGINT raise SystemExit, so every `finally` runs (children stopped by pid)."""

    def handler(signum: int, _frame: Any) -> None:
        SIGTERMED[0] = True
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)


def rss_kb(pid: int) -> Optional[int]:
    """VmRSS of a process in kB (None once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def spawn(binary: str, args: Sequence[str], stderr_path: str, timeout: float = 120.0) -> Client:
    """fetchd with its stderr in a file (NDJSON framing, generous read timeout)."""
    err = open(stderr_path, "ab")
    try:
        return Client.spawn(binary, framing="ndjson", args=list(args), stderr=err, timeout=timeout)
    finally:
        err.close()  # the child holds its own descriptor


def stop_client(client: Optional[Client], timeout: float = 20.0) -> Optional[int]:
    """Closes fetchd's input and waits; kills it by its pid when it does not exit in time."""
    if client is None:
        return None
    proc = client.process
    try:
        return client.close(timeout)
    except Exception:
        if proc is not None and proc.poll() is None:
            proc.kill()
            return proc.wait()
        return None


def add_to_url(url: str, **params: str) -> str:
    """`url` with libpq query parameters added (application_name, options...)."""
    from urllib.parse import quote

    extra = "&".join(f"{k}={quote(v, safe='')}" for k, v in params.items())
    return url + ("&" if "?" in url else "?") + extra


def pg_connect(url: str, autocommit: bool = True, application_name: str = "fetchd-soak") -> Any:
    """A psycopg2 session (libpq understands the same postgresql:// URL fetchd takes)."""
    import psycopg2  # type: ignore

    conn = psycopg2.connect(url, application_name=application_name)
    conn.autocommit = autocommit
    return conn


MAX_SECTIONS = 8


def guard_mirror(controller: Any) -> Any:
    """Replaces the controller's TableMirror with one that records a cycle it cannot apply
    (MirrorError: a notification that does not fit what the earlier ones built) instead of
    raising it out of whatever call read it, which would hide that call's answer (a save's
    success, say) from the caller."""
    from fetchd.errors import MirrorError
    from fetchd.mirror import TableMirror

    class GuardedMirror(TableMirror):
        def __init__(self) -> None:
            super().__init__()
            self.errors: List[str] = []

        def apply(self, batch: Any) -> None:
            try:
                super().apply(batch)
            except MirrorError as e:
                self.errors.append(f"MirrorError: {e}")

        def apply_difference(self, difference: Any) -> None:
            try:
                super().apply_difference(difference)
            except MirrorError as e:
                self.errors.append(f"MirrorError: {e}")

    guarded = GuardedMirror()
    guarded.sections = controller.mirror.sections
    controller.mirror = guarded
    return guarded


def exact_check(client: Client, controller: Any, context: str, request: Dict[str, Any],
                attempts: int = 30) -> Tuple[Optional[bool], str]:
    """The controller's mirror (built only from notifications) against the controller's own
    rows and a fresh context/fetch of the same request, read in ONE JSON-RPC batch: fetchd
    merges other processes' commits only between messages (protocol.md §1.5), so every
    notification before the batch's answer has been applied to the mirror when it arrives.
    The rows' values are read from the store as it is when they run, though, and a commit can
    land after the merge that precedes a message (§5 "Merging": its notifications come at the
    next check, and meanwhile controller/rows may even answer unknownObject for a row the
    controller still holds). So store/checkExternalChanges merges first and answers its token,
    and the batch ends with store/historyToken: when both agree nothing was committed after
    the merge and the comparison is exact; otherwise it is tried again.
    Returns (True, "") when equal, (False, what differed) when not, and (None, why) when no
    attempt ran without a commit landing in it."""
    why = ""
    for _ in range(attempts):
        # Merged up to `before` (every notification of it applied by the time this returns)...
        before = client.store_check_external_changes()["token"]
        calls: List[Tuple[str, Any]] = [("controller/sections", {"controller": controller.name})]
        calls += [("controller/rows", {"controller": controller.name, "section": i}) for i in range(MAX_SECTIONS)]
        calls += [("context/fetch", {"context": context, "request": request}), ("store/historyToken", {})]
        responses = client.send_batch(calls)
        for r in (responses[0], responses[-1]):
            if r.error is not None:
                raise r.error
        # ... and nothing committed since, up to the batch's last read: the reads saw what was merged.
        if responses[-1].result["token"] != before:
            why = "a commit landed during every attempt"
            client.wait_for_notifications(0.1)
            continue
        return _compare(controller, responses[0].result["sections"], responses[1:1 + MAX_SECTIONS], responses[-2])
    return None, why


def reload_mirror(client: Client, controller: Any, attempts: int = 10) -> bool:
    """controller/performFetch and the mirror loaded again from controller/sections and the
    rows of every section, read in ONE JSON-RPC batch (no merge can come between them; the
    client's own reload, a request per section, starts over whenever a cycle arrives, which
    under a steady stream of commits can take long). Tried again when a row read fails (an
    object deleted by a commit that landed after the merge). True when loaded."""
    from fetchd.changes import SectionInfo

    for _ in range(attempts):
        calls: List[Tuple[str, Any]] = [("controller/performFetch", {"controller": controller.name}),
                                        ("controller/sections", {"controller": controller.name})]
        calls += [("controller/rows", {"controller": controller.name, "section": i}) for i in range(MAX_SECTIONS)]
        responses = client.send_batch(calls)
        if responses[0].error is not None or responses[1].error is not None:
            client.wait_for_notifications(0.1)
            continue
        sections = responses[1].result["sections"]
        rows = [responses[2 + i] for i in range(min(len(sections), MAX_SECTIONS))]
        if len(sections) > MAX_SECTIONS or any(r.error is not None for r in rows):
            client.wait_for_notifications(0.1)
            continue
        controller.mirror.load([SectionInfo.from_wire(s) for s in sections],
                               [[dict(o) for o in r.result["objects"]] for r in rows])
        return True
    return False


def _compare(controller: Any, sections: List[Dict[str, Any]], row_responses: List[Any], fetched: Any
             ) -> Tuple[Optional[bool], str]:
    if len(sections) > MAX_SECTIONS:
        return False, f"{len(sections)} sections, more than the check reads"
    rows: List[List[Dict[str, Any]]] = []
    for i, info in enumerate(sections):
        r = row_responses[i]
        if r.error is not None:
            return False, f"controller/rows of section {i} ({info}) answered {r.error.kind}: {r.error.message}"
        rows.append([dict(o) for o in r.result["objects"]])
        if len(rows[-1]) != info["numberOfObjects"]:
            return False, f"section {i} says {info['numberOfObjects']} rows, controller/rows gave {len(rows[-1])}"
    if fetched.error is not None:
        return False, f"context/fetch answered {fetched.error.kind}: {fetched.error.message}"
    fresh = [dict(o) for o in fetched.result["objects"]]
    mirror = controller.mirror
    infos = [(s.name, s.index_title, s.number_of_objects) for s in mirror.section_infos()]
    wire = [(s["name"], s["indexTitle"], s["numberOfObjects"]) for s in sections]
    if infos != wire:
        return False, f"mirror sections {infos} != controller {wire}"
    mirrored = [[dict(r) for r in s.rows] for s in mirror.sections]
    if mirrored != rows:
        for i, (m, c) in enumerate(zip(mirrored, rows)):
            if m != c:
                diff = next(((j, a, b) for j, (a, b) in enumerate(zip(m, c)) if a != b), None)
                return False, f"mirror section {i} != controller/rows (first difference {diff}, {len(m)} vs {len(c)} rows)"
        return False, "mirror rows != controller/rows"
    flat = [r for s in rows for r in s]
    if flat != fresh:
        diff = next(((j, a, b) for j, (a, b) in enumerate(zip(flat, fresh)) if a != b), None)
        return False, f"controller rows ({len(flat)}) != context/fetch ({len(fresh)}), first difference {diff}"
    return True, ""


def elapsed(t0: float) -> float:
    return round(time.monotonic() - t0, 2)


def run_quiet(argv: Sequence[str]) -> str:
    return subprocess.run(list(argv), check=True, capture_output=True, text=True).stdout
