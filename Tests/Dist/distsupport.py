"""What the dist tests share: where the artifacts are, running a command, and one whole
session (open a store file, a controller, insert, save) checked from its bytes."""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence

REPO = Path(__file__).resolve().parents[2]
DIST = Path(os.environ.get("FETCHD_DIST_DIR", REPO / "dist"))
ROOT = DIST / "root"
BINARY = ROOT / "bin" / "fetchd"


def version() -> str:
    return subprocess.run([str(REPO / "scripts" / "version.sh")], check=True, capture_output=True,
                          text=True).stdout.strip()


def run(args: Sequence[str], *, input: Optional[bytes] = None, env: Optional[Dict[str, str]] = None,
        timeout: float = 60, cwd: Optional[str] = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(list(args), input=input, capture_output=True, env=env, timeout=timeout, cwd=cwd)


def is_root() -> bool:
    return os.geteuid() == 0


def toolchain_dir() -> Optional[Path]:
    """The Swift toolchain's folder (/opt/swift for .../opt/swift/usr/bin/swift), if one is found."""
    swift = shutil.which("swift")
    if not swift:
        return None
    path = Path(swift).resolve()
    return path.parents[2] if path.parent.name == "bin" and path.parents[1].name == "usr" else path.parent


def without_toolchain(command: Sequence[str]) -> List[str]:
    """The command run in a private mount namespace where the toolchain's folder is an empty
    tmpfs, as on a machine that never had Swift (needs root). Exit 97: it was not hidden."""
    hidden = toolchain_dir()
    assert hidden is not None, "no Swift toolchain on PATH to hide"
    script = ('mount -t tmpfs -o size=1m,mode=0755 fetchd-no-swift "$1" || exit 98; '
              '[ -z "$(ls -A "$1")" ] || exit 97; shift; exec "$@"')
    return ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", script, "sh",
            str(hidden), *command]


MODEL = {"entities": [{"name": "Note", "attributes": {"title": {"type": "string"}}}]}


def session_messages(store: str) -> bytes:
    """A client's whole session: open a store file, a controller on it, insert and save."""
    messages = [
        {"method": "initialize", "params": {"clientInfo": {"name": "dist-test"}}, "id": 1},
        {"method": "store/open", "params": {"path": store, "model": MODEL}, "id": 2},
        {"method": "controller/create", "id": 3, "params": {
            "context": "main", "name": "notes", "request": {"entity": "Note", "sortDescriptors": [{"key": "title"}]}}},
        {"method": "context/insert", "params": {"context": "main", "entity": "Note", "values": {"title": "hello"}},
         "id": 4},
        {"method": "context/save", "params": {"context": "main"}, "id": 5},
        {"method": "shutdown", "id": 6},
        {"method": "exit"},
    ]
    return b"".join(json.dumps({"jsonrpc": "2.0", **m}).encode() + b"\n" for m in messages)


def check_session(output: bytes, store: str) -> List[dict]:
    """Every request answered without an error, the controller told of the insert, and the row
    in the file. Returns the messages read, for more checks."""
    messages = [json.loads(line) for line in output.splitlines() if line.strip()]
    answers = {m["id"]: m for m in messages if "id" in m}
    for rid in range(1, 7):
        assert rid in answers, f"request {rid} unanswered: {messages}"
        assert "error" not in answers[rid], f"request {rid} failed: {answers[rid]}"
    assert answers[1]["result"]["serverInfo"]["version"] == version()
    methods = [m.get("method") for m in messages if "method" in m]
    assert methods[:3] == ["controller/willChangeContent", "controller/didChangeObject",
                           "controller/didChangeContent"], methods
    change = next(m for m in messages if m.get("method") == "controller/didChangeObject")["params"]
    assert change["type"] == "insert" and change["object"]["title"] == "hello", change
    with sqlite3.connect(store) as db:
        assert db.execute('SELECT title FROM "Note"').fetchall() == [("hello",)]
    return messages


def scratch() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="fetchd-dist-")
