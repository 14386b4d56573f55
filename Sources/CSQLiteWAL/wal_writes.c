/*
 * SQLite's default VFS, with the writes to each connection's WAL file gathered per commit.
 *
 * SQLite writes a WAL frame as two calls, its 24-byte header and then its page, so a commit
 * of five pages costs ten pwrite calls. Here the writes to a WAL file that follow one another
 * in the file are kept in a buffer and go out as one write when the commit frame's page
 * arrives, before SQLite publishes the commit in the shared WAL index: no other connection
 * can read a frame before the commit that contains it is published, so nobody ever sees the
 * buffer. A failed write is reported by that last write call, so the commit fails exactly as
 * it did when an earlier frame's write failed. Anything else that touches the file (a read,
 * a sync, a size or truncation, a write elsewhere in the file, closing it) writes the buffer
 * first, so the file is always what SQLite wrote, in its order, before anything looks at it.
 *
 * Every other file (the database, journals, temporary files) is SQLite's own, opened by the
 * default VFS in place: its calls never pass through here.
 */
#include "CSQLiteWAL.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* Bytes gathered at most before they are written anyway (a big commit). The default VFS
 * writes less than 128 KiB per call (unixWrite masks the size with 0x1ffff), so one write
 * of the buffer must stay below that. */
#define WAL_BUFFER_LIMIT (64 * 1024)
#define WAL_FRAME_HEADER 24

typedef struct WALFile {
    sqlite3_file base;
    sqlite3_file *real;      /* the default VFS's file, right after this struct */
    unsigned char *buffer;
    sqlite3_int64 offset;    /* where buffer[0] goes in the file */
    int length, capacity;
    sqlite3_int64 end;       /* where the last write ended */
    int commitPageNext;      /* the last write was a commit frame's header: its page ends the commit */
    csqlite_wal_commit_observer observer; /* told of each commit (csqlite_wal_observe_commits) */
    void *observerContext;
} WALFile;

static sqlite3_vfs *real_vfs;
static sqlite3_vfs wal_vfs;

static const sqlite3_io_methods wal_methods;

/* A commit frame's page is in the file: SQLite still holds the WAL write lock and has not
 * published the commit yet. */
static int committed(WALFile *f, int rc) {
    if (rc == SQLITE_OK && f->observer) f->observer(f->observerContext);
    return rc;
}

static int flush(WALFile *f) {
    if (f->length == 0) return SQLITE_OK;
    int rc = f->real->pMethods->xWrite(f->real, f->buffer, f->length, f->offset);
    f->length = 0;
    return rc;
}

static int wal_close(sqlite3_file *file) {
    WALFile *f = (WALFile *)file;
    int rc = flush(f);
    int closed = f->real->pMethods->xClose(f->real);
    free(f->buffer);
    f->buffer = NULL;
    return rc != SQLITE_OK ? rc : closed;
}

static int wal_read(sqlite3_file *file, void *out, int amount, sqlite3_int64 offset) {
    WALFile *f = (WALFile *)file;
    int rc = flush(f);
    if (rc != SQLITE_OK) return rc;
    return f->real->pMethods->xRead(f->real, out, amount, offset);
}

