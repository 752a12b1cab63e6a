/* HDF5 run files (docs/design.md §5): one run, one self-describing file. A run file is written under
 * a temporary name beside its final path and renamed only by op_runfile_commit, so a failed or
 * killed run never leaves a file under the final name. The temporary name is "<path>.<pid>.tmp".
 *
 * Layout written so far:
 *   /                 attributes: program, version, git_revision, command_line, config, seed,
 *                     created, compiler_flags; "bodies": the body names in order
 *   /graph/<body>/    rest_position [n,3], rest_axes [n,3,3] (row-major, axes = columns),
 *                     radii [n,3], volume [n], mass [n], edges [m,2] (i < j);
 *                     attributes: kind, source, particles_requested, seed, density,
 *                     particles (n), edges (m), voxel_resolution (the grid the builder used)
 *   /mesh/<body>/     rest_vertices [V,3], faces [F,3], skin_index [V,K], skin_weight [V,K];
 *                     attribute: polygons (face count before triangulation)
 *                     (a body instancing the model of an earlier one: both groups are hard
 *                     links to the earlier body's, op_runfile_write_instance)
 *
 * and, from the simulation, time series whose first dimension grows by one row per output
 * frame or sub-step (op_series below), e.g. /states/position/value [T,N,3],
 * /states/orientation/value [T,N,3,3], /states/<part>/step [T] int64 and time [T] (s),
 * /solver/energy/total [S,I+1], /timing/total [T] (ms), /observables/<name>/value [T]; plus
 * fixed arrays (op_runfile_write_array) and attributes on any group or dataset. A recorded
 * run adds the H5MD 1.1 elements (docs/h5md.md).
 */
#ifndef OPSIM_RUNFILE_H
#define OPSIM_RUNFILE_H

#include <stdint.h>
#include <stdio.h>

#include "opsim/ctx.h"
#include "opsim/graph.h"
#include "opsim/mesh.h"

typedef struct op_skin op_skin; /* core/geometry/skin.h */

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
    int voxel_resolution;    /* the builder's (op_build_report); 0: not known, not written */
} op_body_info;

/* Bodies per run file, and the size of a body name buffer: names are 1 to 63 characters from
 * [A-Za-z0-9_-], so they are safe as HDF5 link names and in file names. */
enum { OP_RUNFILE_MAX_BODIES = 16384, OP_RUNFILE_NAME_SIZE = 64 };

/* Series open at once in one run: position, orientation and their step/time, four energies,
 * five timings and value/step/time of up to 32 observables fit with room to spare. */
enum { OP_RUNFILE_MAX_SERIES = 256 };

/* A file published together with the run file (the XDMF sidecar, core/io/xdmf.h): `write`
 * makes it at `temp` (a new file, created with op_temp_create) from the complete run file at
 * `source`, naming the run `final_run`; commit then publishes both (core/io/runfile_publish.h). */
typedef struct op_runfile_companion {
    int (*write)(op_ctx *ctx, const char *source, const char *final_run, const char *temp);
    char path[4200]; /* where it is published */
} op_runfile_companion;

/* Zero-initialised or filled by op_runfile_create; either way op_runfile_abort is safe on it. */
typedef struct op_runfile {
    int64_t file; /* hid_t; zero or negative when closed */
    char final_path[4096];
    char temp_path[4096]; /* "" once committed or aborted */
    int body_count;
    char body_names[OP_RUNFILE_MAX_BODIES][OP_RUNFILE_NAME_SIZE];
    int64_t series[OP_RUNFILE_MAX_SERIES]; /* hid_t of each open series, 0 for a free slot */
    int lock_held, lock_fd;                 /* RUN.h5.lock, held from create to commit or abort */
    op_runfile_companion companion;         /* write NULL: none */
} op_runfile;

/* Fails with OP_ERR_IO naming the path when its directory does not exist, or when another
 * process is writing the same path (RUN.h5.lock, core/io/runfile_publish.h). The temporary
 * file is created exclusively (a link at its name is never followed). */
int op_runfile_create(op_ctx *ctx, op_runfile *run, const char *path, const op_provenance *prov);
/* graph, mesh and skin are all required: the skin binds every mesh vertex to graph particles.
 * The name must be valid and new in this run (OP_ERR_INVALID). After a failure the body is
 * absent from the file and the run can still be committed or aborted. */
int op_runfile_write_body(op_ctx *ctx, op_runfile *run, const char *name, const op_body_info *info,
                          const op_graph *graph, const op_mesh *mesh, const op_skin *skin);
