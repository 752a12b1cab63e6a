/* The context every opsim call carries (after CHOLMOD's cholmod_common): the status of the
 * first failure, its user-facing message ("file:line: what went wrong") and where in opsim's
 * own source it was raised. Nothing in core/ prints or exits; the command line decides. */
#ifndef OPSIM_CTX_H
#define OPSIM_CTX_H

#include <stddef.h>

typedef enum op_status {
    OP_OK = 0,
    OP_ERR_IO = -1,      /* a file could not be opened, read, written or renamed */
    OP_ERR_PARSE = -2,   /* malformed input text: the message names file and line */
    OP_ERR_INVALID = -3, /* a value out of its domain: NaN, negative radius, bad index ... */
    OP_ERR_NOMEM = -4,
    OP_ERR_LIBRARY = -5, /* HDF5, LAPACKE or CHOLMOD reported a failure */
    OP_ERR_USAGE = -6    /* a bad option or argument */
} op_status;

typedef struct op_ctx {
    op_status status;      /* first failure only: later ones are consequences */
    char message[1024];
    const char *where_file; /* opsim source location that raised it, for debugging */
    int where_line;
} op_ctx;

void op_ctx_init(op_ctx *ctx);

/* Records the failure (if it is the first) and returns its status so callers can write
 * `return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: ...", path, line);`. */
int op_fail(op_ctx *ctx, op_status status, const char *where_file, int where_line,
            const char *format, ...) __attribute__((format(printf, 5, 6)));
#define OP_FAIL(ctx, status, ...) op_fail((ctx), (status), __FILE__, __LINE__, __VA_ARGS__)

/* calloc that records OP_ERR_NOMEM; count == 0 returns a valid unique pointer. */
void *op_calloc(op_ctx *ctx, size_t count, size_t size);
/* op_calloc whose block starts on a 64-byte cache line (free with free()): for records that a
 * thread writes or reads as one line. */
void *op_calloc_lines(op_ctx *ctx, size_t count, size_t size);
#define OP_FREE(p) do { free(p); (p) = NULL; } while (0)
/* Replaces the array p by `count` zeroed elements; false when out of memory (recorded in ctx). */
#define OP_RENEW(ctx, p, count) (free(p), ((p) = op_calloc((ctx), (count), sizeof *(p))) != NULL)

const char *op_status_name(op_status status);

#endif
