#!/usr/bin/env python3
"""A scripted JSON-RPC peer for testing the client's transport without the real server.

It is not fetchd: it answers ``test/echo`` (result = params), ``test/fail`` (an error built
from params), ``test/cycle`` (writes params.notifications, then answers params.result),
``initialize`` (protocolVersion FAKE_FETCHD_PROTOCOL_VERSION, default 1; "none" leaves it
out), ``shutdown``/``exit``, and otherwise replays FAKE_FETCHD_SCRIPT (a JSON file: a list of
{method, notifications?, result? | error?} consumed in order; a method mismatch is an error).
A batch writes every element's notifications first, then the array of responses.
"""
import json
import os
import sys

framing = "lsp"
if "--framing" in sys.argv:
    framing = sys.argv[sys.argv.index("--framing") + 1]

script = []
if os.environ.get("FAKE_FETCHD_SCRIPT"):
    with open(os.environ["FAKE_FETCHD_SCRIPT"]) as handle:
        script = json.load(handle)

out = sys.stdout.buffer
inp = sys.stdin.buffer


def write(message):
    body = json.dumps(message, separators=(",", ":")).encode()
    if framing == "lsp":
        out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    else:
        out.write(body + b"\n")
    out.flush()


def read():
    if framing == "ndjson":
        while True:
            line = inp.readline()
            if not line:
                return None
            if line.strip():
                return json.loads(line)
    length = None
    while True:
        line = inp.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(inp.read(length))


def answer(request):
    """(notifications, response or None)."""
    method, params, rid = request.get("method"), request.get("params") or {}, request.get("id")
    notes, reply = [], {"jsonrpc": "2.0", "id": rid}
    if method == "test/echo":
        reply["result"] = params
    elif method == "test/fail":
        reply["error"] = {"code": params["code"], "message": params["message"], "data": params.get("data")}
    elif method == "test/cycle":
        notes = params.get("notifications", [])
        reply["result"] = params.get("result", {})
    elif method == "initialize":
        reply["result"] = {"serverInfo": {"name": "fetchd", "version": "0.0.0-fake"}, "capabilities": {}}
        version = os.environ.get("FAKE_FETCHD_PROTOCOL_VERSION", "1")
        if version != "none":
            reply["result"]["protocolVersion"] = int(version)
    elif method == "shutdown":
        reply["result"] = None
    elif method == "exit":
        sys.exit(0)
    elif script:
        step = script.pop(0)
        if step["method"] != method:
            reply["error"] = {"code": -32099, "message": f"script expected {step['method']}, got {method}"}
        else:
            notes = step.get("notifications", [])
            if "error" in step:
                reply["error"] = step["error"]
            else:
                reply["result"] = step.get("result", {})
    else:
        reply["error"] = {"code": -32601, "message": "Method not found", "data": {"kind": "methodNotFound", "method": method}}
    return [{"jsonrpc": "2.0", "method": n["method"], "params": n["params"]} for n in notes], (reply if "id" in request else None)


while True:
    message = read()
    if message is None:
        sys.exit(0)
    if isinstance(message, list):
        replies = []
        for element in message:
            notes, reply = answer(element)
            for note in notes:
                write(note)
            if reply is not None:
                replies.append(reply)
        if replies:
            write(replies)
    else:
        notes, reply = answer(message)
        for note in notes:
            write(note)
        if reply is not None:
            write(reply)
