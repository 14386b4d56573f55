#include <sqlite3.h>

/* SQLITE_TRANSIENT is a function-pointer cast macro that Swift cannot import. */
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

/* sqlite3_db_config is variadic, which Swift cannot call. */
static inline int csqlite_enable_triggers(sqlite3 *db, int on) {
    int now = -1;
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, on, &now);
    return now;
}

/*
 * Turns off SQLite's factoring of constant expressions out of the row loop. Its de-duplication
 * compares each constant with every one factored before, so preparing a predicate with tens of
 * thousands of bound values took time quadratic in their number (seconds at 8,000 terms);
 * without it, preparing is linear and each constant (a bound `?`) is read per row instead.
 * sqlite3_test_control is variadic, which Swift cannot call.
 */
static inline int csqlite_disable_constant_factoring(sqlite3 *db) {
    return sqlite3_test_control(SQLITE_TESTCTRL_OPTIMIZATIONS, db, 0x00000008 /* SQLITE_FactorOutConst */);
}
