/* Transport benchmark: fetchd's trivial-request round trip against a raw pipe round trip
 * measured in the same run, and pipelined throughput. Usage: transport-bench FETCHD [N]
 *
 * Raw pipe: this program forks a copy of itself that echoes each line back (one read, one
 * write), so the baseline is two processes and two pipes, as with fetchd. Latency is measured
 * with all three processes on one CPU; throughput with no pinning. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct { pid_t pid; int in, out; } child_t;

static child_t spawn(char *const argv[]) {
    int to[2], from[2];
    if (pipe(to) || pipe(from)) { perror("pipe"); exit(1); }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(to[0], 0); dup2(from[1], 1);
        close(to[0]); close(to[1]); close(from[0]); close(from[1]);
        execv(argv[0], argv);
        perror("execv"); _exit(127);
    }
    close(to[0]); close(from[1]);
    return (child_t){pid, to[1], from[0]};
}

/* Reads until a newline arrives (responses are single lines). */
static int read_line(int fd, char *buf, size_t cap) {
    size_t n = 0;
    for (;;) {
        ssize_t r = read(fd, buf + n, cap - n);
        if (r <= 0) return -1;
        n += (size_t)r;
        if (buf[n - 1] == '\n') return (int)n;
    }
}

static void echo_loop(void) {
    char buf[65536];
    for (;;) {
        ssize_t r = read(0, buf, sizeof buf);
        if (r <= 0) _exit(0);
        if (write(1, buf, (size_t)r) != r) _exit(1);
    }
}

static void round_trips(child_t c, const char *msg, int n, double *out) {
    char buf[4096];
    size_t len = strlen(msg);
    for (int i = 0; i < n; i++) {
        double s = now_us();
        if (write(c.in, msg, len) != (ssize_t)len || read_line(c.out, buf, sizeof buf) < 0) {
            fprintf(stderr, "round trip failed\n"); exit(1);
        }
        if (out) out[i] = now_us() - s;
    }
}

/* Percentile of n samples (sorted in place). */
static double percentile(double *t, int n, double p) {
    qsort(t, n, sizeof(double), cmp);
    return t[(int)(n * p)];
}

typedef struct { int fd; int n; } writer_arg;

static void *pipelined_writer(void *p) {
    writer_arg *a = p;
    static const char msg[] = "{\"jsonrpc\":\"2.0\",\"method\":\"server/ping\",\"id\":1}\n";
    char *batch = malloc(sizeof(msg) * 1000);
    size_t len = 0;
    for (int i = 0; i < 1000; i++) { memcpy(batch + len, msg, sizeof(msg) - 1); len += sizeof(msg) - 1; }
    for (int sent = 0; sent < a->n; sent += 1000) {
        size_t off = 0;
        while (off < len) { ssize_t w = write(a->fd, batch + off, len - off); if (w <= 0) exit(1); off += (size_t)w; }
    }
    close(a->fd);
    free(batch);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "--echo") == 0) echo_loop();
    if (argc < 2) { fprintf(stderr, "usage: %s FETCHD [N]\n", argv[0]); return 2; }
    int n = argc > 2 ? atoi(argv[2]) : 20000;
    signal(SIGPIPE, SIG_IGN);
    /* Latency: this process and both children share one CPU (children inherit the mask), so
     * the raw pipe and fetchd are measured under the same scheduling on a shared machine. */
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    cpu_set_t all;
    sched_getaffinity(0, sizeof all, &all);
    sched_setaffinity(0, sizeof one, &one);
    const char *ping = "{\"jsonrpc\":\"2.0\",\"method\":\"server/ping\",\"id\":1}\n";

    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    self[sl] = 0;
    char *echo_argv[] = {self, "--echo", NULL};
    char *fetchd_argv[] = {argv[1], "--framing", "ndjson", NULL};

    /* Alternate blocks of 100 round trips between the two, so load from other processes on
     * the machine hits both measurements alike. */
    child_t echo = spawn(echo_argv), fetchd = spawn(fetchd_argv);
    round_trips(echo, ping, 1000, NULL);
    round_trips(fetchd, ping, 1000, NULL);
    double *raw = malloc(sizeof(double) * n), *rpc = malloc(sizeof(double) * n);
    for (int done = 0; done < n; done += 100) {
        int k = n - done < 100 ? n - done : 100;
        round_trips(echo, ping, k, raw + done);
        round_trips(fetchd, ping, k, rpc + done);
    }
    double raw50 = percentile(raw, n, 0.5), raw99 = percentile(raw, n, 0.99);
    double rpc50 = percentile(rpc, n, 0.5), rpc99 = percentile(rpc, n, 0.99);
    close(echo.in); close(fetchd.in);
    waitpid(echo.pid, NULL, 0); waitpid(fetchd.pid, NULL, 0);
    close(echo.out); close(fetchd.out);

    /* Pipelined: a writer thread streams pings, we count response lines until EOF; every CPU
     * may be used here. */
    sched_setaffinity(0, sizeof all, &all);
    int total = n * 10;
    child_t p = spawn(fetchd_argv);
    writer_arg wa = {p.in, total};
    pthread_t th;
    double s = now_us();
    pthread_create(&th, NULL, pipelined_writer, &wa);
    static char buf[1 << 20];
    long lines = 0;
    for (;;) {
        ssize_t r = read(p.out, buf, sizeof buf);
        if (r <= 0) break;
        for (ssize_t i = 0; i < r; i++) lines += buf[i] == '\n';
    }
    double elapsed = now_us() - s;
    pthread_join(th, NULL);
    waitpid(p.pid, NULL, 0);
    if (lines != total) { fprintf(stderr, "expected %d responses, got %ld\n", total, lines); return 1; }

    double ratio = rpc50 / raw50, rate = total / (elapsed / 1e6);
    printf("raw pipe round trip      p50 %.1f us  p99 %.1f us\n", raw50, raw99);
    printf("fetchd server/ping       p50 %.1f us  p99 %.1f us  (%.2fx raw)\n", rpc50, rpc99, ratio);
    printf("pipelined server/ping    %d requests in %.0f ms = %.0f requests/s\n", total, elapsed / 1e3, rate);
    int ok = ratio <= 2.0 && rate >= 60000;
    printf("targets (p50 <= 2x raw, >= 60k/s): %s\n", ok ? "met" : "NOT met");
    return ok ? 0 : 3;
}
