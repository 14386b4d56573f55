#!/usr/bin/env python3
"""Puts a `<!-- transcript: NAME.jsonl -->` marker over each unmarked protocol.md example whose
messages all appear, in order, in one transcript of Tests/Transcripts; lists the examples no
transcript has (record one, or correct the example). ProtocolExamplesTests checks the result.

    scripts/mark-protocol-examples.py [protocol.md]
"""
import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PREFIXES = [("-->", "send"), ("<--", "expect"), ("->", "send"), ("<-", "expect")]
MARKER = re.compile(r"^\s*<!-- transcript:\s*(\S+)\s*-->\s*$")


def message(line):
    line = line.strip()
    for prefix, direction in PREFIXES:
        if line.startswith(prefix + " "):
            try:
                return direction, json.loads(line[len(prefix):])
            except ValueError:
                return None
    if line[:1] in "{[":
        try:
            value = json.loads(line)
        except ValueError:
            return None
        items = value if isinstance(value, list) else [value]
        if items and all(isinstance(i, dict) and "jsonrpc" in i for i in items):
            return "either", value
    return None


def transcripts():
    found = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "Tests/Transcripts/*.jsonl"))):
        steps = []
        for raw in open(path, encoding="utf-8"):
            if not raw.strip():
                continue
            (key, value), = json.loads(raw).items()
            if key == "send" and isinstance(value, str):
                try:
                    value = json.loads(value)
                except (ValueError, RecursionError):
                    continue
            if key in ("send", "expect"):
                steps.append((key, value))
        found[os.path.basename(path)] = steps
    return found


def contains(steps, messages):
    at = 0
    for direction, value in messages:
        while at < len(steps) and not (direction in ("either", steps[at][0]) and steps[at][1] == value):
            at += 1
        if at == len(steps):
            return False
        at += 1
    return True


def main(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    sessions = transcripts()
    out, i, unmatched = [], 0, []
    while i < len(lines):
        if not lines[i].lstrip().startswith("```"):
            out.append(lines[i])
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not lines[end].lstrip().startswith("```"):
            end += 1
        messages = [m for m in map(message, lines[i + 1:end]) if m]
        previous = next((l for l in reversed(out) if l.strip()), "")
        if messages and not MARKER.match(previous):
            names = [n for n, steps in sessions.items() if contains(steps, messages)]
            if names:
                out.append("<!-- transcript: %s -->" % names[0])
            else:
                unmatched.append(i + 1)
        out.extend(lines[i:end + 1])
        i = end + 1
    open(path, "w", encoding="utf-8").write("\n".join(out))
    for line in unmatched:
        print("%s:%d: no transcript has this example's messages" % (path, line))
    return 1 if unmatched else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "protocol.md")))
