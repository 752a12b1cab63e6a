/* The error context: first-failure recording and the allocation guard. */
#include "opsim/ctx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Field by field, not a memset of the kilobyte message: the world initialises a context per
 * body per iteration, and only the message's terminator is ever read before op_fail writes it. */
void op_ctx_init(op_ctx *ctx)
{
    ctx->status = OP_OK;
    ctx->message[0] = '\0';
    ctx->where_file = NULL;
    ctx->where_line = 0;
}

int op_fail(op_ctx *ctx, op_status status, const char *where_file, int where_line,
            const char *format, ...)
{
    if (ctx->status == OP_OK) {
        va_list args;
        va_start(args, format);
        vsnprintf(ctx->message, sizeof ctx->message, format, args);
        va_end(args);
        ctx->status = status;
        ctx->where_file = where_file;
        ctx->where_line = where_line;
    }
    return status;
}

void *op_calloc(op_ctx *ctx, size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        OP_FAIL(ctx, OP_ERR_NOMEM, "out of memory allocating %zu x %zu bytes", count, size);
    return p;
}

void *op_calloc_lines(op_ctx *ctx, size_t count, size_t size)
{
    size_t bytes = (count ? count : 1) * (size ? size : 1), rounded = (bytes + 63) / 64 * 64;
    void *p = aligned_alloc(64, rounded); /* whose size must be a multiple of the alignment */
    if (!p) {
        OP_FAIL(ctx, OP_ERR_NOMEM, "out of memory allocating %zu x %zu bytes on cache lines", count, size);
        return NULL;
    }
    return memset(p, 0, rounded);
}

const char *op_status_name(op_status status)
{
    switch (status) {
    case OP_OK: return "ok";
    case OP_ERR_IO: return "i/o error";
    case OP_ERR_PARSE: return "parse error";
    case OP_ERR_INVALID: return "invalid value";
    case OP_ERR_NOMEM: return "out of memory";
    case OP_ERR_LIBRARY: return "library error";
    case OP_ERR_USAGE: return "usage error";
    }
    return "unknown status";
}
