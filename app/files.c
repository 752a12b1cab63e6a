/* The files the commands read and write outside the core's own: an input mesh or shape, an
 * output directory, and the child process that reads a run file so that a damaged one cannot
 * crash or hang the command (info, verify, export, xdmf). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "geometry/shapes.h"

/* Read by app_report_failure (app/status.c). */
int app_reading_run_file;

int app_make_directory(op_ctx *ctx, const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot create the directory: %s", dir, strerror(errno));
    return OP_OK;
}

int app_load_input_mesh(op_ctx *ctx, const char *path, const char *shape, op_mesh *mesh)
{
    return shape ? op_shape_mesh(ctx, shape, mesh) : op_mesh_read(ctx, path, mesh);
}

/* The child's standard output, held in `held`, copied to ours once it has exited with status 0;
 * after a failure only its message (on stderr) is seen. A child killed by a signal crashed in
 * libhdf5: "PATH: damaged run file", exit 65, no output. */
static int collect_child(int wait_status, int stalled, double stall_seconds, FILE *held, const char *path)
{
    if (stalled) {
        fprintf(stderr, "%s: %s: damaged run file (the HDF5 library spun for %g s of CPU time reading it without "
                "reading or writing a byte)\n", app_program, path, stall_seconds);
        return EXIT_DATA;
    }
    if (WIFSIGNALED(wait_status)) {
        fprintf(stderr, "%s: %s: damaged run file (the HDF5 library crashed reading it: %s)\n", app_program, path,
                strsignal(WTERMSIG(wait_status)));
        return EXIT_DATA;
    }
    int status = WEXITSTATUS(wait_status);
    if (status != 0)
        return status; /* a refusal prints its message and nothing of what came before it */
    char buffer[65536];
    size_t got;
    rewind(held);
    while ((got = fread(buffer, 1, sizeof buffer, held)) > 0)
        if (fwrite(buffer, 1, got, stdout) != got)
            break;
    if (fflush(stdout) != 0 && status == 0) {
        fprintf(stderr, "%s: cannot write the output: %s\n", app_program, strerror(errno));
        status = EXIT_IO;
    }
    return status;
}

/* A reading child that spins on a damaged file: libhdf5 1.10 loops for ever in H5HG_read when
 * the global heap holding a virtual dataset's mapping is damaged (the 1.8 format does not
 * checksum it), burning CPU without a read or a write. Every legitimate reader of a run file
 * reads (the states) or writes (the output) as it goes, so the watchdog kills the child once it
 * has used `stall_seconds` of CPU since its byte counters (/proc/PID/io) last moved. Where those
 * counters cannot be read, the child's CPU time alone is measured against the same limit per
 * MiB of the file, plus one limit. OPSIM_READ_STALL_SECONDS sets the limit (10 s). */
typedef struct {
    pid_t child;
    clockid_t cpu_clock;
    double stall_seconds, cpu_budget; /* cpu_budget: for when /proc/PID/io is unreadable */
    long long last_bytes;
    double cpu_at_last_bytes;
} read_watchdog;

static double watchdog_cpu_seconds(const read_watchdog *w)
{
    struct timespec t;
    if (clock_gettime(w->cpu_clock, &t) != 0)
        return 0;
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* rchar + wchar of the child, -1 when unreadable. */
static long long watchdog_bytes(const read_watchdog *w)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/io", (long)w->child);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long long total = -1, value;
    char key[32];
    while (fscanf(f, "%31[^:]: %lld\n", key, &value) == 2)
        if (strcmp(key, "rchar") == 0 || strcmp(key, "wchar") == 0)
            total = (total < 0 ? 0 : total) + value;
    fclose(f);
    return total;
}

static void watchdog_start(read_watchdog *w, pid_t child, const char *path)
{
    const char *text = getenv("OPSIM_READ_STALL_SECONDS");
    double limit = text ? strtod(text, NULL) : 0;
    struct stat st;
    double mib = stat(path, &st) == 0 ? (double)st.st_size / 1048576.0 : 0;
    w->child = child;
    w->stall_seconds = limit > 0 ? limit : 10.0;
    w->cpu_budget = w->stall_seconds * (1.0 + mib);
    if (clock_getcpuclockid(child, &w->cpu_clock) != 0)
        w->stall_seconds = 0; /* no clock to watch: no watchdog */
    w->last_bytes = -2;
    w->cpu_at_last_bytes = 0;
}

