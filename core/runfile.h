/* HDF5 run files (DESIGN §5): one run, one self-describing file. A run file is written under
 * a temporary name beside its final path and renamed only by op_runfile_commit, so a failed or
 * killed run never leaves a file under the final name. The temporary name is "<path>.<pid>.tmp".
 *
 * Layout written so far:
 *   /                 attributes: program, version, git_revision, command_line, config, seed,
 *                     created, compiler_flags; "bodies": the body names in order
 *   /graph/<body>/    rest_position [n,3], rest_axes [n,3,3] (row-major, axes = columns),
 *                     radii [n,3], volume [n], mass [n], edges [m,2] (i < j);
 *                     attributes: kind, source, particles_requested, seed, density,
 *                     particles (n), edges (m)
 *   /mesh/<body>/     rest_vertices [V,3], faces [F,3], skin_index [V,K], skin_weight [V,K];
 *                     attribute: polygons (face count before triangulation)
 */
#ifndef OPSIM_RUNFILE_H
#define OPSIM_RUNFILE_H

#include <stdint.h>
#include <stdio.h>

#include "ctx.h"
#include "graph.h"
#include "mesh.h"
#include "skin.h"

typedef struct op_provenance {
    const char *command_line; /* the full command as typed */
    const char *config_text;  /* the experiment config, "" when there is none */
    uint64_t seed;
} op_provenance;

typedef struct op_body_info {
    const char *kind;        /* "solid", "rod" or "shell" */
    const char *source;      /* mesh path or "shape:bar" ... */
    int particles_requested;
    uint64_t seed;
} op_body_info;

/* Bodies per run file, and the size of a body name buffer: names are 1 to 63 characters from
 * [A-Za-z0-9_-], so they are safe as HDF5 link names and in file names. */
enum { OP_RUNFILE_MAX_BODIES = 64, OP_RUNFILE_NAME_SIZE = 64 };

/* Zero-initialised or filled by op_runfile_create; either way op_runfile_abort is safe on it. */
typedef struct op_runfile {
    int64_t file; /* hid_t; zero or negative when closed */
    char final_path[4096];
    char temp_path[4096]; /* "" once committed or aborted */
    int body_count;
    char body_names[OP_RUNFILE_MAX_BODIES][OP_RUNFILE_NAME_SIZE];
} op_runfile;

/* Fails with OP_ERR_IO naming the path when its directory does not exist. */
int op_runfile_create(op_ctx *ctx, op_runfile *run, const char *path, const op_provenance *prov);
/* graph, mesh and skin are all required: the skin binds every mesh vertex to graph particles.
 * The name must be valid and new in this run (OP_ERR_INVALID). After a failure the body is
 * absent from the file and the run can still be committed or aborted. */
int op_runfile_write_body(op_ctx *ctx, op_runfile *run, const char *name, const op_body_info *info,
                          const op_graph *graph, const op_mesh *mesh, const op_skin *skin);
/* Writes the body list, flushes, closes and renames to the final path. */
int op_runfile_commit(op_ctx *ctx, op_runfile *run);
/* Closes and deletes the temporary file; safe to call on a committed or never-created run. */
void op_runfile_abort(op_runfile *run);

/* Reading back. Names are written into names[count][64]; a file listing more than `capacity`
 * bodies is an error (OP_ERR_INVALID) rather than a silently shortened list. */
int op_runfile_body_names(op_ctx *ctx, const char *path, char (*names)[OP_RUNFILE_NAME_SIZE],
                          int capacity, int *count);
/* Any of graph, mesh, skin may be NULL to skip it; the others are overwritten (they must not
 * hold allocations) and on failure are left freed and zeroed. The graph's volume, mass and
 * rest moments are recomputed with op_graph_derive and must agree with the stored volume and
 * mass to 1e-12 relative. */
int op_runfile_read_body(op_ctx *ctx, const char *path, const char *name, op_graph *graph,
                         op_mesh *mesh, op_skin *skin);

/* `opsim info`: every group, dataset (shape, type) and root attribute, as indented text. */
int op_runfile_info(op_ctx *ctx, const char *path, FILE *out);
/* `opsim export`: one numeric dataset as tab-separated text, one row per leading index and
 * the trailing dimensions flattened into columns (rank 1: one value a line). */
int op_runfile_export_tsv(op_ctx *ctx, const char *path, const char *dataset, FILE *out);

/* The run file's check function (after cholmod_check_*): the root attributes are present, the
 * "bodies" list matches the /graph and /mesh groups, and every body has all its datasets and
 * attributes with consistent shapes (n across the graph datasets, skin rows == mesh vertices),
 * finite values, canonical edges (i < j, sorted, unique), indices in range, and volume and mass
 * consistent with the radii and density. */
int op_runfile_check(op_ctx *ctx, const char *path);

#endif
