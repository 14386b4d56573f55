#!/usr/bin/env python3
"""Measures a watching fetchd (protocol.md §5 "Watching"): the time from a plain SQLite
client's commit to fetchd's `store/didChangeExternally`, the CPU an idle watching fetchd
uses over 10 s (from /proc/PID/stat, Linux), and what its own saves cost it when they come
50 ms apart (an editor's pace): CPU and voluntary context switches (wake-ups) per save.

    scripts/measure-external.py .build/debug/fetchd [commits=60] [watch=auto|poll]
"""
import json
import os
import random
import select
import sqlite3
import subprocess
import sys
import tempfile
import time

MODEL = {"entities": [{"name": "Note", "attributes": {"title": {"type": "string"}}}]}


def main(binary, commits, watch):
    directory = tempfile.mkdtemp(prefix="fetchd-external-")
    path = os.path.join(directory, "s.sqlite")
    process = subprocess.Popen([binary, "--framing", "ndjson", "--watch", watch],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    pending = b""

    def send(message):
        process.stdin.write((json.dumps(message) + "\n").encode())

    def read_message(timeout=5):
        nonlocal pending
        while b"\n" not in pending:
            ready, _, _ = select.select([process.stdout], [], [], timeout)
            if not ready:
                raise TimeoutError("fetchd sent nothing")
            pending += os.read(process.stdout.fileno(), 1 << 16)
        line, pending = pending.split(b"\n", 1)
        return json.loads(line)

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "store/open", "params": {"path": path, "model": MODEL}})
        read_message()
        send({"jsonrpc": "2.0", "id": 2, "method": "controller/create",
              "params": {"context": "main", "name": "n",
                         "request": {"entity": "Note", "sortDescriptors": [{"key": "title"}]}}})
        read_message()
        db = sqlite3.connect(path, timeout=5)
        latencies = []
        for i in range(commits):
            time.sleep(random.uniform(0.0, 0.1))  # anywhere in the watcher's interval
            db.execute("INSERT INTO Note (title) VALUES (?)", (f"t{i}",))
            start = time.monotonic()
            db.commit()
            while read_message().get("method") != "store/didChangeExternally":
                pass
            latencies.append((time.monotonic() - start) * 1000)
        db.close()
        latencies.sort()
        print(f"--watch {watch}: commit -> store/didChangeExternally over {commits} commits: "
              f"median {latencies[len(latencies) // 2]:.1f} ms, p90 {latencies[int(len(latencies) * 0.9)]:.1f} ms, "
              f"max {latencies[-1]:.1f} ms")

        def cpu_ticks():
            fields = open(f"/proc/{process.pid}/stat").read().rsplit(")", 1)[1].split()
            return int(fields[11]) + int(fields[12])  # utime + stime

        before = cpu_ticks()
        time.sleep(10)
        used = (cpu_ticks() - before) / os.sysconf("SC_CLK_TCK")
        print(f"--watch {watch}: idle for 10 s: {used * 1000:.0f} ms CPU ({used * 10:.2f} %)")

        def wakeups():
            total = 0
            for task in os.listdir(f"/proc/{process.pid}/task"):
                for line in open(f"/proc/{process.pid}/task/{task}/status"):
                    if line.startswith("voluntary_ctxt_switches:"):
                        total += int(line.split()[1])
            return total

        saves = 200
        before, woken = cpu_ticks(), wakeups()
        for i in range(saves):
            send([{"jsonrpc": "2.0", "id": 10 + 2 * i, "method": "context/insert",
                   "params": {"context": "main", "entity": "Note", "values": {"title": f"own{i}"}}},
                  {"jsonrpc": "2.0", "id": 11 + 2 * i, "method": "context/save", "params": {"context": "main"}}])
            while not isinstance(read_message(), list):
                pass
            time.sleep(0.05)
        used = (cpu_ticks() - before) / os.sysconf("SC_CLK_TCK")
        print(f"--watch {watch}: {saves} own saves 50 ms apart: {used * 1000 / saves:.2f} ms CPU and "
              f"{(wakeups() - woken) / saves:.1f} wake-ups a save")
    finally:
        process.stdin.close()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        for name in os.listdir(directory):
            os.unlink(os.path.join(directory, name))
        os.rmdir(directory)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 60, sys.argv[3] if len(sys.argv) > 3 else "auto")
