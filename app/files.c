/* The files the commands read and write outside the core's own: an input mesh or shape, an
 * output directory, and the child process that reads a run file so that a damaged one cannot
 * crash the command (info, export, xdmf). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
static int collect_child(int wait_status, FILE *held, const char *path)
{
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

/* Waits for the child with the signals in `waited` blocked, passing SIGINT, SIGTERM and SIGHUP
 * on to it; returns the last such signal passed on, 0 if none. */
static int wait_child(pid_t child, const sigset_t *waited, int *wait_status)
{
    int forwarded = 0;
    for (;;) {
        int signal_number = sigwaitinfo(waited, NULL);
        if (signal_number == SIGCHLD || signal_number < 0) { /* < 0: EINTR, or no SIGCHLD to wait for */
            pid_t done = waitpid(child, wait_status, signal_number < 0 && errno != EINTR ? 0 : WNOHANG);
            if (done == child || (done < 0 && errno != EINTR))
                return forwarded;
        } else {
            kill(child, signal_number);
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
 * cannot end the parent alone while the child goes on to finish an export. */
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
    int wait_status = 0, forwarded = wait_child(child, &waited, &wait_status);
    sigprocmask(SIG_SETMASK, &previous, NULL);
    if (forwarded) {
        fclose(held);
        raise(forwarded); /* the handlers of op_temp_catch_signals end the process with it */
        return 128 + forwarded;
    }
    int status = collect_child(wait_status, held, path);
    fclose(held);
    return status;
}
