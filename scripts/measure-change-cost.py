#!/usr/bin/env python3
"""The work of one change: how many syscalls and instructions fetchd spends on one
[context/update, context/save] batch, against bare SQLite doing the same UPDATE + COMMIT
(Benchmarks/README.md, "The work of one change").

    scripts/measure-change-cost.py .build/release/fetchd [--changes 3000] [--rows 10000]
        [--callgrind-changes 1000] [--answer-changes 200] [--watch off,auto] [--no-callgrind]
        [--dir DIR]

The store: a WAL-mode file with ROWS workload rows (Benchmarks/WORKLOAD.md) made once by an
untraced fetchd, copied fresh for every run. A fetchd session: store/open, a controller over
every row sorted by ts, then CHANGES batches [context/update (a new ts for one row),
context/save], each answer read with the controller's notifications before it, then shutdown.

- syscalls per change: `strace -c -f` around the fetchd process (its threads included), minus
  an identical session with 0 changes, over CHANGES, by syscall name; for each --watch mode.
  Baselines: the same changes as UPDATE + COMMIT through Python's sqlite3 (WAL,
  synchronous=NORMAL) and through a C program (Benchmarks/c/change_baseline.c), each minus
  its own 0-change run.
- instructions per change: callgrind's total Ir of the same session with CALLGRIND_CHANGES
  changes minus the 0-change session, over the changes; the baseline is the C program under
  callgrind the same way (no interpreter's instructions counted). Also fetchd's 15 functions
  with the most inclusive instructions per change and their self instructions
  (callgrind_annotate, the 0-change session subtracted function by function), below the
  request's path through the transport and the dispatcher, Swift's thunks left out.
- instructions before and after the answer (`--watch off`, ANSWER_CHANGES changes; 0 skips
  it): the same sessions under callgrind with a dump before each write(2) and read(2). With
  the watch off fetchd's only ones are on stdin and stdout (SQLite uses pread and pwrite), so
  each part is either a message's work up to its answer's write, or what follows that write
  until the next read, which overlaps the client reading the answer.

The syscall counts repeat exactly from run to run, except --watch auto's wakeups. The
instruction counts vary by about 1% with Swift's per-process hash seed;
SWIFT_DETERMINISTIC_HASHING=1 in the environment makes them repeat (to compare two builds).

Prints one JSON line per figure and a readable table (lines starting with "#"). Needs strace,
valgrind (callgrind_annotate) and a C compiler with libsqlite3; a missing one makes its
figures {"unavailable": reason}.
"""
import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH_PY = os.path.join(ROOT, "Benchmarks", "python")
sys.path.insert(0, BENCH_PY)
import benchlib  # noqa: E402
from rpc_client import RpcClient  # noqa: E402

SUITE = "change-cost"
C_BASELINE = os.path.join(ROOT, "Benchmarks", "c", "change_baseline.c")
MODEL = {"entities": [{"name": "Msg", "attributes": {
    "ts": {"type": "integer", "indexed": True}, "sender": {"type": "string"}, "body": {"type": "string"}}}]}
CONTROLLER = "cost"
TOP_FUNCTIONS = 15
OUTER_SHARE = 0.9
REQUEST_PATH = ("Session.handle(", "Session.process(message:)", "Session.dispatch(", "Server.handle(",
                "Server.invoke(", "closure #1 in MethodDeclaration.handle(")
WRAPPERS = ("protocol witness for ", "partial apply for ", "thunk for ", "reabstraction thunk")

# The Python baseline, run as `python3 -c PY_BASELINE DB ROWS COUNT` under strace.
PY_BASELINE = """
import sqlite3, sys
sys.path.insert(0, %r)
import benchlib
db = sqlite3.connect(sys.argv[1])
db.execute("PRAGMA journal_mode = WAL")
db.execute("PRAGMA synchronous = NORMAL")
changes = benchlib.Changes(int(sys.argv[2]))
for _ in range(int(sys.argv[3])):
    row, ts = changes.next()
    db.execute("UPDATE msg SET ts = ? WHERE id = ?", (ts, row))
    db.commit()
db.close()
""" % BENCH_PY


# -- parsing ------------------------------------------------------------------------------

