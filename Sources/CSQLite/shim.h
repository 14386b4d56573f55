#include <sqlite3.h>

/* SQLITE_TRANSIENT is a function-pointer cast macro that Swift cannot import. */
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

/* sqlite3_db_config is variadic, which Swift cannot call. */
static inline int csqlite_enable_triggers(sqlite3 *db, int on) {
    int now = -1;
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, on, &now);
    return now;
}
