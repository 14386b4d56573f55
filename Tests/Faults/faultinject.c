/* An LD_PRELOAD shim that makes writes to files under one directory fail, at a moment a
 * test chooses: the fault a read-only remount or a failing disk would cause, on file
 * descriptors the process already holds (the kernel refuses `mount -o remount,ro` while a
 * process has a file open for writing, so a real remount cannot do it during a session).
 *
 * FAULTINJECT_CONTROL names a control file. While it does not exist nothing is changed. While
 * it holds "ERRNO DIR" (ERRNO one of EROFS, EIO, ENOSPC, EACCES), every write-class call on a
 * file under DIR fails with that errno: write, pwrite, pwrite64, writev, pwritev,
 * ftruncate(64), fallocate(64), posix_fallocate(64), fsync, fdatasync, and open/openat with
 * O_WRONLY, O_RDWR or O_CREAT. Reads, and memory-mapped writes (SQLite's -shm), are not
 * touched. Each faulted call is counted in FAULTINJECT_CONTROL.count (best effort).
 *
 * Build: cc -shared -fPIC -O2 -o faultinject.so faultinject.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static const char *control_path(void) {
    static const char *path;
    static int looked;
    if (!looked) {
        path = getenv("FAULTINJECT_CONTROL");
        looked = 1;
    }
    return path;
}

/* The fault now in force: its errno (0: none) and directory. Read with raw syscalls so that
 * no wrapped function is re-entered. */
static int active_fault(char *dir, size_t size) {
    const char *path = control_path();
    if (path == NULL) return 0;
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[4200];
    ssize_t n = syscall(SYS_read, fd, buf, sizeof buf - 1);
    syscall(SYS_close, fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    char name[32];
    if (sscanf(buf, "%31s %4095s", name, dir) != 2 || strlen(dir) >= size) return 0;
    if (strcmp(name, "EROFS") == 0) return EROFS;
    if (strcmp(name, "EIO") == 0) return EIO;
    if (strcmp(name, "ENOSPC") == 0) return ENOSPC;
    if (strcmp(name, "EACCES") == 0) return EACCES;
    return 0;
}

static int under(const char *path, const char *dir) {
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == 0);
}

