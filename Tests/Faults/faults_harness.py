"""Shared pieces of the fault-injection tests (scripts/test-faults.sh runs them).

Every process a test starts goes through ``spawn_fetchd`` / ``Tracked``: it is recorded in
``FAULTS_WORKDIR/pids`` (so the shell script can end it by its own pid if Python itself dies)
and ended by its own pid when the test ends, whatever the outcome; SIGTERM becomes
KeyboardInterrupt so ``finally`` blocks (processes, mounts) run. Mounts exist only inside the
private mount namespace the script starts (``unshare -m``), and are unmounted on the way out
as well.
"""
from __future__ import annotations

import atexit
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from typing import Any, Dict, Iterator, List, Optional, Sequence

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "clients", "python"))

from fetchd import Client, FetchdError  # noqa: E402  (after the path is set)

BIN = os.environ.get("FAULTS_BIN") or os.path.join(REPO, ".build", "debug", "fetchd")
MOUNTS_OK = os.environ.get("FAULTS_MOUNTS") == "1"
CC = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")

_own_workdir: Optional[str] = None
if os.environ.get("FAULTS_WORKDIR"):
    WORKDIR = os.environ["FAULTS_WORKDIR"]
else:  # run by hand: a scratch directory of our own, removed at exit
    WORKDIR = _own_workdir = tempfile.mkdtemp(prefix="fetchd-faults.")
PIDFILE = os.path.join(WORKDIR, "pids")

# Generous: a reply that takes longer than this is a wedge, not a slow machine.
REPLY_TIMEOUT = float(os.environ.get("FAULTS_REPLY_TIMEOUT", "120"))

# The documented engine error kinds (protocol.md §3.2) a store fault may be answered with.
STORE_FAULT_KINDS = {"storeError", "storeBusy", "storeUnavailable", "storeClosed"}

NOTES_MODEL: Dict[str, Any] = {"entities": [{"name": "Note", "attributes": {
    "title": {"type": "string"},
    "rank": {"type": "integer", "default": 0, "indexed": True},
    "body": {"type": "string", "optional": True}}}]}
NOTES_REQUEST: Dict[str, Any] = {"entity": "Note", "sortDescriptors": [{"key": "rank"}, {"key": "title"}]}

_procs: List[subprocess.Popen] = []
_mounts: List[str] = []
_lock = threading.Lock()


def _register(process: subprocess.Popen, what: str) -> None:
    with _lock:
        _procs.append(process)
        with open(PIDFILE, "a") as f:
            f.write(f"{process.pid} {what}\n")


def end_process(process: Optional[subprocess.Popen], sig: int = signal.SIGKILL) -> Optional[int]:
    """Ends one process we started, by its own pid, and reaps it; its exit code."""
    if process is None:
        return None
    if process.poll() is None:
        try:
            os.kill(process.pid, sig)
        except ProcessLookupError:
            pass
    try:
        return process.wait(30)
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        return process.wait()


def cleanup_all() -> None:
    """Every process still running is killed (by pid); every mount is unmounted."""
    with _lock:
        procs = list(_procs)
    for p in procs:
        end_process(p)
    for mount in reversed(list(_mounts)):
        umount(mount)
    if _own_workdir is not None:
        shutil.rmtree(_own_workdir, ignore_errors=True)


