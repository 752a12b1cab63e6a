/* Where opsim finds its data, whatever the working directory: paths named inside a file are
 * relative to that file's folder, and the model catalogue a config does not name is looked for
 * in a fixed order (docs/data.md, "Where the data are found"):
 *   1. $OPSIM_DATA/models.tsv, when OPSIM_DATA is set (then nothing else is tried);
 *   2. data/models.tsv in the config's folder or any folder above it (a checkout's configs in
 *      experiments/ find the checkout's data/);
 *   3. data/models.tsv in the working directory or any folder above it;
 *   4. beside the program: ../data/models.tsv (a checkout's bin/opsim) and
 *      ../share/opsim/data/models.tsv (an installed one, `make install`).
 * Paths are joined and tidied lexically ("experiments/../data" is "data"), not resolved through
 * links, so what a run file records reads as the user wrote it. */
#ifndef OPSIM_PATHS_H
#define OPSIM_PATHS_H

#include <stddef.h>

#include "opsim/ctx.h"

/* `relative` as seen from the folder of `file`: unchanged when absolute (or when `file` has no
 * folder), else that folder joined with it, tidied. OP_ERR_INVALID when it does not fit. */
int op_path_beside(op_ctx *ctx, const char *file, const char *relative, char *out, size_t size);

/* The model catalogue for a config at `config_path` (NULL: none, as for `opsim graph`), found
 * in the order above; OP_ERR_IO naming every place tried when none holds one. */
int op_default_catalogue(op_ctx *ctx, const char *config_path, char *out, size_t size);

/* The graph cache's folder for models of `catalogue`: $OPSIM_GRAPH_CACHE when set ("" or "off":
 * *out empty, the cache off), else cache/graphs beside the catalogue. */
int op_graph_cache_beside(op_ctx *ctx, const char *catalogue, char *out, size_t size);

#endif
