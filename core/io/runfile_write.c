/* Writing run files (docs/design.md §5): creation under a temporary name and the atomic
 * commit, the body layout (graph, mesh, skin) with every shape checked, the per-frame series,
 * arrays and attributes. Each public call keeps HDF5 quiet and turns every failure into one
 * op_ctx message naming the file and the object. */
/* memfd_create, for the discard path */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/atomic.h"
#include "io/runfile_hdf5.h"
#include "geometry/skin.h"
#include "io/runfile_publish.h"

/* The Makefile passes these with -D; the fallbacks let the file build on its own. */
#ifndef OPSIM_VERSION
#define OPSIM_VERSION "unknown"
#endif
#ifndef OPSIM_GIT_REV
#define OPSIM_GIT_REV "unknown"
#endif
#ifndef OPSIM_CFLAGS
#define OPSIM_CFLAGS "unknown"
#endif

/* rank 0 writes a scalar, rank 1 `count` values. */
static int write_attribute(op_ctx *ctx, const char *path, hid_t loc, const char *where,
                           const char *name, hid_t file_type, hid_t mem_type, int rank,
                           hsize_t count, const void *value)
{
    int rc = OP_OK;
    hid_t space = rank ? H5Screate_simple(1, &count, NULL) : H5Screate(H5S_SCALAR);
    if (space < 0)
        return H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot make the dataspace of attribute %s of %s",
                       path, name, where);
    hid_t attr = H5Acreate2(loc, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0)
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot create attribute %s of %s", path, name,
                     where);
    else if (H5Awrite(attr, mem_type, value) < 0)
        rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot write attribute %s of %s", path, name, where);
    if (attr >= 0)
        H5Aclose(attr);
    H5Sclose(space);
    return rc;
}

/* Text attributes are fixed-length strings, as long as the longest value plus its '\0': a
 * variable-length string lives in the file's global heap, and libhdf5 1.10 trusts the heap
 * references it finds there. One changed byte in a run file with variable-length attributes
 * crashed `opsim info` in H5HG_read (and `h5dump -A`), or made H5T__conv_vlen allocate and
 * clear gigabytes for a garbage length. Fixed-length strings are read with no heap at all. */
static int write_strings(op_ctx *ctx, const char *path, hid_t loc, const char *where,
                         const char *name, int rank, hsize_t count, const char *const *values)
{
    size_t size = 1;
    for (hsize_t i = 0; i < count; i++)
        if (values[i] && strlen(values[i]) + 1 > size)
            size = strlen(values[i]) + 1;
    char *packed = op_calloc(ctx, (size_t)count + 1, size);
    if (!packed)
        return ctx->status;
    for (hsize_t i = 0; i < count; i++)
        if (values[i])
            memcpy(packed + i * size, values[i], strlen(values[i]));
    hid_t type = H5Tcopy(H5T_C_S1);
    if (type < 0 || H5Tset_size(type, size) < 0 || H5Tset_strpad(type, H5T_STR_NULLTERM) < 0 ||
        H5Tset_cset(type, H5T_CSET_UTF8) < 0) {
        if (type >= 0)
            H5Tclose(type);
        free(packed);
        return H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot make a string type for %s of %s", path,
                       name, where);
    }
    int rc = write_attribute(ctx, path, loc, where, name, type, type, rank, count, packed);
    H5Tclose(type);
    free(packed);
    return rc;
}

static int write_string(op_ctx *ctx, const char *path, hid_t loc, const char *where,
                        const char *name, const char *value)
{
    return write_strings(ctx, path, loc, where, name, 0, 1, &value);
}

static int write_int(op_ctx *ctx, const char *path, hid_t loc, const char *where,
                     const char *name, int value)
{
    return write_attribute(ctx, path, loc, where, name, H5T_STD_I32LE, H5T_NATIVE_INT, 0, 1,
                           &value);
}

static int write_u64(op_ctx *ctx, const char *path, hid_t loc, const char *where,
                     const char *name, uint64_t value)
{
    return write_attribute(ctx, path, loc, where, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, 0, 1,
                           &value);
}

static int write_double(op_ctx *ctx, const char *path, hid_t loc, const char *where,
                        const char *name, double value)
{
    return write_attribute(ctx, path, loc, where, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, 1,
                           &value);
}