def parse_strace_counts(text):
    """`strace -c` summary -> {syscall: calls}. Rows are `% time, seconds, usecs/call, calls,
    [errors,] name`; the header, rulers and the total row are skipped."""
    counts = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) not in (5, 6) or fields[-1] == "total" or not fields[3].isdigit():
            continue
        try:
            float(fields[0])
        except ValueError:
            continue
        counts[fields[-1]] = counts.get(fields[-1], 0) + int(fields[3])
    return counts


def parse_callgrind_total(text):
    """A callgrind.out file -> its total of the first event (Ir): the `totals:` line, else
    `summary:`."""
    found = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key in ("totals", "summary") and value.split():
            found[key] = int(value.split()[0])
    if not found:
        raise ValueError("no totals or summary line in the callgrind output")
    return found.get("totals", found.get("summary"))


def parse_dump_part(text):
    """One part of a callgrind run with --dump-before: (what triggered its dump, its Ir)."""
    trigger = re.search(r"^desc: Trigger: (.*)$", text, re.M)
    return (trigger.group(1).strip() if trigger else "", parse_callgrind_total(text))


def answer_split(parts):
    """(Ir before an answer's write, Ir after it) over the parts of one run: a part dumped
    before a write(2) is a message's work up to its answer; every other part (dumped before
    a read, or at the end) is what followed a write."""
    before = sum(ir for trigger, ir in parts if trigger == "--dump-before=write")
    return before, sum(ir for _, ir in parts) - before


ANNOTATE_LINE = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(?:\*\s+)?(.+?)(?:\s+\[(.+)\])?\s*$")


def parse_annotate(text, combine=max):
    """`callgrind_annotate --auto=no` output -> {function: Ir}; PROGRAM TOTALS is not a
    function (--auto=no: annotated source lines would look like functions). callgrind keeps a
    function once per source file its code came from (a Swift function's inlined and
    compiler-generated parts): `combine` joins them, max for inclusive counts (the outer one
    holds the others), sum for self counts."""
    functions = {}
    for line in text.splitlines():
        match = ANNOTATE_LINE.match(line)
        if not match or match.group(2) == "PROGRAM TOTALS":
            continue
        ir, where = int(match.group(1).replace(",", "")), match.group(2)
        name = where.split(":", 1)[1] if ":" in where else where
        functions[name] = combine(functions[name], ir) if name in functions else ir
    return functions


def per_change(with_changes, without, changes):
    """{name: count} of a run with changes minus the 0-change run's, per change."""
    names = set(with_changes) | set(without)
    return {name: (with_changes.get(name, 0) - without.get(name, 0)) / changes for name in names}


# -- the sessions -------------------------------------------------------------------------

class Store:
    """The two files every run starts from: fetchd's store and the baseline's table, with the
    same rows; `copy` gives a run its own fresh copy."""

    def __init__(self, fetchd, rows, work):
        # The files get a directory of their own: fetchd --watch auto wakes for any file
        # written beside its store (a trace written there while it runs would feed itself).
        self.rows, self.work, self.dir = rows, work, os.path.join(work, "store")
        os.mkdir(self.dir)
        self.fetchd_file = os.path.join(self.dir, "fetchd-template.sqlite")
        self.baseline_file = os.path.join(self.dir, "baseline-template.sqlite")
        self.ids = []
        client = RpcClient([fetchd, "--framing", "ndjson", "--watch", "off"], os.path.join(work, "make.stderr"))
        try:
            client.request("store/open", {"path": self.fetchd_file, "model": MODEL})
            source = benchlib.rows(rows)
            for first in range(0, rows, 5000):
                calls = [("context/insert", {"context": "main", "entity": "Msg",
                                             "values": {"ts": ts, "sender": sender, "body": body}})
                         for _, ts, sender, body in (next(source) for _ in range(min(5000, rows - first)))]
                results, _ = client.batch(calls + [("context/save", {"context": "main"})])
                self.ids.extend(r["object"]["id"] for r in results[:-1])
        finally:
            client.close()
        db = sqlite3.connect(self.baseline_file)
        for pragma in benchlib.PRAGMAS:
            db.execute(pragma)
        db.execute(benchlib.SCHEMA)
        db.execute(benchlib.INDEX)
        db.executemany("INSERT INTO msg VALUES (?, ?, ?, ?)", benchlib.rows(rows))
        db.commit()
        db.close()

    def copy(self, template, name):
        path = os.path.join(self.dir, name)
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.remove(path + suffix)
        for suffix in ("", "-wal"):
            if os.path.exists(template + suffix):
                shutil.copyfile(template + suffix, path + suffix)
        return path


