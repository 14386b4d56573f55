#!/usr/bin/env python3
"""Client-side throughput against a real fetchd: round trips, inserts with a live controller
and its mirror, one big batch. Usage: python3 tools/bench.py /path/to/fetchd [--framing lsp]"""
import argparse
import os
import sys
import time
from typing import Callable

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fetchd import Client, fetch_request  # noqa: E402
from fetchd.wire_types import Model  # noqa: E402

MODEL: Model = {"entities": [{"name": "Item", "attributes": {"rank": {"type": "integer"}, "name": {"type": "string"}}}]}


def timed(label: str, count: int, action: Callable[[], object]) -> None:
    start = time.perf_counter()
    action()
    seconds = time.perf_counter() - start
    print(f"{label:<58} {count / seconds:>10.0f}/s  ({seconds * 1e6 / count:.0f} us each)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("fetchd")
    parser.add_argument("--framing", default="lsp")
    parser.add_argument("-n", type=int, default=5000)
    args = parser.parse_args()
    n = args.n
    with Client.spawn(args.fetchd, framing=args.framing) as client:
        client.open_store(MODEL)
        main_ctx = client.context()
        timed("round trip (context/count on an empty store)", n, lambda: [main_ctx.count({"entity": "Item"}) for _ in range(n)])
        items = main_ctx.controller("items", fetch_request("Item", sort_descriptors=["rank"]))
        timed("insert + its cycle applied to the mirror (1 controller)", n,
              lambda: [main_ctx.insert("Item", {"rank": (i * 7919) % n, "name": f"i{i}"}) for i in range(n)])

        def one_batch() -> None:
            with main_ctx.batch() as batch:
                for i in range(n):
                    batch.insert("Item", {"rank": i, "name": f"b{i}"})

        timed(f"inserts in one JSON-RPC batch of {n} (one cycle)", n, one_batch)
        assert items.mirror is not None and items.mirror.count == 2 * n
        assert items.fetched() == [s.rows for s in items.mirror.sections]
    print("mirror equals controller/rows")


if __name__ == "__main__":
    main()
