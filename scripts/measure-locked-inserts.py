#!/usr/bin/env python3
"""Measures how long a freshly opened fetchd takes to answer its first inserts while another
process holds the store's write lock (protocol.md §5, "Ids ahead of need").

    scripts/measure-locked-inserts.py BIN [INSERTS]

Makes a store, starts `BIN --store FILE` (opened with its recorded model), takes the write lock
with a plain sqlite3 connection (BEGIN IMMEDIATE), then sends INSERTS context/insert requests
one at a time and prints each answer's time and the median and worst; the lock is released
and every process stopped at the end.
"""
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

binary = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 10
model = {"entities": [{"name": "Note", "attributes": {"title": {"type": "string"}}}]}
with tempfile.TemporaryDirectory() as tmp:
    store = os.path.join(tmp, "notes.db")
    with open(os.path.join(tmp, "model.json"), "w") as f:
        json.dump(model, f)
    subprocess.run([binary, "exec", os.devnull, "--store", store, "--model", f.name], check=True)
    server = subprocess.Popen([binary, "--store", store, "--framing", "ndjson"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE)
    holder = sqlite3.connect(store, isolation_level=None)
    try:
        def call(i, method, params):
            server.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n").encode())
            server.stdin.flush()
            return json.loads(server.stdout.readline())
        call(0, "server/ping", {})  # opened
        holder.execute("BEGIN IMMEDIATE")
        holder.execute("INSERT INTO Note (title) VALUES ('held')")
        times, errors = [], []
        for i in range(1, count + 1):
            start = time.perf_counter()
            answer = call(i, "context/insert", {"context": "main", "entity": "Note", "values": {"title": str(i)}})
            times.append((time.perf_counter() - start) * 1000)
            if "error" in answer:
                errors.append(answer["error"]["data"].get("kind"))
        holder.execute("ROLLBACK")
        call(count + 1, "context/rollback", {"context": "main"})  # nothing left unsaved at the end
        print("answers (ms): " + ", ".join(f"{t:.2f}" for t in times))
        print(f"median {statistics.median(times):.2f} ms, worst {max(times):.2f} ms, errors {errors or 'none'}")
    finally:
        holder.close()
        server.stdin.close()
        server.wait(timeout=30)