static int write_dataset(op_ctx *ctx, const char *path, hid_t group, const char *where,
                         const char *name, hid_t file_type, hid_t mem_type, int rank,
                         const hsize_t *dims, const void *data)
{
    int rc = OP_OK;
    hid_t dcpl = -1, ds = -1;
    hid_t space = H5Screate_simple(rank, dims, NULL);
    if (space < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot make the dataspace of %s/%s", path, where,
                     name);
        goto done;
    }
    dcpl = runfile_creation_list(H5P_DATASET_CREATE);
    if (dcpl < 0 || runfile_checksummed(dcpl, rank, dims, H5Tget_size(file_type)) < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot make a creation list for %s/%s", path,
                     where, name);
        goto done;
    }
    ds = H5Dcreate2(group, name, file_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (ds < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot create dataset %s/%s", path, where, name);
        goto done;
    }
    /* An empty dataset (no edges, no faces) exists with its zero extent and nothing to write. */
    if (H5Sget_simple_extent_npoints(space) > 0 &&
        H5Dwrite(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
        rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot write dataset %s/%s", path, where, name);
done:
    if (ds >= 0)
        H5Dclose(ds);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    return rc;
}

/* Opens `name` in loc, creating it first if it is not there. */
static hid_t open_or_create_group(op_ctx *ctx, const char *path, hid_t loc, const char *name)
{
    htri_t exists = H5Lexists(loc, name, H5P_DEFAULT);
    if (exists < 0) {
        H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot look up group /%s", path, name);
        return -1;
    }
    if (exists) {
        hid_t group = H5Gopen2(loc, name, H5P_DEFAULT);
        if (group < 0)
            H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot open group /%s", path, name);
        return group;
    }
    hid_t gcpl = runfile_creation_list(H5P_GROUP_CREATE);
    if (gcpl < 0) {
        H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot make a creation list for group /%s", path, name);
        return -1;
    }
    hid_t group = H5Gcreate2(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
    if (group < 0)
        H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot create group /%s", path, name);
    H5Pclose(gcpl);
    return group;
}

/* Creates /<top>/<name> and returns it open. */
static hid_t create_body_group(op_ctx *ctx, const char *path, hid_t file, const char *top,
                               const char *name, const char *where)
{
    hid_t parent = open_or_create_group(ctx, path, file, top);
    if (parent < 0)
        return -1;
    hid_t group = -1;
    hid_t gcpl = runfile_creation_list(H5P_GROUP_CREATE);
    if (gcpl < 0)
        H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot make a creation list for group %s", path, where);
    else {
        group = H5Gcreate2(parent, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
        if (group < 0)
            H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot create group %s", path, where);
        H5Pclose(gcpl);
    }
    H5Gclose(parent);
    return group;
}

/* Closes every series still open in the run and returns how many failed to close: those may
 * have lost the rows still in their chunk cache. */
static int close_all_series(op_runfile *run)
{
    int failed = 0;
    for (int i = 0; i < OP_RUNFILE_MAX_SERIES; i++)
        if (run->series[i] > 0) {
            failed += H5Dclose(run->series[i]) < 0;
            run->series[i] = 0;
        }
    return failed;
}

/* Points the file's descriptor at an anonymous memory file. A file being discarded has no bytes
 * worth keeping: its last flushes (series chunk caches, metadata) then go to memory and succeed,
 * so a dataset write that failed on a full disk is followed by a clean close, and the unlinked
 * temporary file's blocks are freed at once, not when the process ends (an in-process sweep
 * goes on). After a failed H5Fflush, libhdf5 1.10 refuses every later close of the file
 * ("slist already enabled?") and leaves it half closed; its exit handler then crashed on it
 * (SIGSEGV, exit 139, instead of 74), which op_platform_init prevents (core/base/platform.h). */
static void divert_writes_to_memory(hid_t file)
{
    void *handle = NULL;
    if (H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) < 0 || !handle)
        return;
    int memory = memfd_create("opsim-discarded-run-file", MFD_CLOEXEC);
    if (memory < 0)
        return;
    dup2(memory, *(int *)handle);
    close(memory);
}

static void discard_temp(op_runfile *run)
{
    if (run->file > 0)
        divert_writes_to_memory(run->file);
    close_all_series(run);
    if (run->file > 0)
        H5Fclose(run->file);
    run->file = -1;
    if (run->temp_path[0]) {
        unlink(run->temp_path);
        op_temp_untrack(run->temp_path);
    }
    run->temp_path[0] = '\0';
    runfile_unlock(run);
}

static int check_directory(op_ctx *ctx, const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    struct stat st;
    if (stat(dir, &st) != 0)
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot create the run file: directory %s: %s", path,
                       dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot create the run file: %s is not a directory",
                       path, dir);
    return OP_OK;
}

static int create_impl(op_ctx *ctx, op_runfile *run, const char *path, const op_provenance *prov)
{
    memset(run, 0, sizeof *run);
    run->file = -1;
    if (!path || !*path)
        return OP_FAIL(ctx, OP_ERR_USAGE, "no run file path given");
    if (!prov || !prov->command_line || !prov->config_text)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: provenance without command line or config", path);
    if ((size_t)snprintf(run->final_path, sizeof run->final_path, "%s", path) >=
            sizeof run->final_path ||
        (size_t)snprintf(run->temp_path, sizeof run->temp_path, "%s.%ld.tmp", path,
                         (long)getpid()) >= sizeof run->temp_path) {
        run->final_path[0] = run->temp_path[0] = '\0';
        return OP_FAIL(ctx, OP_ERR_INVALID, "%.200s...: run file path too long", path);
    }
    int rc = check_directory(ctx, path);
    if (!rc)
        rc = runfile_lock(ctx, run);
    if (rc) {
        run->temp_path[0] = '\0';
        return rc;
    }

    char created[32];
    time_t now = time(NULL);
    struct tm utc;
    if (now == (time_t)-1 || !gmtime_r(&now, &utc) ||
        !strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &utc)) {
        run->temp_path[0] = '\0';
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot read the clock for the created attribute", path);
    }

    hid_t fapl = runfile_file_access_list();
    if (fapl < 0) {
        run->temp_path[0] = '\0';
        runfile_unlock(run);
        return H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot make a file access list", path);
    }
    op_temp_remove_stale(path);
    op_temp_track(run->temp_path);
    /* Exclusive: O_CREAT | O_EXCL never follows a link planted at the temporary's predictable
     * name. One left by an earlier process of this pid is removed itself (never its target). */
    struct stat left;
    if (lstat(run->temp_path, &left) == 0 && !S_ISDIR(left.st_mode))
        unlink(run->temp_path);
    run->file = H5Fcreate(run->temp_path, H5F_ACC_EXCL, H5P_DEFAULT, fapl);
    if (run->file < 0)
        rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot create its temporary file", path);
    H5Pclose(fapl);
    if (rc) {
        discard_temp(run);
        return rc;
    }

    const char *values[] = { "opsim", OPSIM_VERSION, OPSIM_GIT_REV, OPSIM_CFLAGS,
                             prov->command_line, prov->config_text, created };
    for (size_t i = 0; i < sizeof values / sizeof values[0] && !rc; i++)
        rc = write_string(ctx, path, run->file, "/", ROOT_STRING_ATTRIBUTES[i], values[i]);
    if (!rc)
        rc = write_u64(ctx, path, run->file, "/", "seed", prov->seed);
    if (rc)
        discard_temp(run);
    return rc;
}

/* Everything that would make the body unreadable is refused before the file is touched. */
static int check_body_args(op_ctx *ctx, const op_runfile *run, const char *name,
                           const op_body_info *info, const op_graph *graph, const op_mesh *mesh,
                           const op_skin *skin)
{
    const char *path = run->final_path;
    if (run->file <= 0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: run file is not open", path);
    if (!runfile_valid_body_name(name))
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "%s: invalid body name \"%.80s\" (1 to 63 of A-Z a-z 0-9 _ -)", path,
                       name ? name : "(null)");
    for (int b = 0; b < run->body_count; b++)
        if (strcmp(run->body_names[b], name) == 0)
            return OP_FAIL(ctx, OP_ERR_INVALID, "%s: body %s written twice", path, name);
    if (run->body_count >= OP_RUNFILE_MAX_BODIES)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: body %s: more than %d bodies", path, name,
                       OP_RUNFILE_MAX_BODIES);
    if (!info || !info->kind || !info->source || !graph || !mesh || !skin)
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "%s: body %s needs its info (kind, source), graph, mesh and skin", path,
                       name);
    int n = graph->particle_count;
    if (n < 0 || n > MAX_EXTENT || graph->edge_count < 0 || graph->edge_count > MAX_EXTENT)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: body %s: graph counts %d particles, %d edges",
                       path, name, n, graph->edge_count);
    if (!isfinite(graph->density) || graph->density <= 0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: body %s: graph density %g is not positive", path,
                       name, graph->density);
    int v = mesh->vertex_count;
    if (v < 0 || v > MAX_EXTENT || mesh->face_count < 0 || mesh->face_count > MAX_EXTENT)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: body %s: mesh counts %d vertices, %d faces", path,
                       name, v, mesh->face_count);
    for (int f = 0; f < 3 * mesh->face_count; f++)
        if (mesh->faces[f] < 0 || mesh->faces[f] >= v)
            return OP_FAIL(ctx, OP_ERR_INVALID, "%s: body %s: face %d uses vertex %d of %d", path,
                           name, f / 3, mesh->faces[f], v);
    if (skin->vertex_count != v || skin->k < 1 || skin->k > OP_SKIN_MAX_K)
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "%s: body %s: skin of %d vertices x %d influences for a mesh of %d "
                       "vertices (1 to %d influences)",
                       path, name, skin->vertex_count, skin->k, v, OP_SKIN_MAX_K);
    for (long long i = 0; i < (long long)v * skin->k; i++)
        if (skin->index[i] < 0 || skin->index[i] >= n)
            return OP_FAIL(ctx, OP_ERR_INVALID, "%s: body %s: vertex %lld binds particle %d of %d",
                           path, name, i / skin->k, skin->index[i], n);
    return OP_OK;
}

