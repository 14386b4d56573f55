"""How long another process's commit takes to reach a subscribed client of `fetchd mcp`.

Each sample: a plain sqlite3 commit, timed from the moment commit() returns to the moment the
client holds the notification. Measured for
- the SDK in each era (listen stream at 2026-07-28; resources/subscribe at 2025-11-25), which
  adds the SDK's own parsing and task hops;
- a bare NDJSON reader of `fetchd mcp` (the server's part alone);
- a bare reader of the JSON-RPC server's `store/didChangeExternally`, the figure to match, and
  of its `controller/didChange` for the same controller (the work a resource update waits for).

usage: python latency.py path/to/fetchd [samples]
"""

import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.subscriptions import ResourceUpdated

import mcp_types as types

MODEL = {"entities": [{"name": "Contact", "attributes": {"name": {"type": "string"}, "age": {"type": "integer"}}}]}
URI = "fetchd://controller/all"
GAP = 0.02  # seconds between commits, so that each is its own merge
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def commit(db, i):
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO Contact (name, age) VALUES (?, ?)", (f"n{i}", i))
    return time.perf_counter()


def summary(name, samples):
    ms = sorted(s * 1000 for s in samples)
    p = lambda q: ms[min(len(ms) - 1, int(q * len(ms)))]
    print(f"{name:44s} n={len(ms):4d}  p50 {statistics.median(ms):6.2f} ms  p90 {p(0.9):6.2f} ms  max {ms[-1]:6.2f} ms")
    return statistics.median(ms)


class Lines:
    """A spawned process read line by line; stopped (by its own pid) when done."""

    def __init__(self, args):
        self.process = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)

    def send(self, message):
        self.process.stdin.write((json.dumps(message) + "\n").encode())

    def until(self, predicate):
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("fetchd ended")
            message = json.loads(line)
            if predicate(message):
                return message

    def close(self):
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def bare(db, args, setup, is_news, samples):
    reader = Lines(args)
    try:
        for message, answered in setup:
            reader.send(message)
            reader.until(answered)
        out = []
        for i in range(samples):
            time.sleep(GAP)
            start = commit(db, i)
            reader.until(is_news)
            out.append(time.perf_counter() - start)
        return out
    finally:
        reader.close()


def bare_mcp(fetchd, db, samples):
    setup = [
        ({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": ENVELOPE}}, lambda m: m.get("id") == 1),
        ({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"_meta": ENVELOPE, "name": "open_controller",
          "arguments": {"name": "all", "entity": "Contact"}}}, lambda m: m.get("id") == 2),
        ({"jsonrpc": "2.0", "id": 3, "method": "subscriptions/listen", "params": {"_meta": ENVELOPE,
          "notifications": {"resourceSubscriptions": [URI]}}}, lambda m: m.get("method") == "notifications/subscriptions/acknowledged"),
    ]
    return bare(db, [fetchd, "mcp", "--store", db], setup,
                lambda m: m.get("method") == "notifications/resources/updated", samples)


def bare_jsonrpc(fetchd, db, samples):
    setup = [({"jsonrpc": "2.0", "id": 1, "method": "server/ping"}, lambda m: m.get("id") == 1)]
    return bare(db, [fetchd, "--store", db], setup, lambda m: m.get("method") == "store/didChangeExternally", samples)


def bare_jsonrpc_controller(fetchd, db, samples):
    setup = [({"jsonrpc": "2.0", "id": 1, "method": "controller/create", "params": {
        "context": "main", "name": "all", "request": {"entity": "Contact"},
        "notify": {"mode": "difference", "objects": False}}}, lambda m: m.get("id") == 1)]
    return bare(db, [fetchd, "--store", db], setup, lambda m: m.get("method") == "controller/didChange", samples)


async def sdk(fetchd, db, mode, samples):
    arrived = anyio.Event()

    async def handler(message):
        if isinstance(message, types.ResourceUpdatedNotification):
            arrived.set()

    params = StdioServerParameters(command=fetchd, args=["mcp", "--store", db])
    out = []
    async with Client(params, mode=mode, message_handler=handler if mode == "legacy" else None) as client:
        await client.call_tool("open_controller", {"name": "all", "entity": "Contact"})

        async def measure(wait):
            for i in range(samples):
                await anyio.sleep(GAP)
                start = commit(db, 10_000 + i)
                await wait()
                out.append(time.perf_counter() - start)

        if mode == "legacy":
            await client.subscribe_resource(URI)

            async def wait():
                nonlocal arrived
                await arrived.wait()
                arrived = anyio.Event()

            await measure(wait)
        else:
            async with client.listen(resource_subscriptions=[URI]) as sub:
                events = sub.__aiter__()

                async def wait():
                    event = await events.__anext__()
                    assert isinstance(event, ResourceUpdated)

                await measure(wait)
    return out


async def main(fetchd, samples):
    import warnings

    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as directory:
        db = os.path.join(directory, "latency.db")
        model = os.path.join(directory, "model.json")
        with open(model, "w") as f:
            json.dump(MODEL, f)
        # Create the store once, with fetchd's own tables and triggers.
        subprocess.run([fetchd, "exec", "-", "--store", db, "--model", model], input="", check=True, timeout=60)
        print(f"{samples} sqlite3 commits, {GAP * 1000:.0f} ms apart, each timed until the client holds the notification:")
        summary("fetchd (JSON-RPC): store/didChangeExternally", bare_jsonrpc(fetchd, db, samples))
        summary("fetchd (JSON-RPC): controller/didChange", bare_jsonrpc_controller(fetchd, db, samples))
        summary("fetchd mcp, bare reader: resources/updated", bare_mcp(fetchd, db, samples))
        summary("fetchd mcp, SDK 2026-07-28 listen", await sdk(fetchd, db, "auto", samples))
        summary("fetchd mcp, SDK 2025-11-25 subscribe", await sdk(fetchd, db, "legacy", samples))


if __name__ == "__main__":
    anyio.run(main, os.path.abspath(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 200)