def _on_sigterm(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


atexit.register(cleanup_all)
if threading.current_thread() is threading.main_thread():
    signal.signal(signal.SIGTERM, _on_sigterm)


def log_path(name: str) -> str:
    d = os.path.join(WORKDIR, "logs")
    os.makedirs(d, exist_ok=True)
    return os.path.join(d, name + ".log")


def tail(path: str, lines: int = 15) -> str:
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


class Fetchd:
    """A fetchd process with the Python client attached (NDJSON), its stderr in a log file."""

    def __init__(self, name: str, args: Sequence[str] = (), env: Optional[Dict[str, str]] = None,
                 binary: Optional[str] = None) -> None:
        self.name = name
        self.log = log_path(name)
        self._log_file = open(self.log, "ab")
        full_env = dict(os.environ)
        full_env.update(env or {})
        try:
            self.client = Client.spawn(binary or BIN, framing="ndjson", args=list(args), stderr=self._log_file,
                                       env=full_env, timeout=REPLY_TIMEOUT, initialize=False)
        finally:
            self._log_file.close()
        assert self.client.process is not None
        self.process: subprocess.Popen = self.client.process
        _register(self.process, f"{binary or BIN} {name}")
        self.client.initialize()

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> Optional[int]:
        """End of input: fetchd finishes and exits (0 expected); killed after a long wait."""
        return self.client.close(timeout=REPLY_TIMEOUT)

    def stop(self) -> Optional[int]:
        """shutdown, then exit: 0 expected."""
        return self.client.stop()

    def kill(self) -> Optional[int]:
        return end_process(self.process, signal.SIGKILL)

    def cpu_seconds(self) -> float:
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stderr_tail(self) -> str:
        return tail(self.log)


def expect_error(call: Any, *args: Any, **kwargs: Any) -> FetchdError:
    """Runs a client call that must fail; its FetchdError (AssertionError when it succeeds)."""
    try:
        result = call(*args, **kwargs)
    except FetchdError as error:
        return error
    except Exception as error:  # e.g. a MirrorError the client raises with the answer
        raise AssertionError(f"{getattr(call, '__name__', call)} raised {error!r}") from error
    raise AssertionError(f"{getattr(call, '__name__', call)} succeeded ({result!r}) where an error was expected")


# -- mounts (only inside the script's private mount namespace) --------------------------------
def mount_tmpfs(directory: str, size: str) -> None:
    os.makedirs(directory, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", directory], check=True)
    _mounts.append(directory)


def remount(directory: str, mode: str) -> subprocess.CompletedProcess:
    return subprocess.run(["mount", "-o", f"remount,{mode}", directory], capture_output=True, text=True)


def umount(directory: str) -> None:
    if directory not in _mounts:
        return
    if subprocess.run(["umount", directory], capture_output=True).returncode != 0:
        subprocess.run(["umount", "-l", directory], capture_output=True)
    _mounts.remove(directory)


@contextmanager
def tmpfs(directory: str, size: str = "2m") -> Iterator[str]:
    mount_tmpfs(directory, size)
    try:
        yield directory
    finally:
        umount(directory)


def fill_disk(directory: str) -> str:
    """Writes a filler file until the filesystem has no byte left; its path."""
    path = os.path.join(directory, "filler")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        for size in (1 << 16, 4096, 512, 1):
            chunk = b"\0" * size
            while True:
                try:
                    os.write(fd, chunk)
                except OSError:
                    break
    finally:
        os.close(fd)
    return path


def free_bytes(directory: str) -> int:
    st = os.statvfs(directory)
    return st.f_bavail * st.f_frsize


# -- the file, read by a plain SQLite client ----------------------------------------------------
def connect(path: str) -> sqlite3.Connection:
    return sqlite3.connect(path, timeout=30, isolation_level=None)


def note_rows(path: str) -> Dict[str, Dict[str, Any]]:
    """Every Note row as fetchd writes it on the wire, by id."""
    db = connect(path)
    try:
        return {f"Note/{pk}": {"id": f"Note/{pk}", "title": t, "rank": r, "body": b}
                for pk, t, r, b in db.execute("SELECT _pk, title, rank, body FROM Note")}
    finally:
        db.close()


def integrity(path: str) -> str:
    db = connect(path)
    try:
        return "; ".join(r[0] for r in db.execute("PRAGMA integrity_check"))
    finally:
        db.close()


def max_token(path: str) -> int:
    db = connect(path)
    try:
        return int(db.execute("SELECT coalesce(max(seq), 0) FROM _fetchd_history").fetchone()[0])
    finally:
        db.close()


def _report(line: str) -> None:
    """A line on stderr, and in WORKDIR/summary for the script's recap."""
    sys.stderr.write(f"\n{line}\n")
    sys.stderr.flush()
    with _lock, open(os.path.join(WORKDIR, "summary"), "a") as f:
        f.write(line + "\n")


def summary(name: str, **figures: Any) -> None:
    """The one-line summary of a test, with its figures."""
    _report(f"FAULTS {name}: " + " ".join(f"{k}={v}" for k, v in figures.items()))


def skip_loudly(case: Any, why: str) -> None:
    _report(f"FAULTS SKIPPED {case.id()}: {why}")
    case.skipTest(why)


def build_shim() -> Optional[str]:
    """Compiles faultinject.c into the workdir; its path, or None without a C compiler."""
    out = os.path.join(WORKDIR, "faultinject.so")
    if os.path.exists(out):
        return out
    if CC is None:
        return None
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "faultinject.c")
    subprocess.run([CC, "-shared", "-fPIC", "-O2", "-o", out, src, "-ldl"], check=True)
    return out


def wait_until(predicate: Any, timeout: float, step: float = 0.01) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return bool(predicate())
