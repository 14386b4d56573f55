/* The bare SQLite floor of one change, for scripts/measure-change-cost.py: COUNT single-row
 * `UPDATE msg SET ts = ? WHERE id = ?` + COMMIT through libsqlite3 on the workload table
 * (Benchmarks/WORKLOAD.md), the rows and new keys of benchlib.Changes, and nothing else, so
 * that callgrind counts SQLite's instructions without an interpreter's.
 *
 *     cc -O2 -o change_baseline change_baseline.c -lsqlite3
 *     change_baseline DB ROWS COUNT
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* SplitMix64 seeded with benchlib.CHANGE_SEED: the same changes as the Python tools. */
static uint64_t state = 7;

static uint64_t next_random(void) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void check(int rc, int want, sqlite3 *db, const char *what) {
    if (rc != want) {
        fprintf(stderr, "change_baseline: %s: %s\n", what, sqlite3_errmsg(db));
        exit(1);
    }
}

static void run(sqlite3 *db, sqlite3_stmt *statement, const char *what) {
    check(sqlite3_step(statement), SQLITE_DONE, db, what);
    sqlite3_reset(statement);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: change_baseline DB ROWS COUNT\n");
        return 2;
    }
    long rows = atol(argv[2]), count = atol(argv[3]);
    sqlite3 *db;
    sqlite3_stmt *begin, *update, *commit;
    check(sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK, db, "open");
    check(sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL", NULL, NULL, NULL),
          SQLITE_OK, db, "pragmas");
    check(sqlite3_prepare_v2(db, "BEGIN", -1, &begin, NULL), SQLITE_OK, db, "prepare BEGIN");
    check(sqlite3_prepare_v2(db, "UPDATE msg SET ts = ? WHERE id = ?", -1, &update, NULL), SQLITE_OK, db,
          "prepare UPDATE");
    check(sqlite3_prepare_v2(db, "COMMIT", -1, &commit, NULL), SQLITE_OK, db, "prepare COMMIT");
    for (long i = 0; i < count; i++) {
        sqlite3_int64 id = (sqlite3_int64)(next_random() % (uint64_t)rows) + 1;
        sqlite3_int64 ts = (sqlite3_int64)(next_random() >> 17);
        run(db, begin, "BEGIN");
        sqlite3_bind_int64(update, 1, ts);
        sqlite3_bind_int64(update, 2, id);
        run(db, update, "UPDATE");
        run(db, commit, "COMMIT");
    }
    sqlite3_finalize(begin);
    sqlite3_finalize(update);
    sqlite3_finalize(commit);
    check(sqlite3_close(db), SQLITE_OK, db, "close");
    return 0;
}