def fetchd_session(fetchd, store, watch, changes, prefix):
    """One fetchd session with `changes` update + save batches, run under `prefix` (strace or
    valgrind); returns how many batches notified the controller."""
    path = store.copy(store.fetchd_file, "fetchd.sqlite")
    argv = prefix + [fetchd, "--framing", "ndjson", "--watch", watch]
    client = RpcClient(argv, os.path.join(store.work, "session.stderr"), timeout=600)
    notified = 0
    try:
        client.request("initialize", {"clientInfo": {"name": "measure-change-cost"}})
        client.request("store/open", {"path": path, "model": MODEL})
        client.request("controller/create", {"context": "main", "name": CONTROLLER,
                                             "request": {"entity": "Msg", "sortDescriptors": [{"key": "ts"}]}})
        source = benchlib.Changes(store.rows)
        save = ("context/save", {"context": "main"})
        for _ in range(changes):
            row, ts = source.next()
            update = ("context/update", {"context": "main", "id": store.ids[row - 1], "values": {"ts": ts}})
            _, notes = client.batch([update, save])
            notified += any(n["method"] == "controller/didChangeContent" for n in notes)
        client.request("controller/close", {"controller": CONTROLLER})
    finally:
        client.close(wait=120)
    if notified != changes:
        benchlib.log("measure-change-cost", "warning: %d of %d changes notified the controller" % (notified, changes))
    return notified


def baseline_run(program, store, changes, prefix):
    """One baseline run, `program DB ROWS COUNT` under `prefix`, on a fresh copy of its table."""
    path = store.copy(store.baseline_file, "baseline.sqlite")
    subprocess.run(prefix + program + [path, str(store.rows), str(changes)], check=True)


def strace_counts(run, work):
    """Runs run(prefix) under `strace -c -f`; its counts by syscall name."""
    out = os.path.join(work, "strace.txt")
    run(["strace", "-c", "-f", "-o", out])
    with open(out) as f:
        return parse_strace_counts(f.read())


def callgrind_files(run, work, label):
    """Runs run(prefix) under callgrind; the callgrind.out path."""
    out = os.path.join(work, "callgrind.%s.out" % label)
    run(["valgrind", "--tool=callgrind", "--quiet", "--callgrind-out-file=" + out])
    return out


def callgrind_total(path):
    with open(path) as f:
        return parse_callgrind_total(f.read())


def answer_split_run(run, work, label):
    """Runs run(prefix) under callgrind dumping before each write and read; answer_split of it."""
    out = os.path.join(work, "split.%s.out" % label)
    run(["valgrind", "--tool=callgrind", "--quiet", "--callgrind-out-file=" + out, "--dump-instr=no",
         "--dump-before=write", "--dump-before=read"])
    parts = []
    for name in os.listdir(work):
        if name == os.path.basename(out) or name.startswith(os.path.basename(out) + "."):
            path = os.path.join(work, name)
            with open(path) as f:
                parts.append(parse_dump_part(f.read()))
            os.remove(path)
    return answer_split(parts)


def annotate(path, inclusive):
    text = subprocess.run(["callgrind_annotate", "--inclusive=" + ("yes" if inclusive else "no"),
                           "--threshold=100", "--auto=no", path], capture_output=True, text=True, check=True).stdout
    return parse_annotate(text, max if inclusive else (lambda a, b: a + b))


def top_functions(with_changes, without, changes, per_change_total):
    """fetchd's functions with the most inclusive instructions per change, and their self
    instructions: [(name, inclusive, self)]. Left out: the frames every request passes through
    (over OUTER_SHARE of a change, or named in REQUEST_PATH: main, the transport loop, the
    session, the server's dispatch) and Swift's WRAPPERS (the function they call is listed)."""
    inclusive = per_change(annotate(with_changes, True), annotate(without, True), changes)
    own = per_change(annotate(with_changes, False), annotate(without, False), changes)
    ranked = sorted((kv for kv in inclusive.items() if kv[1] < OUTER_SHARE * per_change_total),
                    key=lambda kv: -kv[1])[:TOP_FUNCTIONS * 4]
    top = []
    for name, (mangled, ir) in zip(demangle([name for name, _ in ranked]), ranked):
        plain = name[len("specialized "):] if name.startswith("specialized ") else name
        if not plain.startswith(WRAPPERS + REQUEST_PATH) and len(top) < TOP_FUNCTIONS:
            top.append((name, ir, own.get(mangled, 0)))
    return top