/* The unit (UDUNITS; "1" for an index or a ratio) and description of each dataset of a body's
 * /graph and /mesh groups. */
typedef struct dataset_note {
    const char *name, *unit, *description;
} dataset_note;
static const dataset_note graph_notes[] = {
    { "rest_position", "m", "rest centres x̄_i of the particles" },
    { "rest_axes", "1", "rest principal axes Ē_i of each particle's ellipsoid, as columns, row-major" },
    { "radii", "m", "semi-axes a, b, c of each particle's ellipsoid, along the columns of rest_axes" },
    { "volume", "m3", "ellipsoid volumes v_i = 4/3 pi a b c" },
    { "mass", "kg", "particle masses m_i = density v_i" },
    { "edges", "1", "particle pairs i < j joined by an edge (indices into this body's particles)" },
};
static const dataset_note mesh_notes[] = {
    { "rest_vertices", "m", "visual mesh vertices at rest" },
    { "faces", "1", "triangles as three indices into rest_vertices" },
    { "skin_index", "1", "the particles skinning each vertex (Eq. 2), indices into this body's particles" },
    { "skin_weight", "1", "their weights, summing to 1 over a vertex's row" },
};

/* Writes each note's unit and description on the dataset of that name in `group`. */
static int describe(op_ctx *ctx, const char *path, hid_t group, const char *where, const dataset_note *notes,
                    size_t count)
{
    int rc = OP_OK;
    for (size_t k = 0; !rc && k < count; ++k) {
        hid_t ds = H5Dopen2(group, notes[k].name, H5P_DEFAULT);
        if (ds < 0)
            return H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot open %s/%s", path, where, notes[k].name);
        rc = write_string(ctx, path, ds, notes[k].name, "unit", notes[k].unit);
        if (!rc)
            rc = write_string(ctx, path, ds, notes[k].name, "description", notes[k].description);
        H5Dclose(ds);
    }
    return rc;
}

