/* Whole-or-nothing text files (atomic.h). */
#include "atomic.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void release(op_atomic_file *f)
{
    OP_FREE(f->path);
    OP_FREE(f->temp);
    f->file = NULL;
}

int op_atomic_open(op_ctx *ctx, op_atomic_file *f, const char *path)
{
    memset(f, 0, sizeof *f);
    size_t length = strlen(path), temp_size = length + 32;
    f->path = op_calloc(ctx, length + 1, 1);
    f->temp = op_calloc(ctx, temp_size, 1);
    if (!f->path || !f->temp) {
        release(f);
        return ctx->status;
    }
    memcpy(f->path, path, length);
    snprintf(f->temp, temp_size, "%s.%ld.tmp", path, (long)getpid());
    f->file = fopen(f->temp, "w");
    if (!f->file) {
        int status = OP_FAIL(ctx, OP_ERR_IO, "%s: cannot create %s: %s", path, f->temp, strerror(errno));
        release(f);
        return status;
    }
    return OP_OK;
}

int op_atomic_commit(op_ctx *ctx, op_atomic_file *f)
{
    if (!f->file)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: not open for writing", f->path ? f->path : "(no file)");
    /* Most write errors (a full disk) surface when the buffer is flushed, with errno set; an
     * earlier failed write left only the stream's error flag, whose errno may be long gone. */
    errno = 0;
    int failed = fflush(f->file) != 0 || ferror(f->file), reason = failed ? (errno ? errno : EIO) : 0;
    if (fclose(f->file) != 0 && !failed) {
        failed = 1;
        reason = errno;
    }
    f->file = NULL;
    if (!failed && rename(f->temp, f->path) != 0) {
        failed = 1;
        reason = errno;
    }
    int status = OP_OK;
    if (failed) {
        remove(f->temp);
        status = OP_FAIL(ctx, OP_ERR_IO, "%s: cannot write: %s", f->path, strerror(reason));
    }
    release(f);
    return status;
}

void op_atomic_abort(op_atomic_file *f)
{
    if (f->file) {
        fclose(f->file);
        remove(f->temp);
    }
    release(f);
}