def demangle(names):
    """Swift symbol names made readable (swift-demangle --simplified) where the tool exists."""
    tool = shutil.which("swift-demangle")
    if not tool or not names:
        return names
    out = subprocess.run([tool, "--simplified"], input="\n".join(names) + "\n", capture_output=True, text=True)
    lines = out.stdout.splitlines()
    return lines if out.returncode == 0 and len(lines) == len(names) else names


def build_c_baseline(work):
    binary = os.path.join(work, "change_baseline")
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-o", binary, C_BASELINE, "-lsqlite3"], check=True)
    return binary


# -- the report ---------------------------------------------------------------------------

def emit(line, table):
    print(json.dumps(line), flush=True)
    if "unavailable" in line:
        print("# %s: unavailable (%s)" % (line["metric"], line["unavailable"]), flush=True)
    else:
        table.append(line)


def measure(args, work):
    figures = []
    base = {"suite": SUITE, "n": args.rows}
    store = Store(args.fetchd, args.rows, work)
    # A side runs its session or program with n changes under a prefix (strace or valgrind).
    sides = [("fetchd --watch %s" % w, lambda n, p, w=w: fetchd_session(args.fetchd, store, w, n, p))
             for w in args.watch]
    python_side = ("sqlite3 (Python)", lambda n, p: baseline_run([sys.executable, "-c", PY_BASELINE], store, n, p))
    c_binary = None
    try:
        c_binary = build_c_baseline(work)
    except (OSError, subprocess.CalledProcessError) as e:
        emit(dict(base, metric="instructions_per_change", side="sqlite3 (C)",
                  unavailable="could not build Benchmarks/c/change_baseline.c: %s" % e), figures)
    c_side = [("sqlite3 (C)", lambda n, p: baseline_run([c_binary], store, n, p))] if c_binary else []

    if shutil.which("strace"):
        for label, run in sides + [python_side] + c_side:
            benchlib.log("measure-change-cost", "strace: %s, 0 and %d changes" % (label, args.changes))
            without = strace_counts(lambda p: run(0, p), work)
            with_changes = strace_counts(lambda p: run(args.changes, p), work)
            by_name = per_change(with_changes, without, args.changes)
            emit(dict(base, metric="syscalls_per_change", side=label, changes=args.changes,
                      value=round(sum(by_name.values()), 2),
                      by_name={k: round(v, 2) for k, v in sorted(by_name.items(), key=lambda kv: -kv[1])
                               if abs(v) >= 0.005},
                      total_changes=sum(with_changes.values()), total_zero=sum(without.values())), figures)
    else:
        emit(dict(base, metric="syscalls_per_change", unavailable="strace not installed"), figures)

    if args.no_callgrind:
        return figures
    if not (shutil.which("valgrind") and shutil.which("callgrind_annotate")):
        emit(dict(base, metric="instructions_per_change", unavailable="valgrind not installed"), figures)
        return figures
    n = args.callgrind_changes
    for label, run in sides + c_side:
        benchlib.log("measure-change-cost", "callgrind: %s, 0 and %d changes" % (label, n))
        without = callgrind_files(lambda p: run(0, p), work, "zero")
        with_changes = callgrind_files(lambda p: run(n, p), work, "changes")
        ir_zero, ir_changes = callgrind_total(without), callgrind_total(with_changes)
        emit(dict(base, metric="instructions_per_change", side=label, changes=n,
                  value=round((ir_changes - ir_zero) / n), ir_changes=ir_changes, ir_zero=ir_zero), figures)
        if label.startswith("fetchd"):
            top = top_functions(with_changes, without, n, (ir_changes - ir_zero) / n)
            emit(dict(base, metric="top_functions", side=label, changes=n, functions=[
                {"function": name, "inclusive_per_change": round(ir), "self_per_change": round(own)}
                for name, ir, own in top]), figures)
    k = args.answer_changes
    if k > 0 and "off" in args.watch:
        run = next(r for label, r in sides if label == "fetchd --watch off")
        benchlib.log("measure-change-cost", "callgrind around the answers: fetchd --watch off, 0 and %d changes" % k)
        before0, after0 = answer_split_run(lambda p: run(0, p), work, "zero")
        before, after = answer_split_run(lambda p: run(k, p), work, "changes")
        emit(dict(base, metric="instructions_around_the_answer", side="fetchd --watch off", changes=k,
                  before_the_answer=round((before - before0) / k), after_the_answer=round((after - after0) / k)),
             figures)
    return figures