static int write_graph(op_ctx *ctx, const char *path, hid_t group, const char *where,
                       const op_body_info *info, const op_graph *graph)
{
    hsize_t n = (hsize_t)graph->particle_count, m = (hsize_t)graph->edge_count;
    int *edges = op_calloc(ctx, 2 * (size_t)m, sizeof *edges);
    if (!edges)
        return ctx->status;
    op_graph_edges(graph, edges);
    int rc = write_dataset(ctx, path, group, where, "rest_position", H5T_IEEE_F64LE,
                           H5T_NATIVE_DOUBLE, 2, (hsize_t[]){ n, 3 }, graph->rest_position);
    if (!rc)
        rc = write_dataset(ctx, path, group, where, "rest_axes", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                           3, (hsize_t[]){ n, 3, 3 }, graph->rest_axes);
    if (!rc)
        rc = write_dataset(ctx, path, group, where, "radii", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2,
                           (hsize_t[]){ n, 3 }, graph->radii);
    if (!rc)
        rc = write_dataset(ctx, path, group, where, "volume", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1,
                           &n, graph->volume);
    if (!rc)
        rc = write_dataset(ctx, path, group, where, "mass", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1,
                           &n, graph->mass);
    if (!rc)
        rc = write_dataset(ctx, path, group, where, "edges", H5T_STD_I32LE, H5T_NATIVE_INT, 2,
                           (hsize_t[]){ m, 2 }, edges);
    free(edges);
    if (!rc)
        rc = describe(ctx, path, group, where, graph_notes, sizeof graph_notes / sizeof *graph_notes);
    if (!rc)
        rc = write_string(ctx, path, group, where, "kind", info->kind);
    if (!rc)
        rc = write_string(ctx, path, group, where, "source", info->source);
    if (!rc)
        rc = write_int(ctx, path, group, where, "particles_requested", info->particles_requested);
    if (!rc)
        rc = write_u64(ctx, path, group, where, "seed", info->seed);
    if (!rc)
        rc = write_double(ctx, path, group, where, "density", graph->density);
    if (!rc)
        rc = write_int(ctx, path, group, where, "particles", graph->particle_count);
    if (!rc)
        rc = write_int(ctx, path, group, where, "edges", graph->edge_count);
    if (!rc && info->voxel_resolution > 0)
        rc = write_int(ctx, path, group, where, "voxel_resolution", info->voxel_resolution);
    return rc;
}

static int write_mesh(op_ctx *ctx, const char *path, hid_t group, const char *where,
                      const op_mesh *mesh, const op_skin *skin)
{
    hsize_t v = (hsize_t)mesh->vertex_count, f = (hsize_t)mesh->face_count, k = (hsize_t)skin->k;
    int rc = write_dataset(ctx, path, group, where, "rest_vertices", H5T_IEEE_F64LE,
                           H5T_NATIVE_DOUBLE, 2, (hsize_t[]){ v, 3 }, mesh->vertices);
    if (!rc)
        rc = write_dataset(ctx, path, group, where, "faces", H5T_STD_I32LE, H5T_NATIVE_INT, 2,
                           (hsize_t[]){ f, 3 }, mesh->faces);
    if (!rc)
        rc = write_dataset(ctx, path, group, where, "skin_index", H5T_STD_I32LE, H5T_NATIVE_INT, 2,
                           (hsize_t[]){ v, k }, skin->index);
    if (!rc)
        rc = write_dataset(ctx, path, group, where, "skin_weight", H5T_IEEE_F64LE,
                           H5T_NATIVE_DOUBLE, 2, (hsize_t[]){ v, k }, skin->weight);
    if (!rc)
        rc = describe(ctx, path, group, where, mesh_notes, sizeof mesh_notes / sizeof *mesh_notes);
    if (!rc)
        rc = write_int(ctx, path, group, where, "polygons", mesh->polygon_count);
    return rc;
}

static int write_body_impl(op_ctx *ctx, op_runfile *run, const char *name,
                           const op_body_info *info, const op_graph *graph, const op_mesh *mesh,
                           const op_skin *skin)
{
    int rc = check_body_args(ctx, run, name, info, graph, mesh, skin);
    if (rc)
        return rc;
    const char *path = run->final_path;
    char graph_where[80], mesh_where[80];
    snprintf(graph_where, sizeof graph_where, "/graph/%s", name);
    snprintf(mesh_where, sizeof mesh_where, "/mesh/%s", name);

    hid_t group = create_body_group(ctx, path, run->file, "graph", name, graph_where);
    if (group < 0)
        return ctx->status;
    rc = write_graph(ctx, path, group, graph_where, info, graph);
    H5Gclose(group);
    if (!rc) {
        group = create_body_group(ctx, path, run->file, "mesh", name, mesh_where);
        if (group < 0)
            rc = ctx->status;
        else {
            rc = write_mesh(ctx, path, group, mesh_where, mesh, skin);
            H5Gclose(group);
        }
    }
    if (rc) {
        /* A half-written body would contradict the body list written at commit. */
        if (runfile_object_exists(run->file, graph_where))
            H5Ldelete(run->file, graph_where, H5P_DEFAULT);
        if (runfile_object_exists(run->file, mesh_where))
            H5Ldelete(run->file, mesh_where, H5P_DEFAULT);
        return rc;
    }
    snprintf(run->body_names[run->body_count++], OP_RUNFILE_NAME_SIZE, "%s", name);
    return OP_OK;
}

