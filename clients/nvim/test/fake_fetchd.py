#!/usr/bin/env python3
"""A stand-in for fetchd in the plugin's tests (not fetchd): LSP-framed JSON-RPC on stdio that
answers initialize with the protocolVersion of --protocol N ("none": no protocolVersion) and
shutdown with null, exits on exit or end of input, and refuses every other request.
--log FILE: every method received, one per line."""
import json
import sys

args = sys.argv[1:]
protocol = args[args.index("--protocol") + 1] if "--protocol" in args else "1"
log = args[args.index("--log") + 1] if "--log" in args else None
stdin, stdout = sys.stdin.buffer, sys.stdout.buffer


def read():
    length = None
    while True:
        line = stdin.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return json.loads(stdin.read(length))


def write(message):
    body = json.dumps(message).encode()
    stdout.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    stdout.flush()


while (message := read()) is not None:
    method = message.get("method")
    if log:
        with open(log, "a") as file:
            file.write(f"{method}\n")
    if method == "exit":
        sys.exit(0)
    if "id" not in message:
        continue
    reply = {"jsonrpc": "2.0", "id": message["id"]}
    if method == "initialize":
        reply["result"] = {"serverInfo": {"name": "fetchd", "version": "0.0.0-fake"}, "capabilities": {}}
        if protocol != "none":
            reply["result"]["protocolVersion"] = int(protocol)
    elif method == "shutdown":
        reply["result"] = None
    else:
        reply["error"] = {"code": -32601, "message": "Method not found", "data": {"kind": "methodNotFound"}}
    write(reply)