static int wal_write(sqlite3_file *file, const void *data, int amount, sqlite3_int64 offset) {
    WALFile *f = (WALFile *)file;
    int rc;
    /* A frame header's bytes 4-7 hold the database size after a commit, 0 in other frames. */
    int commitHeader = amount == WAL_FRAME_HEADER && memcmp((const unsigned char *)data + 4, "\0\0\0\0", 4) != 0;
    int endsCommit = f->commitPageNext && amount != WAL_FRAME_HEADER;
    f->commitPageNext = commitHeader;
    /* Only frames appended where the last write ended are gathered. A write elsewhere (a
     * page rewritten in place, the checksums SQLite rewrites after such a commit, a new WAL
     * header) goes out at once, after what was gathered, so none can wait past a commit. */
    int appends = f->length > 0 ? offset == f->offset + f->length : offset == f->end;
    f->end = offset + amount;
    if (f->length > 0 && (!appends || f->length + amount > WAL_BUFFER_LIMIT)) {
        if ((rc = flush(f)) != SQLITE_OK) return rc;
    }
    if (!appends || amount > WAL_BUFFER_LIMIT) {
        rc = f->real->pMethods->xWrite(f->real, data, amount, offset);
        return endsCommit ? committed(f, rc) : rc;
    }
    if (f->length + amount > f->capacity) {
        int capacity = WAL_BUFFER_LIMIT;
        unsigned char *grown = realloc(f->buffer, capacity);
        if (!grown) {
            if ((rc = flush(f)) != SQLITE_OK) return rc;
            rc = f->real->pMethods->xWrite(f->real, data, amount, offset);
            return endsCommit ? committed(f, rc) : rc;
        }
        f->buffer = grown;
        f->capacity = capacity;
    }
    if (f->length == 0) f->offset = offset;
    memcpy(f->buffer + f->length, data, amount);
    f->length += amount;
    return endsCommit ? committed(f, flush(f)) : SQLITE_OK;
}

static int wal_truncate(sqlite3_file *file, sqlite3_int64 size) {
    WALFile *f = (WALFile *)file;
    int rc = flush(f);
    if (rc != SQLITE_OK) return rc;
    return f->real->pMethods->xTruncate(f->real, size);
}

static int wal_sync(sqlite3_file *file, int flags) {
    WALFile *f = (WALFile *)file;
    int rc = flush(f);
    if (rc != SQLITE_OK) return rc;
    return f->real->pMethods->xSync(f->real, flags);
}

static int wal_file_size(sqlite3_file *file, sqlite3_int64 *size) {
    WALFile *f = (WALFile *)file;
    int rc = flush(f);
    if (rc != SQLITE_OK) return rc;
    return f->real->pMethods->xFileSize(f->real, size);
}

static int wal_lock(sqlite3_file *file, int level) {
    WALFile *f = (WALFile *)file;
    return f->real->pMethods->xLock(f->real, level);
}

static int wal_unlock(sqlite3_file *file, int level) {
    WALFile *f = (WALFile *)file;
    return f->real->pMethods->xUnlock(f->real, level);
}

static int wal_check_reserved_lock(sqlite3_file *file, int *out) {
    WALFile *f = (WALFile *)file;
    return f->real->pMethods->xCheckReservedLock(f->real, out);
}

static int wal_file_control(sqlite3_file *file, int op, void *arg) {
    WALFile *f = (WALFile *)file;
    int rc = flush(f);
    if (rc != SQLITE_OK) return rc;
    return f->real->pMethods->xFileControl(f->real, op, arg);
}

static int wal_sector_size(sqlite3_file *file) {
    WALFile *f = (WALFile *)file;
    return f->real->pMethods->xSectorSize(f->real);
}

static int wal_device_characteristics(sqlite3_file *file) {
    WALFile *f = (WALFile *)file;
    return f->real->pMethods->xDeviceCharacteristics(f->real);
}

/* A WAL file is never memory-mapped and has no shared memory of its own (that is the
 * database file's): version 1 methods. */
static const sqlite3_io_methods wal_methods = {
    1,
    wal_close,
    wal_read,
    wal_write,
    wal_truncate,
    wal_sync,
    wal_file_size,
    wal_lock,
    wal_unlock,
    wal_check_reserved_lock,
    wal_file_control,
    wal_sector_size,
    wal_device_characteristics,
};

static int vfs_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *outFlags) {
    (void)vfs;
    /* Anything but a WAL file is the default VFS's, in place (szOsFile covers it). */
    if (!(flags & SQLITE_OPEN_WAL)) return real_vfs->xOpen(real_vfs, name, file, flags, outFlags);
    WALFile *f = (WALFile *)file;
    memset(f, 0, sizeof(*f));
    f->real = (sqlite3_file *)(f + 1);
    int rc = real_vfs->xOpen(real_vfs, name, f->real, flags, outFlags);
    /* SQLite calls xClose after a failed open only when pMethods is set. */
    f->base.pMethods = f->real->pMethods ? &wal_methods : NULL;
    return rc;
}

