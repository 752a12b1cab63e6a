/* What the run-file files share (core/io/runfile_*.c, behind include/opsim/runfile.h): HDF5
 * failures turned into op_ctx messages naming the file and object, HDF5's own printing kept
 * quiet during each public call, and the helpers and body reading more than one verb needs.
 * Private to core/io. */
#ifndef OPSIM_RUNFILE_HDF5_H
#define OPSIM_RUNFILE_HDF5_H

#include <stddef.h>
#include <sys/resource.h>

#include <hdf5.h>

#include "opsim/runfile.h"

/* Any dataset extent opsim reads must fit an int after multiplying by the widest trailing
 * dimension (9 for the axes, OP_SKIN_MAX_K for the skin). */
enum { MAX_EXTENT = INT_MAX / 16 };

/* The string attributes of a run file's root group. */
extern const char *const ROOT_STRING_ATTRIBUTES[7];

/* Must be called straight after the failing HDF5 call: the next API call clears the stack the
 * reason is taken from. The message names `file`:`line` of the caller (H5_FAIL). */
int runfile_h5_fail(op_ctx *ctx, op_status status, const char *file, int line, const char *format, ...)
    __attribute__((format(printf, 5, 6)));
#define H5_FAIL(ctx, status, ...) runfile_h5_fail((ctx), (status), __FILE__, __LINE__, __VA_ARGS__)

typedef struct h5_quiet {
    H5E_auto2_t func;
    void *data;
} h5_quiet;

/* Failures are expected here (a missing dataset, a bad file) and reported through op_ctx, so
 * HDF5's stack printing is off for the call and the caller's setting restored after it. */
static inline h5_quiet quiet_begin(void)
{
    h5_quiet q = { NULL, NULL };
    H5Eget_auto2(H5E_DEFAULT, &q.func, &q.data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return q;
}

static inline void quiet_end(h5_quiet q)
{
    H5Eset_auto2(H5E_DEFAULT, q.func, q.data);
}

int runfile_valid_body_name(const char *name);
/* An absolute path of valid names, "/a/b/c", or "/" itself when root_allowed. */
int runfile_valid_object_path(const char *path, int root_allowed);
char *runfile_copy_string(op_ctx *ctx, const char *s);
void runfile_free_strings(char **strings, size_t count);
void runfile_format_shape(char *buf, size_t size, int rank, const hsize_t *dims);
/* Expected shapes use -1 for "any extent", shown as "*". */
void runfile_format_expected(char *buf, size_t size, int rank, const long long *expected);
void runfile_type_name(hid_t type, char *buf, size_t size);
/* H5Lexists fails instead of answering "no" when an intermediate group is missing, so each
 * prefix of the path is tested in turn. */
int runfile_object_exists(hid_t loc, const char *path);
/* The frames' states are /states/<element>/{value,step,time} (and /states/index) in run files
 * with H5MD's particle groups, /particles/<element>/... in those written before (docs/h5md.md),
 * element position, orientation or velocity. Writes the other layout's name of `dataset` into
 * out and returns 1, or returns 0 when it names no state dataset. */
int runfile_state_alias(const char *dataset, char *out, size_t size);
/* Opens `dataset` for reading, or under its other layout's name when that is the one the file
 * holds (runfile_state_alias); a missing dataset or a group in its place is OP_ERR_INVALID. */
hid_t runfile_open_dataset(op_ctx *ctx, const char *path, hid_t file, const char *dataset);
/* The name `file` holds `dataset` under: dataset itself, or its alias (in buffer) when only that
 * is a dataset of the file; dataset when neither is. */
const char *runfile_stored_name(hid_t file, const char *dataset, char *buffer, size_t size);
hid_t runfile_variable_string_type(H5T_cset_t cset);
/* The soft address-space limit lowered to what the process maps now plus `headroom` bytes (or
 * restored to `*saved`): variable-length strings of run files written before opsim wrote
 * fixed-length ones are read under it, so that a damaged heap reference's garbage length makes
 * HDF5's allocation fail (a clean error) instead of clearing gigabytes (an `opsim info` ran for
 * minutes at 7.7 GB). Linux only (/proc/self/statm); elsewhere nothing is capped. */
int runfile_cap_address_space(size_t headroom, struct rlimit *saved);
/* The fclose degree makes H5Fclose really close the file, so the rename in commit never races
 * an object left open. The 1.8 file format at least: its object headers carry checksums (a
 * changed byte there is an error, not garbage read on), and an attribute too large for its
 * object header (a config text of more than 64 kB, now that text attributes are fixed-length
 * strings) moves to dense storage instead of failing. */
hid_t runfile_file_access_list(void);
/* Object modification times would make two runs of the same command differ byte for byte. */
hid_t runfile_creation_list(hid_t class_id);
/* Makes a dataset creation list chunked and Fletcher-32 checksummed for a dataset of `dims`
 * written whole (nothing when it is empty); -1 when HDF5 refuses. */
int runfile_checksummed(hid_t dcpl, int rank, const hsize_t *dims, size_t element_bytes);
/* A missing file and a file HDF5 cannot read get different messages. */
hid_t runfile_open_file(op_ctx *ctx, const char *path, unsigned flags);
/* Reads a string attribute of any rank, variable- or fixed-length, into copies the caller
 * frees with runfile_free_strings. */
int runfile_read_strings(op_ctx *ctx, const char *path, hid_t attr, const char *what, char ***out, size_t *count);
/* One number of the class of mem_type (integer or float). */
int runfile_read_number(op_ctx *ctx, const char *path, hid_t file, const char *where, const char *name, hid_t mem_type, void *value);
/* One string; used only to prove that it is there and is a string. */
int runfile_require_string(op_ctx *ctx, const char *path, hid_t file, const char *where, const char *name);
typedef struct runfile_body_data {
    int n, m, v, f, k, polygons;
    double density;
    double *rest_position, *rest_axes, *radii, *volume, *mass, *rest_vertices, *skin_weight;
    int *edges, *faces, *skin_index;
} runfile_body_data;

void runfile_body_data_free(runfile_body_data *b);
int runfile_load_body(op_ctx *ctx, const char *path, hid_t file, const char *name, runfile_body_data *b);
/* The caller has zeroed graph, mesh and skin, so freeing all three on failure is safe. */
int runfile_build_body(op_ctx *ctx, const char *path, const char *name, const runfile_body_data *b, op_graph *graph, op_mesh *mesh, op_skin *skin);
/* The "bodies" root attribute, every name validated. */
int runfile_read_body_list(op_ctx *ctx, const char *path, hid_t file, char ***names, size_t *count);

#endif
