#ifndef CSQLITEWAL_H
#define CSQLITEWAL_H

/*
 * The name of a VFS (registered on the first call, not as the default) that is SQLite's own
 * default VFS except that each connection's WAL file collects the frames of a commit and
 * writes them with one call (see wal_writes.c). NULL when it could not be registered: then
 * open with SQLite's default.
 */
const char *csqlite_wal_vfs_name(void);

/*
 * Until called again (with NULL to stop), `call(context)` runs each time a commit of `db`
 * has written its last frame to its WAL file: while the commit still holds the WAL write
 * lock and before it is published. No other connection can write the file while that lock
 * is held, so the writes a watch of the file has seen until then are this commit's own or
 * came before its transaction began (which that transaction already reads). `db` must have
 * opened its WAL through that VFS (a first read in WAL mode opens it): SQLITE_NOTFOUND
 * otherwise, and nothing is observed.
 */
struct sqlite3;
typedef void (*csqlite_wal_commit_observer)(void *context);
int csqlite_wal_observe_commits(struct sqlite3 *db, csqlite_wal_commit_observer call, void *context);

#endif