static int vfs_delete(sqlite3_vfs *vfs, const char *name, int syncDir) {
    (void)vfs;
    return real_vfs->xDelete(real_vfs, name, syncDir);
}

static int vfs_access(sqlite3_vfs *vfs, const char *name, int flags, int *out) {
    (void)vfs;
    return real_vfs->xAccess(real_vfs, name, flags, out);
}

static int vfs_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return real_vfs->xFullPathname(real_vfs, name, size, out);
}

static void *vfs_dlopen(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return real_vfs->xDlOpen(real_vfs, name);
}

static void vfs_dlerror(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    real_vfs->xDlError(real_vfs, size, out);
}

static void (*vfs_dlsym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return real_vfs->xDlSym(real_vfs, handle, symbol);
}

static void vfs_dlclose(sqlite3_vfs *vfs, void *handle) {
    (void)vfs;
    real_vfs->xDlClose(real_vfs, handle);
}

static int vfs_randomness(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return real_vfs->xRandomness(real_vfs, size, out);
}

static int vfs_sleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return real_vfs->xSleep(real_vfs, microseconds);
}

static int vfs_current_time(sqlite3_vfs *vfs, double *out) {
    (void)vfs;
    return real_vfs->xCurrentTime(real_vfs, out);
}

static int vfs_get_last_error(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return real_vfs->xGetLastError ? real_vfs->xGetLastError(real_vfs, size, out) : 0;
}

static int vfs_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *out) {
    (void)vfs;
    return real_vfs->xCurrentTimeInt64(real_vfs, out);
}

static const char *registered;

static void register_vfs(void) {
    // First, before anything initializes SQLite (sqlite3_vfs_find does): no memory
    // statistics, which fetchd never reads and which take a global mutex around every
    // allocation SQLite makes. Later it is refused (SQLITE_MISUSE) and changes nothing.
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    real_vfs = sqlite3_vfs_find(NULL);
    if (!real_vfs || real_vfs->iVersion < 2 || !real_vfs->xCurrentTimeInt64) return;
    wal_vfs.iVersion = 2;
    wal_vfs.szOsFile = (int)sizeof(WALFile) + real_vfs->szOsFile;
    wal_vfs.mxPathname = real_vfs->mxPathname;
    wal_vfs.zName = "fetchd-wal-writes";
    wal_vfs.xOpen = vfs_open;
    wal_vfs.xDelete = vfs_delete;
    wal_vfs.xAccess = vfs_access;
    wal_vfs.xFullPathname = vfs_full_pathname;
    wal_vfs.xDlOpen = vfs_dlopen;
    wal_vfs.xDlError = vfs_dlerror;
    wal_vfs.xDlSym = vfs_dlsym;
    wal_vfs.xDlClose = vfs_dlclose;
    wal_vfs.xRandomness = vfs_randomness;
    wal_vfs.xSleep = vfs_sleep;
    wal_vfs.xCurrentTime = vfs_current_time;
    wal_vfs.xGetLastError = vfs_get_last_error;
    wal_vfs.xCurrentTimeInt64 = vfs_current_time_int64;
    if (sqlite3_vfs_register(&wal_vfs, 0) == SQLITE_OK) registered = wal_vfs.zName;
}

int csqlite_wal_observe_commits(sqlite3 *db, csqlite_wal_commit_observer call, void *context) {
    sqlite3_file *file = NULL;
    int rc = sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &file);
    if (rc != SQLITE_OK) return rc;
    /* Not a WAL of this VFS's (another VFS, another journal mode, no read yet): nothing to tell. */
    if (!file || file->pMethods != &wal_methods) return SQLITE_NOTFOUND;
    WALFile *f = (WALFile *)file;
    f->observer = call;
    f->observerContext = context;
    return SQLITE_OK;
}

const char *csqlite_wal_vfs_name(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, register_vfs);
    return registered;
}
