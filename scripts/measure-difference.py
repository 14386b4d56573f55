#!/usr/bin/env python3
"""Measures one update cycle in notify mode "rows" against mode "difference" (protocol.md
§10.8), end to end: from sending a JSON-RPC batch of U updates (+ save) until the Python client
(clients/python, from this tree) has applied the cycle to its controller's mirror.

    scripts/measure-difference.py .build/release/fetchd [--rows 1000000] [--updates 10000] [--repeats 3]

One fetchd (NDJSON, in-memory store) holds N rows of {ts: integer} sorted by ts; each cycle
gives U random rows a new random ts, so nearly every update is a move. The modes take turns
with one controller at a time (the other closed), each with a fresh mirror, after the
same batch with no controller at all (the floor: the batch's own responses and the save); every cycle's
mirror is checked against controller/sections and a sample of controller/rows afterwards.
Prints per mode the median and each run in ms, and the notification payload per cycle.
"""
import argparse
import gc
import json
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "clients", "python"))

from fetchd import Client, fetch_request  # noqa: E402

MODEL = {"entities": [{"name": "Item", "attributes": {"ts": {"type": "integer", "indexed": True}, "label": {"type": "string"}}}]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("fetchd")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--updates", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    key = lambda: rng.randrange(1 << 47)  # noqa: E731
    client = Client.spawn(args.fetchd, framing="ndjson")
    sizes = []
    client.add_listener(lambda method, params: sizes.append(len(json.dumps(params, separators=(",", ":"))) + len(method)))
    try:
        client.open_store(MODEL)
        main_context = client.context()
        start = time.perf_counter()
        ids = []
        for first in range(0, args.rows, 50_000):
            with main_context.batch() as batch:
                calls = [batch.insert("Item", {"ts": key(), "label": "item %d" % n}) for n in range(first, min(first + 50_000, args.rows))]
                batch.save()
            ids.extend(c.result["id"] for c in calls)
        print("loaded %d rows in %.1f s" % (args.rows, time.perf_counter() - start), file=sys.stderr)
        request = fetch_request("Item", sort_descriptors=["ts"])
        modes = ("none", "rows", "difference")
        results = {m: [] for m in modes}
        payload = {m: [] for m in modes}
        messages = {m: [] for m in modes}
        for repeat in range(args.repeats):
            for mode in modes:
                # "none": the same batch with no controller, the floor both modes pay (10k
                # update responses, the save).
                if mode == "none":
                    batch = main_context.batch()
                    for row in rng.sample(ids, args.updates):
                        batch.update(row, {"ts": key()})
                    batch.save()
                    gc.collect()
                    start = time.perf_counter()
                    batch.send()
                    results[mode].append((time.perf_counter() - start) * 1000)
                    payload[mode].append(0)
                    messages[mode].append(0)
                    continue
                controller = main_context.controller("c-%s-%d" % (mode, repeat), request, mode=mode)
                batch = main_context.batch()
                for row in rng.sample(ids, args.updates):
                    batch.update(row, {"ts": key()})
                batch.save()
                del sizes[:]
                cycles = controller.cycles
                # What loading the mirror left for the collector is not the cycle's cost.
                gc.collect()
                start = time.perf_counter()
                batch.send()
                elapsed = time.perf_counter() - start
                assert controller.cycles == cycles + 1, "one cycle applied"
                results[mode].append(elapsed * 1000)
                payload[mode].append(sum(sizes))
                messages[mode].append(len(sizes))
                # The mirror is right: sections, and rows at both ends and in the middle.
                infos = controller.sections()
                assert controller.mirror.section_infos() == infos
                rows = controller.mirror.sections[0].rows
                for offset in (0, len(rows) // 2, max(0, len(rows) - 200)):
                    assert rows[offset : offset + 200] == controller.rows(0, offset=offset, limit=200)
                controller.close()
        for mode in modes:
            print("%-10s %d updates over %d rows: median %.0f ms (runs %s); %d messages, %.2f MB of params per cycle" % (
                mode, args.updates, args.rows, statistics.median(results[mode]),
                ", ".join("%.0f" % r for r in results[mode]), statistics.median(messages[mode]),
                statistics.median(payload[mode]) / 1e6))
    finally:
        client.close()


if __name__ == "__main__":
    main()
