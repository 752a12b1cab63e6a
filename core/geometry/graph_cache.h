/* The graph cache: a built model (graph and skinning, core/geometry/build.h) kept on disk so that a
 * scene loads it instead of building it again. The 52-model scene of Fig. 7 spent seconds
 * building its graphs before its first frame, and a sweep of N runs paid that N times.
 *
 * Key. An entry is found by SHA-256 over (a) the mesh the builder reads (vertex and face
 * counts and arrays: a mesh file or a generated shape, as parsed), (b) the bytes of the whole
 * op_build_def, its padding cleared, so a builder parameter added to that struct later is part
 * of the key without anyone listing it here (op_build_def must hold values, not pointers), and
 * (c) the machine's integer and float layout. Its file is DIRECTORY/<first 32 hex digits>.graph.
 * Inside, the entry records OP_BUILD_VERSION and its full key: an entry of another builder
 * version (or one renamed onto another key) is stale and rebuilt over.
 *
 * File. A header ("opsim-graph-cache", version, key, counts), the graph's and the skin's arrays
 * as the machine holds them, then SHA-256 of all that. Written whole under a temporary name
 * and renamed (core/io/atomic.h), so a reader never sees part of an entry and two processes
 * filling one entry at once each rename a complete file over the other's (both the same
 * bytes). A file whose checksum, layout or content (op_graph_check, op_skin_check) is wrong is
 * damaged and rebuilt over. A cached graph is bit for bit the graph op_build_body gives.
 *
 * The cache never fails a build: an entry that cannot be read is rebuilt, one that cannot be
 * written is skipped; both are reported through the notice hook. */
#ifndef OPSIM_GRAPH_CACHE_H
#define OPSIM_GRAPH_CACHE_H

#include "geometry/build.h"
#include "opsim/ctx.h"

/* OPSIM_GRAPH_CACHE names the directory (default data/cache/graphs, relative to the working
 * directory like data/models.tsv); "off" or "" turns the cache off, and then NULL is returned. */
const char *op_graph_cache_directory(void);

/* Where the cache's notices go ("PATH: damaged entry (...), rebuilt"); NULL, the default, drops
 * them. Core prints nothing: bin/opsim sets a printer to stderr. */
void op_graph_cache_set_notice(void (*notice)(const char *message));

typedef enum op_graph_cache_outcome {
    OP_GRAPH_CACHE_OFF,     /* directory NULL: built */
    OP_GRAPH_CACHE_HIT,     /* loaded */
    OP_GRAPH_CACHE_MISS,    /* no entry: built and stored */
    OP_GRAPH_CACHE_DAMAGED, /* an unreadable entry: built and stored over it */
    OP_GRAPH_CACHE_STALE    /* another builder version's entry: built and stored over it */
} op_graph_cache_outcome;

/* op_build_body_report through the cache in `directory` (NULL: no cache), created if missing.
 * `label` names the model in notices. *outcome (may be NULL) says what happened; *graph, *skin
 * and *report (may be NULL; the entry keeps it) are as op_build_body_report leaves them. */
int op_build_body_cached(op_ctx *ctx, const char *directory, const char *label, const op_mesh *mesh,
                         const op_build_def *def, op_graph *graph, op_skin *skin, op_build_report *report,
                         op_graph_cache_outcome *outcome);

/* The entry's path for `mesh` and `def` in `directory` (path_size bytes at least 4096). */
int op_graph_cache_path(op_ctx *ctx, const char *directory, const op_mesh *mesh, const op_build_def *def,
                        char *path, size_t path_size);

#endif
