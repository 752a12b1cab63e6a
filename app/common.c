/* What the commands of bin/opsim share (app/app.h): the usage and failure messages with their
 * exit statuses, number parsing, and reading a run file in a child process. */
#include "app.h"

#include <errno.h>
#include <stdlib.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/math3.h"
#include "geometry/shapes.h"
#include "io/xdmf.h"

const char *const program = "opsim";

int usage_error(const char *command, const char *format, const char *detail)
{
    fprintf(stderr, "%s%s%s: ", program, command[0] ? " " : "", command);
    fprintf(stderr, format, detail);
    fprintf(stderr, "\nTry '%s%s%s --help'.\n", program, command[0] ? " " : "", command);
    return EXIT_USAGE;
}

/* Set while a command reads a run file (info, export, xdmf): HDF5 failing there means the file
 * is damaged (a metadata checksum, a heap reference out of range), which is bad input data. */
int reading_run_file;

int report_failure(const op_ctx *ctx)
{
    int damaged = reading_run_file && ctx->status == OP_ERR_LIBRARY;
    fprintf(stderr, "%s: %s%s\n", program, ctx->message, damaged ? " (a damaged run file)" : "");
    if (damaged)
        return EXIT_DATA;
    switch (ctx->status) {
    case OP_ERR_USAGE: return EXIT_USAGE;
    case OP_ERR_PARSE:
    case OP_ERR_INVALID: return EXIT_DATA;
    case OP_ERR_IO: return EXIT_IO;
    default: return EXIT_SOFTWARE;
    }
}

int parse_int(const char *text, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno || end == text || *end || value < lo || value > hi)
        return -1;
    *out = (int)value;
    return 0;
}

int parse_u64(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    if (text[0] == '-')
        return -1;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno || end == text || *end)
        return -1;
    *out = value;
    return 0;
}

int parse_positive(const char *text, double *out)
{
    char *end;
    errno = 0;
    double value = strtod(text, &end);
    if (errno || end == text || *end || !isfinite(value) || value <= 0)
        return -1;
    *out = value;
    return 0;
}

/* Body name from a path: the file name without directory and extension. */
void body_name_from_path(const char *path, char *name, size_t size)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(name, size, "%s", base);
    char *dot = strrchr(name, '.');
    if (dot && dot != name)
        *dot = '\0';
}

/* Puts "INPUT: " before a failure's message that does not name the input already (the
 * builder's "voxelize: the mesh is not closed" knows no file name); returns 0 so that it can
 * sit in a condition after the failed call. */
int name_input(op_ctx *ctx, const char *input)
{
    size_t length = strlen(input), used = strlen(ctx->message);
    if (strncmp(ctx->message, input, length) == 0 || length + 2 + used >= sizeof ctx->message)
        return 0;
    memmove(ctx->message + length + 2, ctx->message, used + 1);
    memcpy(ctx->message, input, length);
    memcpy(ctx->message + length, ": ", 2);
    return 0;
}

/* ---- opsim info / export ------------------------------------------------------------- */

/* Runs a command that reads the run file `path` in a child process, its standard output held
 * in a temporary file and copied out once the child has exited. libhdf5 1.10 has readers that
 * dereference garbage in a damaged file (H5HG_read, behind variable-length string attributes:
 * one byte changed crashed `opsim info`, and `h5dump -A` crashes on the same file) and no check
 * that opsim could make first protects against them; a crash of the child becomes "PATH: damaged
 * run file", exit 65, and no partial output. SIGINT, SIGTERM and SIGHUP sent to this process
 * are passed on to the child, which cleans up as any opsim process does, and this process then
 * dies of the same signal (without that, `kill PID` ended the parent alone while the child went
 * on to finish an export). */
int read_run_file_guarded(int (*command)(int, char **), int argc, char **argv, const char *path)
{
    reading_run_file = 1;
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
        return command(argc, argv); /* no process to spare: read unguarded */
    }
    if (child == 0) {
        sigprocmask(SIG_SETMASK, &previous, NULL);
        dup2(fileno(held), STDOUT_FILENO);
        int status = command(argc, argv);
        fflush(stdout);
        exit(status);
    }
    int wait_status = 0, forwarded = 0;
    for (;;) {
        int signal_number = sigwaitinfo(&waited, NULL);
        if (signal_number == SIGCHLD || signal_number < 0) { /* < 0: EINTR, or no SIGCHLD to wait for */
            pid_t done = waitpid(child, &wait_status, signal_number < 0 && errno != EINTR ? 0 : WNOHANG);
            if (done == child || (done < 0 && errno != EINTR))
                break;
        } else {
            kill(child, signal_number);
            forwarded = signal_number;
        }
    }
    sigprocmask(SIG_SETMASK, &previous, NULL);
    if (forwarded) {
        fclose(held);
        raise(forwarded); /* the handlers of op_temp_catch_signals end the process with it */
        return 128 + forwarded;
    }
    int status;
    if (WIFSIGNALED(wait_status)) {
        fprintf(stderr, "%s: %s: damaged run file (the HDF5 library crashed reading it: %s)\n", program, path,
                strsignal(WTERMSIG(wait_status)));
        status = EXIT_DATA;
    } else {
        status = WEXITSTATUS(wait_status);
        char buffer[65536];
        size_t got;
        rewind(held);
        while ((got = fread(buffer, 1, sizeof buffer, held)) > 0)
            if (fwrite(buffer, 1, got, stdout) != got)
                break;
        if (fflush(stdout) != 0 && status == 0) {
            fprintf(stderr, "%s: cannot write the output: %s\n", program, strerror(errno));
            status = EXIT_IO;
        }
    }
    fclose(held);
    return status;
}

/* A command taking one run file and nothing else: -1 when argv[1] is that file, else the exit
 * status to return (0 after printing `help` for --help, 64 for anything else). */
int check_single_run_file(const char *command, const char *help, int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--help") == 0) {
        fputs(help, stdout);
        return 0;
    }
    if (argc != 2 || argv[1][0] == '-')
        return usage_error(command, "%s", "give exactly one run file");
    return -1;
}

int load_input_mesh(op_ctx *ctx, const char *path, const char *shape, op_mesh *mesh)
{
    return shape ? op_shape_mesh(ctx, shape, mesh) : op_mesh_read(ctx, path, mesh);
}

int make_directory(op_ctx *ctx, const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot create the directory: %s", dir, strerror(errno));
    return OP_OK;
}

/* `opsim run`: one config, its overrides, recorded into `out`, then the sidecar beside it. */
int record_config(op_ctx *ctx, const char *config, int override_count, const char *const *overrides,
                         const char *out, const char *command_line, const op_record_def *def)
{
    op_scene scene;
    if (op_scene_load(ctx, config, override_count, overrides, &scene) != OP_OK)
        return ctx->status;
    op_provenance prov = { .command_line = command_line, .config_text = scene.config_text, .seed = 0 };
    if (op_record_run_def(ctx, &scene, out, &prov, def) == OP_OK)
        op_xdmf_write(ctx, out);
    op_scene_free(&scene);
    return ctx->status;
}
