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
 * Until called again (with NULL to stop), `call(context)` runs on this thread each time a
 * commit made on this thread through that VFS has written its last frame to the WAL file:
 * while the commit still holds the WAL write lock and before it is published. No other
 * connection can write the file while that lock is held, so the writes a watch of the file
 * has seen until then are this commit's own or came before its transaction began (which
 * that transaction already reads).
 */
typedef void (*csqlite_wal_commit_observer)(void *context);
void csqlite_wal_observe_commits(csqlite_wal_commit_observer call, void *context);

#endif
