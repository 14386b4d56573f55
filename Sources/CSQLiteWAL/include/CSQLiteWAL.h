#ifndef CSQLITEWAL_H
#define CSQLITEWAL_H

/*
 * The name of a VFS (registered on the first call, not as the default) that is SQLite's own
 * default VFS except that each connection's WAL file collects the frames of a commit and
 * writes them with one call (see wal_writes.c). NULL when it could not be registered: then
 * open with SQLite's default.
 */
const char *csqlite_wal_vfs_name(void);

#endif