/* 1 when the child has stalled: its CPU time has grown by the limit with no byte read or
 * written. */
static int watchdog_stalled(read_watchdog *w)
{
    if (w->stall_seconds <= 0)
        return 0;
    double cpu = watchdog_cpu_seconds(w);
    long long bytes = watchdog_bytes(w);
    if (bytes < 0)
        return cpu > w->cpu_budget;
    if (bytes != w->last_bytes) {
        w->last_bytes = bytes;
        w->cpu_at_last_bytes = cpu;
        return 0;
    }
    return cpu - w->cpu_at_last_bytes > w->stall_seconds;
}

/* Waits for the child with the signals in `waited` blocked, passing SIGINT, SIGTERM and SIGHUP
 * on to it and killing it when the watchdog finds it stalled (*stalled set); returns the last
 * signal passed on, 0 if none. */
static int wait_child(read_watchdog *w, const sigset_t *waited, int *wait_status, int *stalled)
{
    int forwarded = 0;
    const struct timespec poll = { .tv_sec = 0, .tv_nsec = 250000000 };
    for (;;) {
        int signal_number = sigtimedwait(waited, NULL, &poll);
        if (signal_number < 0 && errno == EAGAIN) {
            if (!*stalled && watchdog_stalled(w)) {
                *stalled = 1;
                kill(w->child, SIGKILL);
            }
            continue;
        }
        if (signal_number == SIGCHLD || signal_number < 0) { /* < 0: EINTR, or no SIGCHLD to wait for */
            pid_t done = waitpid(w->child, wait_status, signal_number < 0 && errno != EINTR ? 0 : WNOHANG);
            if (done == w->child || (done < 0 && errno != EINTR))
                return forwarded;
        } else {
            kill(w->child, signal_number);
            forwarded = signal_number;
        }
    }
}

/* libhdf5 1.10 has readers that dereference garbage in a damaged file (H5HG_read, behind
 * variable-length string attributes: one byte changed crashed `opsim info`, and `h5dump -A`
 * crashes on the same file) and no check that opsim could make first protects against them, so
 * the command runs in a child and its output is held in a temporary file until it has exited.
 * SIGINT, SIGTERM and SIGHUP sent to this process are passed on to the child, which cleans up
 * as any opsim process does, and this process then dies of the same signal, so that `kill PID`
 * cannot end the parent alone while the child goes on to finish an export. A child that spins
 * without reading or writing is killed (read_watchdog). */
int app_read_run_file_guarded(app_handler *handler, const app_call *call, const char *path)
{
    app_reading_run_file = 1;
    fflush(stdout);
    fflush(stderr);
    sigset_t waited, previous;
    sigemptyset(&waited);
    sigaddset(&waited, SIGINT);
    sigaddset(&waited, SIGTERM);
    sigaddset(&waited, SIGHUP);
    sigaddset(&waited, SIGCHLD);
    sigprocmask(SIG_BLOCK, &waited, &previous);
    FILE *held = tmpfile();
    pid_t child = held ? fork() : -1;
    if (child < 0) {
        sigprocmask(SIG_SETMASK, &previous, NULL);
        if (held)
            fclose(held);
        return handler(call); /* no process to spare: read unguarded */
    }
    if (child == 0) {
        sigprocmask(SIG_SETMASK, &previous, NULL);
        dup2(fileno(held), STDOUT_FILENO);
        int status = handler(call);
        fflush(stdout);
        exit(status);
    }
    read_watchdog watchdog;
    watchdog_start(&watchdog, child, path);
    int wait_status = 0, stalled = 0, forwarded = wait_child(&watchdog, &waited, &wait_status, &stalled);
    sigprocmask(SIG_SETMASK, &previous, NULL);
    if (forwarded) {
        fclose(held);
        raise(forwarded); /* the handlers of op_temp_catch_signals end the process with it */
        return 128 + forwarded;
    }
    int status = collect_child(wait_status, stalled, watchdog.stall_seconds, held, path);
    fclose(held);
    return status;
}