static int write_instance_impl(op_ctx *ctx, op_runfile *run, const char *name, const char *earlier)
{
    const char *path = run->final_path;
    if (run->file <= 0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: run file is not open", path);
    if (!runfile_valid_body_name(name))
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: invalid body name \"%.80s\" (1 to 63 of A-Z a-z 0-9 _ -)", path,
                       name ? name : "(null)");
    int found = 0;
    for (int b = 0; b < run->body_count; b++) {
        if (strcmp(run->body_names[b], name) == 0)
            return OP_FAIL(ctx, OP_ERR_INVALID, "%s: body %s written twice", path, name);
        found |= earlier && strcmp(run->body_names[b], earlier) == 0;
    }
    if (!found)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: body %s: the body it instances, %s, is not in the file", path, name,
                       earlier ? earlier : "(null)");
    if (run->body_count >= OP_RUNFILE_MAX_BODIES)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: body %s: more than %d bodies", path, name, OP_RUNFILE_MAX_BODIES);
    static const char *const parts[2] = { "graph", "mesh" };
    for (int p = 0; p < 2; ++p) {
        char from[80], to[80];
        snprintf(from, sizeof from, "/%s/%s", parts[p], earlier);
        snprintf(to, sizeof to, "/%s/%s", parts[p], name);
        if (H5Lcreate_hard(run->file, from, run->file, to, H5P_DEFAULT, H5P_DEFAULT) < 0) {
            int rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot link %s to %s", path, to, from);
            if (p == 1) { /* a half-written body would contradict the body list */
                snprintf(to, sizeof to, "/graph/%s", name);
                H5Ldelete(run->file, to, H5P_DEFAULT);
            }
            return rc;
        }
    }
    snprintf(run->body_names[run->body_count++], OP_RUNFILE_NAME_SIZE, "%s", name);
    return OP_OK;
}

static int commit_impl(op_ctx *ctx, op_runfile *run)
{
    const char *path = run->final_path;
    if (run->file <= 0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: run file is not open", path);
    /* An open dataset would survive H5Fclose only as a dangling handle (the close degree is
     * strong), and its cached rows must reach the file before the rename. */
    int rc = OP_OK;
    int failed = close_all_series(run);
    if (failed)
        rc = OP_FAIL(ctx, OP_ERR_IO, "%s: %d series could not be closed; their last rows may be "
                     "lost", path, failed);
    const char *names[OP_RUNFILE_MAX_BODIES];
    for (int b = 0; b < run->body_count; b++)
        names[b] = run->body_names[b];
    if (!rc)
        rc = write_strings(ctx, path, run->file, "/", "bodies", 1, (hsize_t)run->body_count,
                           names);
    if (!rc && H5Fflush(run->file, H5F_SCOPE_GLOBAL) < 0)
        rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot write: flush failed", path);
    if (!rc) {
        herr_t closed = H5Fclose(run->file);
        run->file = -1;
        if (closed < 0)
            rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot write: close failed", path);
    }
    if (!rc)
        rc = runfile_publish(ctx, run);
    if (rc && run->temp_path[0]) {
        discard_temp(run);
        return rc;
    }
    runfile_unlock(run);
    return rc;
}

/* Extents are capped as for the bodies (readers multiply them as ints), and a whole array or
 * row at 2^40 values, so counting them cannot overflow. */
static const long long MAX_VALUES = 1LL << 40;

/* The number of values in an array of these extents, or -1 when an extent is outside
 * [minimum, MAX_EXTENT] or the count exceeds MAX_VALUES. */
static long long count_values(int rank, const int64_t *dims, int64_t minimum)
{
    long long count = 1;
    for (int i = 0; i < rank; i++) {
        if (dims[i] < minimum || dims[i] > MAX_EXTENT)
            return -1;
        if (dims[i] > 0 && count > MAX_VALUES / dims[i])
            return -1;
        count *= dims[i];
    }
    return count;
}

static int valid_type(op_series_type type)
{
    return type == OP_SERIES_FLOAT64 || type == OP_SERIES_INT64;
}

static hid_t file_type_of(op_series_type type)
{
    return type == OP_SERIES_INT64 ? H5T_STD_I64LE : H5T_IEEE_F64LE;
}

static hid_t memory_type_of(op_series_type type)
{
    return type == OP_SERIES_INT64 ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE;
}

/* Creates the missing groups on the way to `object`, and `object` itself when `self` and it
 * is missing; a dataset on the way makes the path invalid. */
static int make_groups(op_ctx *ctx, op_runfile *run, const char *object, int self)
{
    const char *path = run->final_path;
    char prefix[OP_SERIES_PATH_SIZE];
    size_t len = strlen(object);
    /* From 2: the first name has at least one character, and "/" itself needs nothing. */
    for (size_t i = 2; i <= len; i++) {
        if (object[i] != '/' && !(object[i] == '\0' && self))
            continue;
        memcpy(prefix, object, i);
        prefix[i] = '\0';
        if (runfile_object_exists(run->file, prefix)) {
            if (i == len)
                break;
            hid_t existing = H5Oopen(run->file, prefix, H5P_DEFAULT);
            if (existing < 0)
                return H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot open %s", path, prefix);
            H5I_type_t type = H5Iget_type(existing);
            H5Oclose(existing);
            if (type != H5I_GROUP)
                return OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s is not a group", path, prefix);
            continue;
        }
        hid_t group = open_or_create_group(ctx, path, run->file, prefix + 1);
        if (group < 0)
            return ctx->status;
        H5Gclose(group);
    }
    return OP_OK;
}

/* The checks shared by everything that adds a new object at `name`. */
static int check_new_object(op_ctx *ctx, op_runfile *run, const char *what, const char *name,
                            op_series_type type)
{
    const char *path = run->final_path;
    if (run->file <= 0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: run file is not open", path);
    if (!runfile_valid_object_path(name, 0))
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "%s: invalid %s path \"%.80s\" (/a/b/..., names of 1 to 63 of A-Z a-z 0-9 "
                       "_ -)", path, what, name ? name : "(null)");
    if (!valid_type(type))
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s %s: unknown type %d", path, what, name,
                       (int)type);
    if (runfile_object_exists(run->file, name))
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s %s: the path already exists", path, what,
                       name);
    return OP_OK;
}

