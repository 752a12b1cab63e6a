/* What every libFuzzer target of tests/fuzz/ shares: the input bytes as a file the reader under
 * test opens by path, and the check that a refusal says why.
 *
 * opsim's readers take paths (they name the file in every message), so each input is written
 * into one memory file (memfd_create) per process, truncated and rewritten per execution, and
 * passed as /proc/self/fd/N: no disk traffic, no leftover files, and no change to the readers'
 * interfaces for the sake of the fuzzer. libhdf5 resolves the real path of a file it opens,
 * which a memory file has not ("can't retrieve real path for file"), so the run-file target
 * asks for a real file instead: $TMPDIR/opsim-fuzz-NAME-XXXXXX (/tmp by default), removed
 * when the process exits normally (libFuzzer's exit skips that: tools/fuzz.sh sets TMPDIR). Any failing invariant calls abort(), which libFuzzer
 * records as a crash with its input. */
#ifndef OPSIM_FUZZ_INPUT_H
#define OPSIM_FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "opsim/ctx.h"
#include "opsim/platform.h"

/* As bin/opsim starts (core/base/platform.h): OpenBLAS on one thread, HDF5 without its exit handler. */
__attribute__((constructor)) static void fuzz_platform_init(void)
{
    op_platform_init();
}

typedef struct fuzz_file {
    int real; /* set before first use: a file in $TMPDIR rather than in memory */
    int fd;
    char path[4096];
} fuzz_file;

static char fuzz_real_path[4096];

static void fuzz_remove_real_file(void)
{
    unlink(fuzz_real_path);
}

/* Rewrites `file` (created on first use, `name` in its name) to hold exactly
 * data[0 .. size-1] and returns its path. At most one real file per process. */
static inline const char *fuzz_file_set(fuzz_file *file, const char *name, const uint8_t *data, size_t size)
{
    if (file->path[0] == '\0' && file->real) {
        const char *dir = getenv("TMPDIR");
        snprintf(file->path, sizeof file->path, "%s/opsim-fuzz-%s-XXXXXX", dir && *dir ? dir : "/tmp", name);
        file->fd = mkstemp(file->path);
        if (file->fd < 0) {
            perror(file->path);
            abort();
        }
        snprintf(fuzz_real_path, sizeof fuzz_real_path, "%s", file->path);
        atexit(fuzz_remove_real_file);
    } else if (file->path[0] == '\0') {
        file->fd = memfd_create(name, 0);
        if (file->fd < 0) {
            perror("fuzz: memfd_create");
            abort();
        }
        snprintf(file->path, sizeof file->path, "/proc/self/fd/%d", file->fd);
    }
    if (ftruncate(file->fd, 0) != 0 || pwrite(file->fd, data, size, 0) != (ssize_t)size) {
        perror("fuzz: writing the input");
        abort();
    }
    return file->path;
}

/* A reader that returned `status` either succeeded with no message or failed with a status
 * and a message naming the problem: a failure without one is a defect too. */
static inline void fuzz_check_outcome(const op_ctx *ctx, int status)
{
    if (status == OP_OK ? ctx->status != OP_OK : (ctx->status == OP_OK || ctx->message[0] == '\0')) {
        fprintf(stderr, "fuzz: status %d with ctx status %d and message '%s'\n", status, ctx->status, ctx->message);
        abort();
    }
}

#endif
