#!/usr/bin/env python3
"""Where a bulk figure's time goes: fetchd under callgrind, instructions counted only while one
bulk request runs (until the client's mirror has its cycle), per row touched, by function
(Benchmarks/README.md, "Bulk work", "Where the bulk time goes").

    scripts/measure-bulk-cost.py .build/release/fetchd [--rows 20000] [--fraction 0.5]
        [--variants none,difference-ids,difference-values,rows-values]
        [--figures batch_insert,update_objects,batch_update,batch_delete] [--top 25] [--dir DIR]

One fetchd per variant (bulk_bench.py's controllers), started as `valgrind --tool=callgrind
--instr-atstart=no`: the store, the controller and the rows are set up uninstrumented, then
instrumentation is switched on (`callgrind_control -i on`) for one figure's request and its
notifications, off again, and the counts dumped (`callgrind_control -d`). The figures, in
order on one store: batch_insert of ROWS rows (one request), update_objects (ROWS/10 rows
given new ts values), batch_update of the rows in the lowest FRACTION of the ts range (a new
body), batch_delete of the same rows.

Prints, per (figure, variant): instructions per row touched, and the TOP functions by
inclusive instructions per row with their self instructions (callgrind_annotate
--inclusive=yes), Swift's thunks left out. Needs valgrind (callgrind_control uses vgdb).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Benchmarks", "python"))
import benchlib  # noqa: E402
import bulk_bench  # noqa: E402
from fetchd import Client, fetch_request  # noqa: E402

WRAPPERS = ("protocol witness for ", "partial apply for ", "thunk for ", "reabstraction thunk", "merged ")
LINE = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*?)\s*$")


def control(pid, *args):
    subprocess.run(["callgrind_control", *args, str(pid)], check=True, stdout=subprocess.DEVNULL)


def annotate(path, inclusive):
    """callgrind_annotate's function table -> {function: Ir} (names demangled by `swift
    demangle --simplified` where the toolchain has it), and the program's total."""
    text = subprocess.run(["callgrind_annotate", "--inclusive=" + ("yes" if inclusive else "no"), "--auto=no",
                           "--threshold=100", path], capture_output=True, text=True, check=True).stdout
    counts, total = [], None
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        count, name = int(m.group(1).replace(",", "")), m.group(2)
        if name == "PROGRAM TOTALS":
            total = count
            continue
        name = re.sub(r" \[[^\]]*\]$", "", name)  # the object file
        counts.append((count, name.split(":", 1)[1] if ":" in name else name))  # the source file
    names = demangle([name for _, name in counts])
    out = {}
    for (count, _), name in zip(counts, names):
        # callgrind keeps a function once per source file its inlined code came from: their
        # self costs add up, their inclusive costs overlap (the largest is the function's).
        out[name] = max(out.get(name, 0), count) if inclusive else out.get(name, 0) + count
    return out, total


def demangle(names):
    if not names or not shutil.which("swift"):
        return names
    done = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(names) + "\n",
                          capture_output=True, text=True)
    out = done.stdout.splitlines()
    return out if done.returncode == 0 and len(out) == len(names) else names


def measure(args, variant, rows, columns):
    store = os.path.join(args.dir, "cost-%s.sqlite" % variant)
    bulk_bench.fresh(store)
    base = os.path.join(args.dir, "callgrind.%s.out" % variant)
    # A run before in the same --dir left dumps of these names: new ones would overwrite them
    # and never show up as new files.
    for name in os.listdir(args.dir):
        if name == os.path.basename(base) or name.startswith(os.path.basename(base) + "."):
            os.remove(os.path.join(args.dir, name))
    argv = ["valgrind", "--tool=callgrind", "--quiet", "--instr-atstart=no", "--callgrind-out-file=" + base,
            args.fetchd, "--framing", "ndjson", "--watch", "off"]
    client = Client.attach(argv, framing="ndjson", stderr=open(base + ".stderr", "wb"), timeout=3600)
    pid = client.process.pid
    dumps = []
    try:
        client.initialize()
        client.open_store(bulk_bench.MODEL, path=store)
        main = client.context()
        if bulk_bench.VARIANTS[variant]:
            mode, extra = bulk_bench.VARIANTS[variant]
            main.controller("msgs", fetch_request("Msg", sort_descriptors=["ts"]), notify=bulk_bench.notify(mode, **extra))
        (_, low, high), = bulk_bench.bands([args.fraction])
        where = "ts >= %d AND ts < %d" % (low, high)
        count = len(rows) // 10
        steps = {
            "batch_insert": lambda: (client.store_batch_insert("Msg", keys=["ts", "sender", "body"], rows=columns),
                                     len(rows))[1],
            "update_objects": lambda: client.store_batch_update_objects(
                "Msg", ids=["Msg/%d" % k for k in range(1, count + 1)], keys=["ts"],
                rows=[[(k * 7919) % bulk_bench.KEY_SPACE] for k in range(count)])["count"],
            "batch_update": lambda: client.store_batch_update("Msg", {"body": "changed"}, predicate=where)["count"],
            "batch_delete": lambda: client.store_batch_delete("Msg", predicate=where)["count"],
        }
        for figure in ("batch_insert", "update_objects", "batch_update", "batch_delete"):
            if figure not in args.figures:
                if figure == "batch_insert":
                    client.batch_insert_in_parts("Msg", ["ts", "sender", "body"], columns, progress=False)
                else:
                    steps[figure]()
                continue
            control(pid, "-i", "on")
            start = time.perf_counter()
            touched = steps[figure]()
            elapsed = time.perf_counter() - start
            control(pid, "-i", "off")
            before = set(os.listdir(args.dir))
            control(pid, "-d", figure)
            for _ in range(100):  # the dump is written by the valgrind process itself
                new = [f for f in set(os.listdir(args.dir)) - before if f.startswith(os.path.basename(base) + ".")]
                if new:
                    break
                time.sleep(0.1)
            time.sleep(0.5)
            dumps.append((figure, touched, elapsed, os.path.join(args.dir, sorted(new)[-1])))
    finally:
        client.close()
    return dumps


RAW = {
    "batch_insert": "db.executemany('INSERT INTO msg(id, ts, sender, body) VALUES (?, ?, ?, ?)', rows)",
    "update_objects": "db.executemany('UPDATE msg SET ts = ? WHERE id = ?', moves)",
    "batch_update": "db.execute('UPDATE msg SET body = ? WHERE ' + where, ('changed',))",
    "batch_delete": "db.execute('DELETE FROM msg WHERE ' + where)",
}


def raw(args, rows):
    """SQLite's own instructions for each figure's statements + commit on a baseline file in
    the same state (Python's sqlite3, WAL, 64 MiB cache): callgrind counting inside
    sqlite3_step only (--toggle-collect), so neither the interpreter nor the binding counts.
    -> {figure: (instructions, rows touched)}."""
    path = os.path.join(args.dir, "raw.sqlite")
    count = len(rows) // 10
    moves = [((k * 7919) % bulk_bench.KEY_SPACE, k + 1) for k in range(count)]
    (_, low, high), = bulk_bench.bands([args.fraction])
    where = "ts >= %d AND ts < %d" % (low, high)
    out = {}
    for figure in ("batch_insert", "update_objects", "batch_update", "batch_delete"):
        db, _ = bulk_bench.baseline_file(path, [] if figure == "batch_insert" else rows)
        touched = len(rows) if figure == "batch_insert" else count
        if figure in ("batch_update", "batch_delete"):
            db.executemany("UPDATE msg SET ts = ? WHERE id = ?", moves)
            db.commit()
            touched = db.execute("SELECT count(*) FROM msg WHERE " + where).fetchone()[0]
        db.close()
        data = os.path.join(args.dir, "raw-%s.json" % figure)
        with open(data, "w") as f:
            json.dump({"rows": rows, "moves": moves, "where": where}, f)
        program = ("import json, sqlite3\n"
                   "d = json.load(open(%r))\nrows, moves, where = d['rows'], d['moves'], d['where']\n"
                   "db = sqlite3.connect(%r)\ndb.execute('PRAGMA cache_size=-65536')\n%s\ndb.commit()\n"
                   % (data, path, RAW[figure]))
        result = os.path.join(args.dir, "callgrind.raw-%s.out" % figure)
        subprocess.run(["valgrind", "--tool=callgrind", "--quiet", "--toggle-collect=sqlite3_step",
                        "--callgrind-out-file=" + result, sys.executable, "-c", program], check=True)
        out[figure] = (annotate(result, False)[1] or 0, touched)
    return out


def report(args, variant, dumps):
    for figure, touched, elapsed, path in dumps:
        inclusive, total = annotate(path, True)
        own, _ = annotate(path, False)
        print("# %s, %s: %d rows touched, %s instructions, %.0f a row (%.1f s under callgrind)" % (
            figure, variant, touched, "{:,}".format(total or 0), (total or 0) / max(touched, 1), elapsed))
        shown = [(ir, name) for name, ir in inclusive.items() if not name.startswith(WRAPPERS)]
        for ir, name in sorted(shown, reverse=True)[:args.top]:
            print("#   %9.0f  %8.0f  %s" % (ir / max(touched, 1), own.get(name, 0) / max(touched, 1), name[:160]))
        sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("fetchd")
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--fraction", type=float, default=0.5)
    parser.add_argument("--variants", type=bulk_bench.variant_list, default=list(bulk_bench.VARIANTS))
    parser.add_argument("--figures", default="batch_insert,update_objects,batch_update,batch_delete")
    parser.add_argument("--top", type=int, default=25, help="functions shown per figure")
    parser.add_argument("--no-raw", action="store_true", help="leave out raw SQLite's instructions")
    parser.add_argument("--dir")
    args = parser.parse_args()
    args.figures = args.figures.split(",")
    if not shutil.which("callgrind_control"):
        raise SystemExit("measure-bulk-cost: valgrind (callgrind_control, callgrind_annotate) is not installed")
    own = args.dir is None
    args.dir = args.dir or tempfile.mkdtemp(prefix="fetchd-bulk-cost-")
    os.makedirs(args.dir, exist_ok=True)
    rows = list(benchlib.rows(args.rows))
    columns = [[ts, sender, body] for (_, ts, sender, body) in rows]
    print("# Instructions per row touched (inclusive, self), %d rows, predicate batches on %g of them"
          % (args.rows, args.fraction))
    try:
        if not args.no_raw:
            sqlite_raw = raw(args, rows)
            for figure in args.figures:
                instructions, touched = sqlite_raw[figure]
                print("# raw SQLite %s: %d rows, %s instructions in sqlite3_step, %.0f a row" % (
                    figure, touched, "{:,}".format(instructions), instructions / max(touched, 1)))
        for variant in args.variants:
            benchlib.log("measure-bulk-cost", "callgrind: %s" % variant)
            report(args, variant, measure(args, variant, rows, columns))
    finally:
        if own:
            shutil.rmtree(args.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