/* Rows of CHUNK_BYTES or more are one chunk each, cut along their next dimensions when over
 * CHUNK_MAX, so a frame of particles is written and read back as whole chunks. Smaller rows
 * share a chunk of at most CHUNK_ROWS rows: every flush rewrites each series' partly filled
 * chunk whole, and a run may hold a hundred scalar series (observables' value/step/time), so
 * 4 KiB scalar chunks instead of 64 KiB keep the flush and a short run's file small (measured
 * with 104 small series: 0.7 instead of 1.5-2.7 ms per frame, 6 MB less per file). */
enum { CHUNK_BYTES = 64 << 10, CHUNK_MAX = 1 << 20, CHUNK_ROWS = 512 };

static void series_chunk(int rank, const hsize_t *dims, hsize_t *chunk)
{
    hsize_t bytes = 8;
    for (int i = 1; i < rank; i++) {
        chunk[i] = dims[i];
        bytes *= dims[i];
    }
    chunk[0] = bytes >= CHUNK_BYTES ? 1 : CHUNK_BYTES / bytes;
    if (chunk[0] > CHUNK_ROWS)
        chunk[0] = CHUNK_ROWS;
    for (int i = 1; i < rank && bytes > CHUNK_MAX; i++) {
        hsize_t parts = (bytes + CHUNK_MAX - 1) / CHUNK_MAX;
        hsize_t keep = (chunk[i] + parts - 1) / parts;
        bytes = bytes / chunk[i] * keep;
        chunk[i] = keep;
    }
}

static int series_create_impl(op_ctx *ctx, op_runfile *run, op_series *series, const char *name,
                              op_series_type type, int row_rank, const int64_t *row_dims,
                              const char *unit, const char *description)
{
    memset(series, 0, sizeof *series);
    series->dataset = -1;
    const char *path = run->final_path;
    int rc = check_new_object(ctx, run, "series", name, type);
    if (rc)
        return rc;
    if (row_rank < 0 || row_rank > OP_SERIES_MAX_ROW_RANK || (row_rank > 0 && !row_dims) ||
        count_values(row_rank, row_dims, 1) < 0)
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "%s: series %s: rows of rank %d (0 to %d, each extent 1 to %d)", path,
                       name, row_rank, OP_SERIES_MAX_ROW_RANK, MAX_EXTENT);
    int slot = 0;
    while (slot < OP_RUNFILE_MAX_SERIES && run->series[slot] > 0)
        slot++;
    if (slot == OP_RUNFILE_MAX_SERIES)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: series %s: %d series are open already", path,
                       name, OP_RUNFILE_MAX_SERIES);
    rc = make_groups(ctx, run, name, 0);
    if (rc)
        return rc;

    int rank = row_rank + 1;
    hsize_t dims[OP_SERIES_MAX_ROW_RANK + 1] = { 0 }, max[OP_SERIES_MAX_ROW_RANK + 1] = {
        H5S_UNLIMITED
    }, chunk[OP_SERIES_MAX_ROW_RANK + 1];
    for (int i = 0; i < row_rank; i++)
        dims[i + 1] = max[i + 1] = (hsize_t)row_dims[i];
    series_chunk(rank, dims, chunk);
    hid_t ds = -1, dcpl = -1, dapl = -1, space = H5Screate_simple(rank, dims, max);
    if (space < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot make the dataspace of series %s", path,
                     name);
        goto done;
    }
    /* When a chunk holds one row or less, every append covers whole chunks, so there is no
     * fill value to write first and nothing to gain from the chunk cache: without both, HDF5
     * writes a frame straight from the caller's rows instead of copying it through the cache
     * (measured: a third less time per frame of 4,400 particles). */
    int whole_chunks = chunk[0] == 1;
    dcpl = runfile_creation_list(H5P_DATASET_CREATE);
    if (dcpl < 0 || H5Pset_chunk(dcpl, rank, chunk) < 0 || H5Pset_fletcher32(dcpl) < 0 ||
        (whole_chunks && H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0)) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot make a chunked creation list for series %s",
                     path, name);
        goto done;
    }
    dapl = H5Pcreate(H5P_DATASET_ACCESS);
    if (dapl < 0 || (whole_chunks && H5Pset_chunk_cache(dapl, H5D_CHUNK_CACHE_NSLOTS_DEFAULT, 0,
                                                        H5D_CHUNK_CACHE_W0_DEFAULT) < 0)) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot make an access list for series %s", path,
                     name);
        goto done;
    }
    ds = H5Dcreate2(run->file, name, file_type_of(type), space, H5P_DEFAULT, dcpl, dapl);
    if (ds < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot create series %s", path, name);
        goto done;
    }
    if (unit)
        rc = write_string(ctx, path, ds, name, "unit", unit);
    if (!rc && description)
        rc = write_string(ctx, path, ds, name, "description", description);
