/* The files opsim reads as input (configs, meshes, the model catalogue): regular files only,
 * and no larger than a cap named in the refusal. `opsim run /dev/zero` grew by 250 MB/s until
 * killed, and a FIFO as config blocked forever: a device, FIFO or socket is refused
 * before a byte is read, and the FIFO is opened non-blocking so that even the open returns. A
 * link is followed (a link to a regular file is an ordinary way to name a mesh); it is what it
 * points at that must be a regular file. */
#ifndef OPSIM_INPUT_H
#define OPSIM_INPUT_H

#include <stdio.h>

#include "opsim/ctx.h"

/* Caps: far above any real input (the largest mesh in data/ is 2.6 MB, the largest config a
 * few kB), far below what would exhaust memory. */
#define OP_INPUT_MAX_CONFIG_BYTES (16LL << 20)
#define OP_INPUT_MAX_MESH_BYTES (4LL << 30)

/* Opens `path` for reading when it is a regular file of at most max_bytes; else OP_ERR_IO
 * "<path>: cannot open: not a regular file (a FIFO)" or "<path>: <what> larger than the cap of
 * N bytes", returning NULL. */
FILE *op_input_open(op_ctx *ctx, const char *path, long long max_bytes, const char *what);

#endif
