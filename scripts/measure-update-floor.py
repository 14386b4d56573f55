#!/usr/bin/env python3
"""The floor of update_objects (store/batchUpdateObjects): SQLite's own instructions
(callgrind, sqlite3_step only) for the raw `UPDATE msg SET ts = ? WHERE id = ?`s vs the
history row (old values as a JSON array, changed keys) + update fetchd must write for each
object, row by row and set-based, on a file with fetchd's schema (Msg, _fetchd_history).

    scripts/measure-update-floor.py ROWS UPDATES seq|random [PYTHON]

seq: ids 1..UPDATES given (k * 7919) % 2^47 (measure-bulk-cost.py's update_objects);
random: bulk_bench.py's sample. PYTHON: a real interpreter, not a pyenv shim (valgrind
would count the shim)."""
import json, os, subprocess, sys, random, tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Benchmarks", "python"))
import benchlib
N = int(sys.argv[1]); COUNT = int(sys.argv[2]); MODE = sys.argv[3]
PY = sys.argv[4] if len(sys.argv) > 4 else os.path.realpath(sys.executable)
D = tempfile.mkdtemp(prefix="update-floor-")
KEY_SPACE = 1 << 47
SCHEMA = [
 'CREATE TABLE "Msg" ("_pk" INTEGER PRIMARY KEY AUTOINCREMENT, "_version" INTEGER NOT NULL DEFAULT 1, "ts" INTEGER, "sender" TEXT, "body" TEXT)',
 'CREATE TABLE "_fetchd_transactions" (token INTEGER PRIMARY KEY, author TEXT, origin TEXT, time REAL)',
 'CREATE TABLE "_fetchd_history" (seq INTEGER PRIMARY KEY, txn INTEGER, time REAL, entity TEXT NOT NULL, pk INTEGER NOT NULL, op TEXT NOT NULL, keys TEXT, version INTEGER, old TEXT, other INTEGER)',
 'CREATE INDEX "_idx_Msg_ts" ON "Msg" ("ts")',
]
if MODE == "seq":
    moves = [((k * 7919) % KEY_SPACE, k + 1) for k in range(COUNT)]
else:
    rng = random.Random(20261126)
    nums = rng.sample(range(1, N + 1), COUNT)
    moves = [(rng.randrange(KEY_SPACE), k) for k in nums]
PROGRAMS = {
 "raw": "db.executemany('UPDATE Msg SET ts = ? WHERE _pk = ?', moves)",
 # fetchd's own statements today, row by row (all columns set, keys compared on all).
 "rowwise": """db.execute("BEGIN IMMEDIATE")
db.execute("INSERT INTO _fetchd_transactions (author, origin, time) VALUES (NULL, 'x', 1.0)")
t = db.execute("select last_insert_rowid()").fetchone()[0]
db.executemany(\"\"\"INSERT INTO _fetchd_history (txn, entity, pk, op, keys, version, old) SELECT ?1, 'Msg', _pk, 'U', rtrim(iif(ts IS NOT ?3, 'ts,', ''), ','), _version, json_array(ts, sender, body) FROM Msg WHERE _pk = ?2\"\"\", [(t, k, v) for v, k in moves])
db.executemany("UPDATE Msg SET ts = ?, _version = _version + 1 WHERE _pk = ?", moves)""",
 "set": """db.execute("BEGIN IMMEDIATE")
db.execute("INSERT INTO _fetchd_transactions (author, origin, time) VALUES (NULL, 'x', 1.0)")
t = db.execute("select last_insert_rowid()").fetchone()[0]
srt = sorted(moves, key=lambda m: m[1])
pairs = json.dumps([[k, v] for v, k in srt])
db.execute(\"\"\"INSERT INTO _fetchd_history (txn, entity, pk, op, keys, version, old) SELECT ?1, 'Msg', t._pk, 'U', rtrim(iif(t.ts IS NOT j.value->>1, 'ts,', ''), ','), t._version, json_array(t.ts, t.sender, t.body) FROM json_each(?2) AS j JOIN Msg AS t ON t._pk = j.value->>0\"\"\", (t, pairs))
db.execute(\"\"\"UPDATE Msg AS t SET ts = j.value->>1, _version = t._version + 1 FROM json_each(?1) AS j WHERE t._pk = j.value->>0\"\"\", (pairs,))""",
}
for name, prog in PROGRAMS.items():
    path = os.path.join(D, "f.sqlite")
    for p in (path, path + "-wal", path + "-shm"):
        if os.path.exists(p): os.remove(p)
    import sqlite3
    db = sqlite3.connect(path); db.execute("PRAGMA journal_mode=WAL"); db.execute("PRAGMA synchronous=NORMAL")
    for s in SCHEMA: db.execute(s)
    db.executemany("INSERT INTO Msg(_pk, ts, sender, body) VALUES (?, ?, ?, ?)", benchlib.rows(N))
    db.execute("INSERT INTO _fetchd_history (txn, entity, pk, op, other) VALUES (1, 'Msg', 1, 'I', ?)", (N,))
    db.commit(); db.close()
    data = os.path.join(D, "moves.json"); json.dump(moves, open(data, "w"))
    program = ("import json, sqlite3\nmoves = [tuple(m) for m in json.load(open(%r))]\n"
               "db = sqlite3.connect(%r, isolation_level=None if %r != 'raw' else '')\ndb.execute('PRAGMA cache_size=-65536')\ndb.execute('PRAGMA synchronous=NORMAL')\n%s\ndb.commit() if %r == 'raw' else db.execute('COMMIT')\n"
               % (data, path, name, prog, name))
    out = os.path.join(D, "cg.%s.out" % name)
    subprocess.run(["valgrind", "--tool=callgrind", "--quiet", "--toggle-collect=sqlite3_step",
                    "--callgrind-out-file=" + out, PY, "-c", program], check=True)
    total = subprocess.run(["callgrind_annotate", out], capture_output=True, text=True).stdout
    line = [l for l in total.splitlines() if "PROGRAM TOTALS" in l][0]
    n = int(line.split()[0].replace(",", ""))
    print("%s N=%d count=%d %s: %d instructions, %.0f a row" % (MODE, N, COUNT, name, n, n / COUNT), flush=True)
    db = sqlite3.connect(path); h = db.execute("select count(*) from _fetchd_history").fetchone()[0]; db.close()
    print("  history rows", h)