done:
    if (dapl >= 0)
        H5Pclose(dapl);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    if (rc) {
        if (ds >= 0) {
            H5Dclose(ds);
            H5Ldelete(run->file, name, H5P_DEFAULT);
        }
        return rc;
    }
    run->series[slot] = ds;
    series->dataset = ds;
    series->slot = slot;
    series->type = type;
    series->row_rank = row_rank;
    for (int i = 0; i < row_rank; i++)
        series->row_dims[i] = row_dims[i];
    snprintf(series->path, sizeof series->path, "%s", name);
    return OP_OK;
}

/* Open means registered in this run: commit and abort empty the registry, so a series that
 * outlived its run is refused rather than written through a stale handle. */
static int series_is_open(const op_runfile *run, const op_series *series)
{
    return run && series && series->dataset > 0 && series->slot >= 0 &&
           series->slot < OP_RUNFILE_MAX_SERIES && run->series[series->slot] == series->dataset;
}

static int series_append_impl(op_ctx *ctx, op_runfile *run, op_series *series, const void *rows,
                              long count)
{
    const char *path = run->final_path;
    if (!series_is_open(run, series))
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: series %s is not open in this run", path,
                       series && series->path[0] ? series->path : "(never created)");
    if (count < 0 || (count > 0 && !rows) || count > LONG_MAX - series->rows)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: series %s: cannot append %ld rows%s", path,
                       series->path, count, rows ? "" : " from NULL");
    if (count == 0)
        return OP_OK;
    int rank = series->row_rank + 1, rc = OP_OK;
    hsize_t extent[OP_SERIES_MAX_ROW_RANK + 1], block[OP_SERIES_MAX_ROW_RANK + 1];
    hsize_t start[OP_SERIES_MAX_ROW_RANK + 1] = { (hsize_t)series->rows };
    extent[0] = (hsize_t)(series->rows + count);
    block[0] = (hsize_t)count;
    for (int i = 0; i < series->row_rank; i++)
        extent[i + 1] = block[i + 1] = (hsize_t)series->row_dims[i];
    if (H5Dset_extent(series->dataset, extent) < 0)
        return H5_FAIL(ctx, OP_ERR_IO, "%s: cannot extend series %s to %ld rows", path,
                       series->path, series->rows + count);
    hid_t file_space = H5Dget_space(series->dataset);
    hid_t memory = H5Screate_simple(rank, block, NULL);
    if (file_space < 0 || memory < 0 ||
        H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, block, NULL) < 0)
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot select rows of series %s", path,
                     series->path);
    else if (H5Dwrite(series->dataset, memory_type_of(series->type), memory, file_space,
                      H5P_DEFAULT, rows) < 0)
        rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot write rows %ld to %ld of series %s", path,
                     series->rows, series->rows + count - 1, series->path);
    if (memory >= 0)
        H5Sclose(memory);
    if (file_space >= 0)
        H5Sclose(file_space);
    if (rc) {
        /* Rows of fill values would pass for data. */
        extent[0] = (hsize_t)series->rows;
        H5Dset_extent(series->dataset, extent);
        return rc;
    }
    series->rows += count;
    return OP_OK;
}

static int series_close_impl(op_ctx *ctx, op_runfile *run, op_series *series)
{
    if (!series)
        return OP_OK;
    int rc = OP_OK;
    if (series_is_open(run, series)) {
        run->series[series->slot] = 0;
        if (H5Dclose(series->dataset) < 0)
            rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot close series %s; its last rows may be lost",
                         run->final_path, series->path);
    }
    series->dataset = -1;
    return rc;
}

static int flush_impl(op_ctx *ctx, op_runfile *run)
{
    if (run->file <= 0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: run file is not open", run->final_path);
    if (H5Fflush(run->file, H5F_SCOPE_GLOBAL) < 0)
        return H5_FAIL(ctx, OP_ERR_IO, "%s: cannot flush %s", run->final_path, run->temp_path);
    return OP_OK;
}

/* Checks an attribute about to be set and opens its object, creating it as a group when it
 * is missing; -1 on failure. */
static hid_t attribute_target(op_ctx *ctx, op_runfile *run, const char *object, const char *name)
{
    const char *path = run->final_path;
    if (run->file <= 0) {
        OP_FAIL(ctx, OP_ERR_INVALID, "%s: run file is not open", path);
        return -1;
    }
    if (!runfile_valid_object_path(object, 1) || !runfile_valid_body_name(name)) {
        OP_FAIL(ctx, OP_ERR_INVALID,
                "%s: invalid attribute \"%.80s\" of \"%.80s\" (names of 1 to 63 of A-Z a-z 0-9 "
                "_ -)", path, name ? name : "(null)", object ? object : "(null)");
        return -1;
    }
    if (strcmp(object, "/") == 0 && strcmp(name, "bodies") == 0) {
        OP_FAIL(ctx, OP_ERR_INVALID, "%s: the root attribute bodies is written by commit", path);
        return -1;
    }
    if (make_groups(ctx, run, object, 1))
        return -1;
    htri_t exists = H5Aexists_by_name(run->file, object, name, H5P_DEFAULT);
    if (exists != 0) {
        if (exists > 0)
            OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s already has attribute %s", path, object, name);
        else
            H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot look up attribute %s of %s", path, name,
                    object);
        return -1;
    }
    hid_t target = H5Oopen(run->file, object, H5P_DEFAULT);
    if (target < 0)
        H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot open %s", path, object);
    return target;
}

