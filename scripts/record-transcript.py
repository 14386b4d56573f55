#!/usr/bin/env python3
"""Records a transcript from a draft: runs `fetchd --record` on the draft's sends and writes
the recording with the draft's comments put back before the sends they preceded.

    scripts/record-transcript.py .build/debug/fetchd draft.jsonl Tests/Transcripts/NAME.jsonl

A draft is a transcript (Tests/Transcripts/README.md) whose expectations are ignored, so an
existing transcript is its own draft. Read every recorded answer before committing it: a
recording pins down what fetchd does, not what it should do.
"""
import json
import os
import subprocess
import sys
import tempfile


def main(binary, draft_path, out_path):
    framing, max_size, steps = "ndjson", None, []
    with open(draft_path, encoding="utf-8") as f:
        for raw in f:
            if not raw.strip():
                continue
            (key, value), = json.loads(raw).items()
            if key == "framing":
                framing = value
            elif key == "maxMessageSize":
                max_size = value
            elif key in ("send", "sendBytes", "comment"):
                steps.append((key, value))

    stdin = bytearray()
    comments_before = {}  # index of a send among the sends -> comments just before it
    pending, sends = [], 0
    for key, value in steps:
        if key == "comment":
            pending.append(value)
            continue
        comments_before[sends] = pending
        pending, sends = [], sends + 1
        if key == "sendBytes":
            stdin += value.encode()
            continue
        body = value.encode() if isinstance(value, str) else json.dumps(
            value, ensure_ascii=False, separators=(",", ":")).encode()
        stdin += (b"Content-Length: %d\r\n\r\n" % len(body) + body) if framing == "lsp" else body + b"\n"

    with tempfile.TemporaryDirectory() as tmp:
        recording = os.path.join(tmp, "session.jsonl")
        args = [binary, "--framing", framing, "--record", recording]
        if max_size is not None:
            args += ["--max-message-size", str(max_size)]
        subprocess.run(args, input=bytes(stdin), stdout=subprocess.DEVNULL, check=False)
        with open(recording, encoding="utf-8") as f:
            recorded = [line for line in f.read().split("\n") if line]

    out, sends = [], 0
    for line in recorded:
        key = next(iter(json.loads(line)))
        if key in ("send", "sendBytes"):
            out += [json.dumps({"comment": c}, ensure_ascii=False, separators=(",", ":")) for c in comments_before.get(sends, [])]
            sends += 1
        out.append(line)
    out += [json.dumps({"comment": c}, ensure_ascii=False, separators=(",", ":")) for c in pending]
    with open(out_path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