def print_table(figures, args):
    def pick(metric):
        return [f for f in figures if f["metric"] == metric]

    syscalls = pick("syscalls_per_change")
    print("# The work of one change: %d rows, %d changes (callgrind: %d)"
          % (args.rows, args.changes, args.callgrind_changes))
    if syscalls:
        width = max(len(f["side"]) for f in syscalls) + 2
        print("# %-16s" % "syscalls/change" + "".join("%*s" % (width, f["side"]) for f in syscalls))
        print("# %-16s" % "total" + "".join("%*.1f" % (width, f["value"]) for f in syscalls))
        names = []
        for f in syscalls:
            names += [k for k in f["by_name"] if k not in names and any(abs(g["by_name"].get(k, 0)) >= 0.05
                                                                        for g in syscalls)]
        for name in names:
            print("# %-16s" % ("  " + name) + "".join("%*.1f" % (width, f["by_name"].get(name, 0)) for f in syscalls))
        baseline = next((f for f in syscalls if f["side"] == "sqlite3 (Python)"), None)
        for f in syscalls:
            if f["side"].startswith("fetchd") and baseline and baseline["value"] > 0:
                print("# %s: %.1fx the syscalls of %s" % (f["side"], f["value"] / baseline["value"], baseline["side"]))
    instructions = pick("instructions_per_change")
    if instructions:
        baseline = next((f for f in instructions if f["side"] == "sqlite3 (C)"), None)
        for f in instructions:
            ratio = " (%.1fx sqlite3 (C))" % (f["value"] / baseline["value"]) if baseline and f is not baseline else ""
            print("# instructions/change %-20s %12s%s" % (f["side"], "{:,}".format(f["value"]), ratio))
    for f in pick("instructions_around_the_answer"):
        print("# instructions/change %-20s %12s before the answer's write, %s after it (%d changes)"
              % (f["side"], "{:,}".format(f["before_the_answer"]), "{:,}".format(f["after_the_answer"]),
                 f["changes"]))
    for f in pick("top_functions"):
        print("# top %d functions of %s (below the request's dispatch), instructions per change:"
              % (TOP_FUNCTIONS, f["side"]))
        print("#   %10s %10s  function" % ("inclusive", "self"))
        for entry in f["functions"]:
            print("#   %10s %10s  %s" % ("{:,}".format(entry["inclusive_per_change"]),
                                       "{:,}".format(entry["self_per_change"]), entry["function"][:110]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("fetchd", help="the fetchd binary (a release build)")
    parser.add_argument("--changes", type=int, default=3000, help="update + save batches under strace")
    parser.add_argument("--rows", type=int, default=10000)
    parser.add_argument("--callgrind-changes", type=int, default=1000, help="changes under callgrind (slower)")
    parser.add_argument("--answer-changes", type=int, default=200,
                        help="changes split around their answers (--watch off; 0: skip)")
    parser.add_argument("--watch", type=lambda s: s.split(","), default=["off", "auto"], help="fetchd --watch modes")
    parser.add_argument("--no-callgrind", action="store_true", help="syscalls only")
    parser.add_argument("--dir", help="where the temporary directory goes (default: TMPDIR)")
    args = parser.parse_args(argv)
    if args.changes <= 0 or args.callgrind_changes <= 0:
        parser.error("--changes and --callgrind-changes must be positive")
    args.fetchd = os.path.abspath(args.fetchd)
    with tempfile.TemporaryDirectory(prefix="fetchd-change-cost.", dir=args.dir) as work:
        figures = measure(args, work)
    print_table(figures, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