static void count_one(void) {
    const char *path = control_path();
    if (path == NULL) return;
    char name[4200];
    snprintf(name, sizeof name, "%s.count", path);
    int fd = (int)syscall(SYS_openat, AT_FDCWD, name, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return;
    syscall(SYS_write, fd, "x", 1);
    syscall(SYS_close, fd);
}

/* The errno to fail a call on `fd` with, or 0 to let it through. */
static int fault_for_fd(int fd) {
    char dir[4096];
    int e = active_fault(dir, sizeof dir);
    if (!e) return 0;
    char link[64], target[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = syscall(SYS_readlinkat, AT_FDCWD, link, target, sizeof target - 1);
    if (n <= 0) return 0;
    target[n] = 0;
    if (!under(target, dir)) return 0;
    count_one();
    return e;
}

static int fault_for_path(int dirfd, const char *path, int flags) {
    if (!(flags & (O_WRONLY | O_RDWR | O_CREAT))) return 0;
    char dir[4096];
    int e = active_fault(dir, sizeof dir);
    if (!e || path == NULL) return 0;
    char full[8192];
    if (path[0] == '/' || dirfd == AT_FDCWD) {
        if (path[0] == '/') {
            snprintf(full, sizeof full, "%s", path);
        } else {
            char cwd[4096];
            if (syscall(SYS_getcwd, cwd, sizeof cwd) <= 0) return 0;
            snprintf(full, sizeof full, "%s/%s", cwd, path);
        }
    } else {
        char link[64], base[4096];
        snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
        ssize_t n = syscall(SYS_readlinkat, AT_FDCWD, link, base, sizeof base - 1);
        if (n <= 0) return 0;
        base[n] = 0;
        snprintf(full, sizeof full, "%s/%s", base, path);
    }
    if (!under(full, dir)) return 0;
    count_one();
    return e;
}

#define REAL(ret, name, ...)                                  \
    static ret (*real_##name)(__VA_ARGS__);                   \
    static void load_##name(void) {                           \
        if (!real_##name) real_##name = dlsym(RTLD_NEXT, #name); \
    }

REAL(ssize_t, write, int, const void *, size_t)
REAL(ssize_t, pwrite, int, const void *, size_t, off_t)
REAL(ssize_t, pwrite64, int, const void *, size_t, off_t)
REAL(ssize_t, writev, int, const struct iovec *, int)
REAL(ssize_t, pwritev, int, const struct iovec *, int, off_t)
REAL(int, ftruncate, int, off_t)
REAL(int, ftruncate64, int, off_t)
REAL(int, fallocate, int, int, off_t, off_t)
REAL(int, fallocate64, int, int, off_t, off_t)
REAL(int, posix_fallocate, int, off_t, off_t)
REAL(int, posix_fallocate64, int, off_t, off_t)
REAL(int, fsync, int)
REAL(int, fdatasync, int)
REAL(int, open, const char *, int, ...)
REAL(int, open64, const char *, int, ...)
REAL(int, openat, int, const char *, int, ...)
REAL(int, openat64, int, const char *, int, ...)

#define FAIL_FD(fd)                      \
    do {                                 \
        int e_ = fault_for_fd(fd);       \
        if (e_) {                        \
            errno = e_;                  \
            return -1;                   \
        }                                \
    } while (0)

ssize_t write(int fd, const void *b, size_t n) { load_write(); FAIL_FD(fd); return real_write(fd, b, n); }
ssize_t pwrite(int fd, const void *b, size_t n, off_t o) { load_pwrite(); FAIL_FD(fd); return real_pwrite(fd, b, n, o); }
ssize_t pwrite64(int fd, const void *b, size_t n, off_t o) { load_pwrite64(); FAIL_FD(fd); return real_pwrite64(fd, b, n, o); }
ssize_t writev(int fd, const struct iovec *v, int c) { load_writev(); FAIL_FD(fd); return real_writev(fd, v, c); }
ssize_t pwritev(int fd, const struct iovec *v, int c, off_t o) { load_pwritev(); FAIL_FD(fd); return real_pwritev(fd, v, c, o); }
int ftruncate(int fd, off_t l) { load_ftruncate(); FAIL_FD(fd); return real_ftruncate(fd, l); }
int ftruncate64(int fd, off_t l) { load_ftruncate64(); FAIL_FD(fd); return real_ftruncate64(fd, l); }
int fallocate(int fd, int m, off_t o, off_t l) { load_fallocate(); FAIL_FD(fd); return real_fallocate(fd, m, o, l); }
int fallocate64(int fd, int m, off_t o, off_t l) { load_fallocate64(); FAIL_FD(fd); return real_fallocate64(fd, m, o, l); }
int posix_fallocate(int fd, off_t o, off_t l) {
    load_posix_fallocate();
    int e = fault_for_fd(fd);
    return e ? e : real_posix_fallocate(fd, o, l);
}
int posix_fallocate64(int fd, off_t o, off_t l) {
    load_posix_fallocate64();
    int e = fault_for_fd(fd);
    return e ? e : real_posix_fallocate64(fd, o, l);
}
int fsync(int fd) { load_fsync(); FAIL_FD(fd); return real_fsync(fd); }
int fdatasync(int fd) { load_fdatasync(); FAIL_FD(fd); return real_fdatasync(fd); }

#define MODE_ARG(flags, mode)              \
    mode_t mode = 0;                       \
    if ((flags) & (O_CREAT | O_TMPFILE)) { \
        va_list ap;                        \
        va_start(ap, flags);               \
        mode = va_arg(ap, mode_t);         \
        va_end(ap);                        \
    }

#define FAIL_PATH(dirfd, path, flags)                  \
    do {                                               \
        int e_ = fault_for_path(dirfd, path, flags);   \
        if (e_) {                                      \
            errno = e_;                                \
            return -1;                                 \
        }                                              \
    } while (0)

int open(const char *p, int f, ...) { load_open(); MODE_ARG(f, m); FAIL_PATH(AT_FDCWD, p, f); return real_open(p, f, m); }
int open64(const char *p, int f, ...) { load_open64(); MODE_ARG(f, m); FAIL_PATH(AT_FDCWD, p, f); return real_open64(p, f, m); }
int openat(int d, const char *p, int f, ...) { load_openat(); MODE_ARG(f, m); FAIL_PATH(d, p, f); return real_openat(d, p, f, m); }
int openat64(int d, const char *p, int f, ...) { load_openat64(); MODE_ARG(f, m); FAIL_PATH(d, p, f); return real_openat64(d, p, f, m); }