/* Another body instancing the model of `earlier`, a body already written: /graph/<name> and
 * /mesh/<name> are hard links to the earlier body's groups, so every HDF5 reader (h5py, h5dump,
 * the XDMF sidecar) finds the groups under both names while the file holds them once (Fig. 7's
 * 180 models would otherwise store 42 copies of each mesh). Same checks on the name as
 * op_runfile_write_body; OP_ERR_INVALID when `earlier` is not a body of the run. */
int op_runfile_write_instance(op_ctx *ctx, op_runfile *run, const char *name, const char *earlier);
/* Closes every series still open, writes the body list, flushes, closes, fsyncs and renames to
 * the final path, with its companion if one was set (core/io/runfile_publish.h). */
int op_runfile_commit(op_ctx *ctx, op_runfile *run);
/* The companion commit publishes with the run (a copy of *companion is kept). */
void op_runfile_set_companion(op_runfile *run, const op_runfile_companion *companion);
/* Closes every open series and the temporary file and deletes it; safe to call on a
 * committed or never-created run. */
void op_runfile_abort(op_runfile *run);

/* ---- Time series, arrays and attributes ---------------------------------------------------
 * Object paths are absolute, "/a/b/c", each name 1 to 63 of [A-Za-z0-9_-] and the whole path
 * shorter than OP_SERIES_PATH_SIZE; missing groups on the way are created, and a path that
 * already exists or runs through a dataset is refused (OP_ERR_INVALID). Values are stored
 * little-endian, bit for bit as given. */

typedef enum op_series_type { OP_SERIES_FLOAT64, OP_SERIES_INT64 } op_series_type;

/* A row is at most [N][3][3], so a series has rank 2 to 4 ([T] for scalar rows: rank 1). */
enum { OP_SERIES_MAX_ROW_RANK = 3, OP_SERIES_PATH_SIZE = 256 };

/* An open series: a dataset [rows, row_dims...] whose first dimension is unlimited. The fields
 * are for reading; the run owns the dataset. */
typedef struct op_series {
    int64_t dataset; /* hid_t; zero or negative when closed */
    int slot;        /* its entry in the run's open series */
    op_series_type type;
    int row_rank;
    int64_t row_dims[OP_SERIES_MAX_ROW_RANK];
    long rows; /* appended so far */
    char path[OP_SERIES_PATH_SIZE];
} op_series;

/* Creates an empty series at `path` whose rows have shape row_dims[0 .. row_rank-1] (each at
 * least 1; row_dims may be NULL when row_rank is 0). It is chunked along the first dimension:
 * a row of 64 KiB or more is one chunk (cut along its next dimensions beyond 1 MiB), smaller
 * rows share a chunk of at most 512 rows and 64 KiB. `unit` and `description` become string
 * attributes of the dataset unless NULL. On failure no dataset is left at `path` (groups made
 * on the way stay) and *series is closed. At most OP_RUNFILE_MAX_SERIES are open at once. */
int op_series_create(op_ctx *ctx, op_runfile *run, op_series *series, const char *path,
                     op_series_type type, int row_rank, const int64_t *row_dims, const char *unit,
                     const char *description);
/* Appends `count` rows, contiguous and row-major, of the series' type (double or int64_t).
 * count 0 does nothing. On failure the dataset keeps its previous rows. */
int op_series_append(op_ctx *ctx, op_runfile *run, op_series *series, const void *rows,
                     long count);
/* Closes the series, writing its cached rows to the file. Safe on a closed series and after
 * the run is committed or aborted (which close every series still open). */
int op_series_close(op_ctx *ctx, op_runfile *run, op_series *series);

/* Hands every row appended so far to the operating system, so the temporary file holds them
 * if the process is then killed (not fsync: a power cut may still lose them). While the run
 * is open HDF5's file lock keeps other readers out unless they set
 * HDF5_USE_FILE_LOCKING=FALSE; after a kill the temporary file opens normally. */
int op_runfile_flush(op_ctx *ctx, op_runfile *run);

/* An attribute on the group or dataset at object_path ("/" for the root); a missing object is
 * created as a group (so "/parameters" needs no other call). Setting an attribute the object
 * already has, or "bodies" on the root (written by commit), is OP_ERR_INVALID. The name
 * follows the rule for path names. */
int op_runfile_set_attribute_double(op_ctx *ctx, op_runfile *run, const char *object_path,
                                    const char *name, double value);
int op_runfile_set_attribute_int(op_ctx *ctx, op_runfile *run, const char *object_path,
                                 const char *name, int64_t value);
int op_runfile_set_attribute_string(op_ctx *ctx, op_runfile *run, const char *object_path,
                                    const char *name, const char *value);

/* A whole fixed-size dataset of rank 1 to 4, contiguous and row-major; extents may be 0
 * (data may then be NULL). Scalars belong in attributes. */
