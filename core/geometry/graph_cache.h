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
 * File. A header ("opsim-graph-cache-2", version, key, counts), the graph's and the skin's
 * arrays as the machine holds them, then HMAC-SHA256 of all that under the cache's secret
 * (DIRECTORY/secret, 32 random bytes, mode 0600, made by the first writer). A plain checksum
 * anyone can recompute let an edited entry (particles moved, density x1000) pass; with the
 * secret an entry edited, or copied from another cache, fails. The secret guards against
 * damage and careless copies, not against someone who can read it. Written whole under a
 * temporary name and renamed (core/io/atomic.h), so a reader never sees part of an entry and
 * two processes filling one entry at once each rename a complete file over the other's.
 *
 * Reading trusts nothing before it is checked, in this order: a regular file (no link, FIFO or
 * device) of at most OP_GRAPH_CACHE_MAX_ENTRY_BYTES; the format; the HMAC; the builder version
 * and the key; the counts in range and the file size they imply (before any allocation); the
 * skin's vertex count against the mesh's; then op_graph_check (offsets ordered and in range
 * before any is used) and op_skin_check. An entry failing any of these is damaged or stale: it
 * is built again and stored over, and when that cannot be stored it is removed, never kept.
 * A cached graph is bit for bit the graph op_build_body gives (`opsim cache verify`).
 *
 * A mesh whose surface intersects itself (geometry/mesh_intersect.h) is reported through the
 * notice hook as a warning naming its first pair of crossing triangles, at every load: the
 * pair is found when the graph is built and kept in the entry.
 *
 * The cache never fails a build: an entry that cannot be read is rebuilt, one that cannot be
 * written is skipped; both are reported through the notice hook. */
#ifndef OPSIM_GRAPH_CACHE_H
#define OPSIM_GRAPH_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "geometry/build.h"
#include "opsim/ctx.h"

enum {
    OP_GRAPH_CACHE_DIGEST_SIZE = 32,
    OP_GRAPH_CACHE_SECRET_SIZE = 32,
    OP_GRAPH_CACHE_MAX_PARTICLES = 100000000,
    OP_GRAPH_CACHE_MAX_EDGES = 1000000000 /* 2 x edges still fits an int */
};
#define OP_GRAPH_CACHE_MAX_ENTRY_BYTES (64LL << 30)

/* OPSIM_GRAPH_CACHE names the directory (default data/cache/graphs, relative to the working
 * directory like data/models.tsv); "off" or "" turns the cache off, and then NULL is returned. */
const char *op_graph_cache_directory(void);

/* Where the cache's notices go ("PATH: damaged entry (...), rebuilt"); NULL, the default, drops
 * them. Core prints nothing: bin/opsim sets a printer to stderr. */
void op_graph_cache_set_notice(void (*notice)(const char *message));

/* Where a line goes before a graph is built rather than loaded, which takes seconds (20-25 s
 * for the bunny at 240 particles): "building the graph of LABEL (N particles)…". NULL, the
 * default, drops it; bin/opsim prints it on stderr when stderr is a terminal. */
void op_graph_cache_set_build_notice(void (*notice)(const char *message));

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

/* `opsim cache verify`: the entry DIRECTORY/name read with every check, its name recomputed
 * from the mesh and def it holds, and the graph built again from them and compared bit for
 * bit. Touches nothing on disk; why says what is wrong. */
enum {
    OP_GRAPH_CACHE_VERIFY_SAME,        /* the fresh build is the entry, bit for bit */
    OP_GRAPH_CACHE_VERIFY_DIFFERENT,   /* valid, but the fresh build differs */
    OP_GRAPH_CACHE_VERIFY_INVALID,     /* fails a check (damaged) */
    OP_GRAPH_CACHE_VERIFY_STALE,       /* another format or builder version */
    OP_GRAPH_CACHE_VERIFY_UNBUILDABLE  /* valid, but the build fails now */
};
int op_graph_cache_verify_entry(const char *directory, const char *name, char *why, size_t why_size);
/* Whether a file name is an entry's ("<32 hex digits>.graph"). */
int op_graph_cache_is_entry_name(const char *name);

typedef struct op_graph_cache_prune_count {
    int kept, removed_invalid, removed_temporary, removed_valid;
} op_graph_cache_prune_count;

/* Removes from `directory` the entries that fail every check made without the mesh (format,
 * HMAC, builder version, counts and size, graph and skin), the temporary files of dead
 * processes and, with `all`, every entry. `report` (may be NULL) gets each removed path. */
int op_graph_cache_prune(op_ctx *ctx, const char *directory, int all, void (*report)(const char *path, const char *why),
                         op_graph_cache_prune_count *count);

/* What an entry must match: the cache's secret, the key, the mesh's vertex count; any_key skips
 * the key and the vertex count (prune, which has no mesh). */
typedef struct op_graph_cache_expect {
    uint8_t secret[OP_GRAPH_CACHE_SECRET_SIZE];
    uint8_t key[OP_GRAPH_CACHE_DIGEST_SIZE];
    int vertex_count;
    int any_key;
} op_graph_cache_expect;

enum {
    OP_GRAPH_CACHE_ENTRY_LOADED,
    OP_GRAPH_CACHE_ENTRY_MISSING,
    OP_GRAPH_CACHE_ENTRY_DAMAGED,
    OP_GRAPH_CACHE_ENTRY_STALE
};
/* The entry's bytes parsed and checked (the reader, and the fuzz target tests/fuzz/fuzz_cache.c).
 * On OP_GRAPH_CACHE_ENTRY_LOADED *graph and *skin hold it, and *source (may be NULL; the caller
 * frees its mesh) the mesh and def it was built from; otherwise they hold nothing and why says
 * what is wrong. */
typedef struct op_graph_cache_source {
    op_mesh mesh;
    op_build_def def;
    int crossing[2]; /* the mesh's first crossing triangles (geometry/mesh_intersect.h), or -1 -1 */
} op_graph_cache_source;
int op_graph_cache_entry_parse(const uint8_t *bytes, size_t size, const op_graph_cache_expect *expect,
                               op_graph *graph, op_skin *skin, op_build_report *report, op_graph_cache_source *source,
                               char *why, size_t why_size);

#endif
