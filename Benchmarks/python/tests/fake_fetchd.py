#!/usr/bin/env python3
"""A stand-in server for testing the benchmark driver, never a measurement of fetchd.

Modes: `not-found` answers every request with -32601 (what fetchd does before its methods
land); `working` implements just enough of protocol.md for the driver (store/open,
context/insert|update|save, one sorted controller with its notifications); `fail-create`
is `working` but answers controller/create with an internal error.
"""

import bisect
import json
import sys

mode = sys.argv[1]
objects = {}      # id -> ts
controllers = {}  # name -> sorted [(ts, number)]
next_number = 1


def reply(rid, result=None, error=None):
    msg = {"jsonrpc": "2.0", "id": rid}
    if error:
        msg["error"] = error
    else:
        msg["result"] = result
    return msg


def handle(msg, pending):
    global next_number
    method, params, rid = msg.get("method"), msg.get("params") or {}, msg.get("id")
    if mode == "not-found" or (mode == "fail-create" and method == "controller/create"):
        code = -32601 if mode == "not-found" else -32603
        return reply(rid, error={"code": code, "message": "no", "data": {"kind": "test"}})
    if method == "initialize":
        return reply(rid, {"serverInfo": {"name": "fake"}, "protocolVersion": 1, "capabilities": {}})
    if method in ("server/ping", "store/open", "context/save", "controller/close", "shutdown", "controller/performFetch"):
        return reply(rid, {})
    if method == "exit":
        sys.exit(0)
    if method == "context/insert":
        oid = "Msg/%d" % next_number
        objects[oid] = params["values"]["ts"]
        for rows in controllers.values():
            bisect.insort(rows, (objects[oid], next_number))
        next_number += 1
        return reply(rid, {"object": {"id": oid}})
    if method == "context/update":
        oid, new = params["id"], params["values"]["ts"]
        number = int(oid.split("/")[1])
        for name, rows in controllers.items():
            old_row = bisect.bisect_left(rows, (objects[oid], number))
            rows.pop(old_row)
            bisect.insort(rows, (new, number))
            new_row = bisect.bisect_left(rows, (new, number))
            pending.append({"controller": name, "type": "move" if old_row != new_row else "update",
                            "id": oid, "indexPath": [0, old_row], "newIndexPath": [0, new_row]})
        objects[oid] = new
        return reply(rid, {"object": {"id": oid}})
    if method == "controller/create":
        controllers[params["name"]] = sorted((ts, int(oid.split("/")[1])) for oid, ts in objects.items())
        return reply(rid, {"sections": [{"name": "", "indexTitle": "", "numberOfObjects": len(objects)}],
                           "count": len(objects)})
    return reply(rid, error={"code": -32601, "message": "Method not found"})


def notifications(pending):
    out = []
    for name in sorted({p["controller"] for p in pending}):
        out.append({"jsonrpc": "2.0", "method": "controller/willChangeContent", "params": {"controller": name}})
        out += [{"jsonrpc": "2.0", "method": "controller/didChangeObject", "params": p}
                for p in pending if p["controller"] == name]
        out.append({"jsonrpc": "2.0", "method": "controller/didChangeContent", "params": {"controller": name}})
    return out


for line in sys.stdin:
    request = json.loads(line)
    pending = []
    batch = request if isinstance(request, list) else [request]
    replies = [r for r, m in ((handle(m, pending), m) for m in batch) if "id" in m]
    for note in notifications(pending):
        sys.stdout.write(json.dumps(note) + "\n")
    if replies:
        sys.stdout.write(json.dumps(replies if isinstance(request, list) else replies[0]) + "\n")
    sys.stdout.flush()