int op_runfile_write_array(op_ctx *ctx, op_runfile *run, const char *path, op_series_type type,
                           int rank, const int64_t *dims, const void *data);

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

/* `opsim info`: every group, dataset (shape, type, "extendible" for a series) and attribute,
 * as indented text. */
int op_runfile_info(op_ctx *ctx, const char *path, FILE *out);
/* `opsim export`: one numeric dataset as tab-separated text, one row per leading index and
 * the trailing dimensions flattened into columns (rank 1: one value a line), read in blocks so
 * a long series need not fit in memory. */
int op_runfile_export_tsv(op_ctx *ctx, const char *path, const char *dataset, FILE *out);

/* Reading parts of a run: one frame of a series without the whole series in memory. */
enum { OP_RUNFILE_MAX_RANK = 8 };

/* The shape of a dataset: *rank (0 for a scalar) and dims[0 .. rank-1]. A missing dataset, a
 * group in its place or a rank above OP_RUNFILE_MAX_RANK is OP_ERR_INVALID naming the file and
 * the dataset. */
int op_runfile_dataset_shape(op_ctx *ctx, const char *path, const char *dataset, int *rank,
                             int64_t dims[OP_RUNFILE_MAX_RANK]);
/* Rows first .. first+count-1 (along the first dimension) of a float64 dataset of rank 1 or
 * more, read through a hyperslab: count x (product of the trailing dimensions) values,
 * row-major, bit for bit as stored, into out[0 .. capacity-1]. OP_ERR_INVALID, naming the
 * dataset and the file, when the dataset is missing, not float64 (or a scalar), count < 1, the
 * rows are not all in [0, rows), or the values do not fit `capacity`; out is then untouched. */
int op_runfile_read_rows(op_ctx *ctx, const char *path, const char *dataset, long first,
                         long count, double *out, long capacity);
/* The same for an int64 dataset (e.g. /particles/position/step). */
int op_runfile_read_rows_int64(op_ctx *ctx, const char *path, const char *dataset, long first,
                               long count, int64_t *out, long capacity);
/* The readers above (and op_runfile_export_tsv) accept a frame-state dataset under either
 * layout's name: /states/<element>/{value,step,time} and /states/index, where run files with
 * H5MD particle groups keep them, or /particles/<element>/... and /particles/index, where run
 * files written before kept them (element position, orientation or velocity; docs/h5md.md).
 * The name the file at `path` stores `dataset` under, into out[0 .. size-1]: dataset itself,
 * or its other layout's name when only that is in the file (dataset when neither is). */
int op_runfile_stored_name(op_ctx *ctx, const char *path, const char *dataset, char *out, size_t size);
/* One numeric attribute `name` of the group or dataset `object` ("/" for the root), e.g.
 * ("/parameters/dino", "particle_offset"). A missing object or attribute, a string, an array
 * or (for _int) a float is OP_ERR_INVALID; an integer attribute read as double converts. */
int op_runfile_read_attribute_double(op_ctx *ctx, const char *path, const char *object,
                                     const char *name, double *value);
int op_runfile_read_attribute_int(op_ctx *ctx, const char *path, const char *object,
                                  const char *name, int64_t *value);
/* One string attribute (fixed- or variable-length, e.g. the root's git_revision or
 * /parameters/<body>'s model) into out[0 .. size-1], '\0'-terminated. A missing object or
 * attribute, a number, an array of strings or a string of size or more bytes is
 * OP_ERR_INVALID naming the file, the object and the attribute; out is then "". */
int op_runfile_read_attribute_string(op_ctx *ctx, const char *path, const char *object,
                                     const char *name, char *out, size_t size);

/* The run file's check function (after cholmod_check_*): the root attributes are present, the
 * "bodies" list matches the /graph and /mesh groups, and every body has all its datasets and
 * attributes with consistent shapes (n across the graph datasets, skin rows == mesh vertices),
 * finite values, canonical edges (i < j, sorted, unique), indices in range, and volume and mass
 * consistent with the radii and density. Other groups (series, arrays, /parameters) are not
 * checked. */
int op_runfile_check(op_ctx *ctx, const char *path);

/* What op_runfile_verify read. */
typedef struct op_runfile_verified {
    long groups, datasets, checksummed, attributes; /* checksummed: datasets with Fletcher-32 */
    unsigned long long bytes;                       /* dataset values read */
} op_runfile_verified;
/* The whole file read: every group, attribute and dataset value (so every Fletcher-32 and
 * object-header checksum is tested), then op_runfile_check. A damaged file is OP_ERR_INVALID
 * naming it and the object. `opsim verify`. */
int op_runfile_verify(op_ctx *ctx, const char *path, op_runfile_verified *count);

#endif