static int write_array_impl(op_ctx *ctx, op_runfile *run, const char *name, op_series_type type,
                            int rank, const int64_t *dims, const void *data)
{
    const char *path = run->final_path;
    int rc = check_new_object(ctx, run, "array", name, type);
    if (rc)
        return rc;
    long long values = rank >= 1 && rank <= OP_SERIES_MAX_ROW_RANK + 1 && dims
                           ? count_values(rank, dims, 0)
                           : -1;
    if (values < 0)
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "%s: array %s: rank %d (1 to %d, each extent 0 to %d)", path, name, rank,
                       OP_SERIES_MAX_ROW_RANK + 1, MAX_EXTENT);
    if (values > 0 && !data)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: array %s: no data for %lld values", path, name,
                       values);
    rc = make_groups(ctx, run, name, 0);
    if (rc)
        return rc;
    hsize_t extent[OP_SERIES_MAX_ROW_RANK + 1];
    for (int i = 0; i < rank; i++)
        extent[i] = (hsize_t)dims[i];
    rc = write_dataset(ctx, path, run->file, "", name + 1, file_type_of(type),
                       memory_type_of(type), rank, extent, data);
    if (rc && runfile_object_exists(run->file, name))
        H5Ldelete(run->file, name, H5P_DEFAULT);
    return rc;
}

int op_runfile_create(op_ctx *ctx, op_runfile *run, const char *path, const op_provenance *prov)
{
    h5_quiet q = quiet_begin();
    int rc = create_impl(ctx, run, path, prov);
    quiet_end(q);
    return rc;
}

int op_runfile_write_body(op_ctx *ctx, op_runfile *run, const char *name, const op_body_info *info,
                          const op_graph *graph, const op_mesh *mesh, const op_skin *skin)
{
    h5_quiet q = quiet_begin();
    int rc = write_body_impl(ctx, run, name, info, graph, mesh, skin);
    quiet_end(q);
    return rc;
}

int op_runfile_write_instance(op_ctx *ctx, op_runfile *run, const char *name, const char *earlier)
{
    h5_quiet q = quiet_begin();
    int rc = write_instance_impl(ctx, run, name, earlier);
    quiet_end(q);
    return rc;
}

int op_runfile_commit(op_ctx *ctx, op_runfile *run)
{
    h5_quiet q = quiet_begin();
    int rc = commit_impl(ctx, run);
    quiet_end(q);
    return rc;
}

void op_runfile_set_companion(op_runfile *run, const op_runfile_companion *companion)
{
    run->companion = *companion;
}

void op_runfile_abort(op_runfile *run)
{
    h5_quiet q = quiet_begin();
    discard_temp(run);
    quiet_end(q);
}

int op_series_create(op_ctx *ctx, op_runfile *run, op_series *series, const char *path,
                     op_series_type type, int row_rank, const int64_t *row_dims, const char *unit,
                     const char *description)
{
    h5_quiet q = quiet_begin();
    int rc = series_create_impl(ctx, run, series, path, type, row_rank, row_dims, unit,
                                description);
    quiet_end(q);
    return rc;
}

int op_series_append(op_ctx *ctx, op_runfile *run, op_series *series, const void *rows,
                     long count)
{
    h5_quiet q = quiet_begin();
    int rc = series_append_impl(ctx, run, series, rows, count);
    quiet_end(q);
    return rc;
}

int op_series_close(op_ctx *ctx, op_runfile *run, op_series *series)
{
    h5_quiet q = quiet_begin();
    int rc = series_close_impl(ctx, run, series);
    quiet_end(q);
    return rc;
}

int op_runfile_flush(op_ctx *ctx, op_runfile *run)
{
    h5_quiet q = quiet_begin();
    int rc = flush_impl(ctx, run);
    quiet_end(q);
    return rc;
}

int op_runfile_set_attribute_double(op_ctx *ctx, op_runfile *run, const char *object_path,
                                    const char *name, double value)
{
    h5_quiet q = quiet_begin();
    hid_t target = attribute_target(ctx, run, object_path, name);
    int rc = target < 0 ? ctx->status
                        : write_double(ctx, run->final_path, target, object_path, name, value);
    if (target >= 0)
        H5Oclose(target);
    quiet_end(q);
    return rc;
}

int op_runfile_set_attribute_int(op_ctx *ctx, op_runfile *run, const char *object_path,
                                 const char *name, int64_t value)
{
    h5_quiet q = quiet_begin();
    hid_t target = attribute_target(ctx, run, object_path, name);
    int rc = target < 0 ? ctx->status
                        : write_attribute(ctx, run->final_path, target, object_path, name,
                                          H5T_STD_I64LE, H5T_NATIVE_INT64, 0, 1, &value);
    if (target >= 0)
        H5Oclose(target);
    quiet_end(q);
    return rc;
}

int op_runfile_set_attribute_string(op_ctx *ctx, op_runfile *run, const char *object_path,
                                    const char *name, const char *value)
{
    if (!value)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: attribute %s of %s: no string given",
                       run->final_path, name ? name : "(null)", object_path ? object_path : "");
    h5_quiet q = quiet_begin();
    hid_t target = attribute_target(ctx, run, object_path, name);
    int rc = target < 0 ? ctx->status
                        : write_string(ctx, run->final_path, target, object_path, name, value);
    if (target >= 0)
        H5Oclose(target);
    quiet_end(q);
    return rc;
}

int op_runfile_write_array(op_ctx *ctx, op_runfile *run, const char *path, op_series_type type,
                           int rank, const int64_t *dims, const void *data)
{
    h5_quiet q = quiet_begin();
    int rc = write_array_impl(ctx, run, path, type, rank, dims, data);
    quiet_end(q);
    return rc;
}
