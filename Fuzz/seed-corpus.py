#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora from the recorded transcripts (Tests/Transcripts).

FuzzFraming gets each transcript's client bytes as one stream (its own framing, and the other
framing too) behind a control byte (mode and limit, see FuzzFraming.swift); FuzzJSON every
message sent or expected; FuzzPredicate every predicate string sent.
usage: seed-corpus.py OUTPUT_DIR   (creates OUTPUT_DIR/<target>/)
"""
import hashlib
import json
import os
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
out = sys.argv[1]


def write(target, data):
    directory = os.path.join(out, target)
    os.makedirs(directory, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def predicates(value):
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "predicate" and isinstance(item, str):
                yield item
            else:
                yield from predicates(item)
    elif isinstance(value, list):
        for item in value:
            yield from predicates(item)


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


transcripts = os.path.join(root, "Tests", "Transcripts")
for name in sorted(os.listdir(transcripts)):
    if not name.endswith(".jsonl"):
        continue
    framing = "ndjson"
    bodies = []
    with open(os.path.join(transcripts, name), encoding="utf-8") as f:
        for line in f:
            step = json.loads(line)
            if "framing" in step:
                framing = step["framing"]
            for key in ("send", "expect"):
                if key in step:
                    body = step[key].encode() if isinstance(step[key], str) else compact(step[key])
                    write("FuzzJSON", body)
                    if key == "send":
                        bodies.append(body)
                        for predicate in predicates(step[key]):
                            write("FuzzPredicate", predicate.encode())
            if "sendBytes" in step:
                bodies.append(None if framing == "ndjson" else step["sendBytes"].encode())
    ndjson = b"".join(b + b"\n" for b in bodies if b is not None)
    lsp = b"".join(b if framing == "lsp" and b is not None and b.startswith(b"Content") else
                   b"Content-Length: %d\r\n\r\n%s" % (len(b), b) for b in bodies if b is not None)
    for control in (0, 1, 2, 0x80, 0x81, 0x82):
        write("FuzzFraming", bytes([control]) + (lsp if control % 3 == 2 else ndjson))
    write("FuzzFraming", bytes([0]) + lsp)
