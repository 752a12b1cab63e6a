/* Reading run files: a body's graph, mesh and skin read back with every shape checked, the
 * body list, a dataset's shape and rows, and attributes. Each public call keeps HDF5 quiet and
 * turns every failure into one op_ctx message naming the file and the object. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/runfile_hdf5.h"
#include "geometry/skin.h"

/* Reads a string attribute of any rank, variable- or fixed-length, into copies the caller
 * frees with runfile_free_strings. */
int runfile_read_strings(op_ctx *ctx, const char *path, hid_t attr, const char *what,
                        char ***out, size_t *count)
{
    int rc = OP_OK;
    char **strings = NULL;
    hid_t mem = -1;
    size_t n = 0;
    *out = NULL;
    *count = 0;
    hid_t type = H5Aget_type(attr);
    hid_t space = H5Aget_space(attr);
    if (type < 0 || space < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot inspect attribute %s", path, what);
        goto done;
    }
    if (H5Tget_class(type) != H5T_STRING) {
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: attribute %s is not a string", path, what);
        goto done;
    }
    hssize_t points = H5Sget_simple_extent_npoints(space);
    if (points < 0 || points > MAX_EXTENT) {
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: attribute %s has %lld strings", path, what,
                     (long long)points);
        goto done;
    }
    n = (size_t)points;
    strings = op_calloc(ctx, n, sizeof *strings);
    if (!strings) {
        rc = ctx->status;
        goto done;
    }
    htri_t variable = H5Tis_variable_str(type);
    if (variable > 0) {
        mem = runfile_variable_string_type(H5Tget_cset(type));
        char **raw = op_calloc(ctx, n, sizeof *raw);
        if (!raw) {
            rc = ctx->status;
            goto done;
        }
        struct rlimit saved;
        int capped = runfile_cap_address_space((size_t)256 << 20, &saved);
        herr_t read = mem < 0 ? -1 : n > 0 ? H5Aread(attr, mem, raw) : 0;
        if (capped)
            setrlimit(RLIMIT_AS, &saved);
        if (read < 0)
            rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot read attribute %s", path, what);
        for (size_t i = 0; i < n; i++) {
            if (!rc && !(strings[i] = runfile_copy_string(ctx, raw[i] ? raw[i] : "")))
                rc = ctx->status;
            if (raw[i])
                H5free_memory(raw[i]);
        }
        free(raw);
    } else {
        /* One byte more per string than stored, so the conversion always leaves a '\0'. */
        size_t size = H5Tget_size(type) + 1;
        char *raw = op_calloc(ctx, n, size);
        if (!raw) {
            rc = ctx->status;
            goto done;
        }
        mem = H5Tcopy(H5T_C_S1);
        if (mem < 0 || H5Tset_size(mem, size) < 0 || H5Tset_strpad(mem, H5T_STR_NULLTERM) < 0 ||
            H5Tset_cset(mem, H5Tget_cset(type)) < 0 || (n > 0 && H5Aread(attr, mem, raw) < 0))
            rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot read attribute %s", path, what);
        for (size_t i = 0; i < n && !rc; i++)
            if (!(strings[i] = runfile_copy_string(ctx, raw + i * size)))
                rc = ctx->status;
        free(raw);
    }
done:
    if (mem >= 0)
        H5Tclose(mem);
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    if (rc)
        runfile_free_strings(strings, n);
    else {
        *out = strings;
        *count = n;
    }
    return rc;
}

static hid_t open_attribute(op_ctx *ctx, const char *path, hid_t file, const char *where,
                            const char *name)
{
    htri_t exists = H5Aexists_by_name(file, where, name, H5P_DEFAULT);
    if (exists <= 0) {
        OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s has no attribute %s", path, where, name);
        return -1;
    }
    hid_t attr = H5Aopen_by_name(file, where, name, H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0)
        H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot open attribute %s of %s", path, name, where);
    return attr;
}

/* One number of the class of mem_type (integer or float). */
int runfile_read_number(op_ctx *ctx, const char *path, hid_t file, const char *where,
                       const char *name, hid_t mem_type, void *value)
{
    hid_t attr = open_attribute(ctx, path, file, where, name);
    if (attr < 0)
        return ctx->status;
    int rc = OP_OK;
    hid_t type = H5Aget_type(attr), space = H5Aget_space(attr);
    if (type < 0 || space < 0)
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot inspect attribute %s of %s", path, name,
                     where);
    else if (H5Tget_class(type) != H5Tget_class(mem_type) ||
             H5Sget_simple_extent_npoints(space) != 1)
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: attribute %s of %s is not one %s", path, name,
                     where, H5Tget_class(mem_type) == H5T_FLOAT ? "float" : "integer");
    else if (H5Aread(attr, mem_type, value) < 0)
        rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot read attribute %s of %s", path, name, where);
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    H5Aclose(attr);
    return rc;
}

/* One string; used only to prove that it is there and is a string. */
int runfile_require_string(op_ctx *ctx, const char *path, hid_t file, const char *where,
                          const char *name)
{
    hid_t attr = open_attribute(ctx, path, file, where, name);
    if (attr < 0)
        return ctx->status;
    char what[160];
    snprintf(what, sizeof what, "%s of %s", name, where);
    char **strings;
    size_t count;
    int rc = runfile_read_strings(ctx, path, attr, what, &strings, &count);
    H5Aclose(attr);
    if (rc)
        return rc;
    runfile_free_strings(strings, count);
    if (count != 1)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: attribute %s holds %zu strings, not one", path,
                       what, count);
    return OP_OK;
}

/* Reads where/name whole into a new array after checking its class and shape: expected[i] < 0
 * accepts any extent up to MAX_EXTENT. dims receives the extents. NULL on failure. */
static void *read_dataset(op_ctx *ctx, const char *path, hid_t file, const char *where,
                          const char *name, hid_t mem_type, int rank, const long long *expected,
                          hsize_t *dims)
{
    char full[160], got[96], want[96], type_text[32];
    snprintf(full, sizeof full, "%s/%s", where, name);
    if (H5Lexists(file, full, H5P_DEFAULT) <= 0) {
        OP_FAIL(ctx, OP_ERR_INVALID, "%s: missing dataset %s", path, full);
        return NULL;
    }
    hid_t ds = H5Dopen2(file, full, H5P_DEFAULT);
    if (ds < 0) {
        H5_FAIL(ctx, OP_ERR_INVALID, "%s: %s is not a dataset", path, full);
        return NULL;
    }
    void *data = NULL;
    hid_t type = H5Dget_type(ds), space = H5Dget_space(ds);
    if (type < 0 || space < 0) {
        H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot inspect dataset %s", path, full);
        goto done;
    }
    if (H5Tget_class(type) != H5Tget_class(mem_type)) {
        runfile_type_name(type, type_text, sizeof type_text);
        OP_FAIL(ctx, OP_ERR_INVALID, "%s: dataset %s is %s, expected %s", path, full, type_text,
                H5Tget_class(mem_type) == H5T_FLOAT ? "float64" : "int32");
        goto done;
    }
    int actual = H5Sget_simple_extent_ndims(space);
    int matches = actual == rank;
    if (matches) {
        H5Sget_simple_extent_dims(space, dims, NULL);
        for (int i = 0; i < rank; i++)
            if (expected[i] >= 0 ? dims[i] != (hsize_t)expected[i] : dims[i] > MAX_EXTENT)
                matches = 0;
    }
    if (!matches) {
        hsize_t shown[H5S_MAX_RANK];
        int shown_rank = actual < 0 ? 0 : actual;
        H5Sget_simple_extent_dims(space, shown, NULL);
        runfile_format_shape(got, sizeof got, shown_rank, shown);
        runfile_format_expected(want, sizeof want, rank, expected);
        OP_FAIL(ctx, OP_ERR_INVALID, "%s: dataset %s has shape %s, expected %s", path, full, got,
                want);
        goto done;
    }
    size_t count = 1;
    for (int i = 0; i < rank; i++)
        count *= (size_t)dims[i];
    data = op_calloc(ctx, count, H5Tget_size(mem_type));
    if (data && count > 0 && H5Dread(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
        H5_FAIL(ctx, OP_ERR_IO, "%s: cannot read dataset %s", path, full);
        OP_FREE(data);
    }
done:
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    H5Dclose(ds);
    return data;
}

/* One body exactly as stored, shapes and index ranges already checked. */

void runfile_body_data_free(runfile_body_data *b)
{
    OP_FREE(b->rest_position);
    OP_FREE(b->rest_axes);
    OP_FREE(b->radii);
    OP_FREE(b->volume);
    OP_FREE(b->mass);
    OP_FREE(b->rest_vertices);
    OP_FREE(b->skin_weight);
    OP_FREE(b->edges);
    OP_FREE(b->faces);
    OP_FREE(b->skin_index);
}

static int check_indices(op_ctx *ctx, const char *path, const char *where, const char *name,
                         const int *index, int rows, int columns, int limit)
{
    for (long long i = 0; i < (long long)rows * columns; i++)
        if (index[i] < 0 || index[i] >= limit)
            return OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s/%s row %lld holds %d, outside [0, %d)",
                           path, where, name, i / columns, index[i], limit);
    return OP_OK;
}

int runfile_load_body(op_ctx *ctx, const char *path, hid_t file, const char *name, runfile_body_data *b)
{
    char graph_where[80], mesh_where[80];
    snprintf(graph_where, sizeof graph_where, "/graph/%s", name);
    snprintf(mesh_where, sizeof mesh_where, "/mesh/%s", name);
    memset(b, 0, sizeof *b);
    if (!runfile_object_exists(file, graph_where) || !runfile_object_exists(file, mesh_where))
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: no body %s (needs %s and %s)", path, name,
                       graph_where, mesh_where);
    hsize_t dims[3];
    if (!(b->rest_position = read_dataset(ctx, path, file, graph_where, "rest_position",
                                          H5T_NATIVE_DOUBLE, 2, (const long long[]){ -1, 3 },
                                          dims)))
        return ctx->status;
    b->n = (int)dims[0];
    long long n = b->n;
    if (!(b->rest_axes = read_dataset(ctx, path, file, graph_where, "rest_axes", H5T_NATIVE_DOUBLE,
                                      3, (const long long[]){ n, 3, 3 }, dims)) ||
        !(b->radii = read_dataset(ctx, path, file, graph_where, "radii", H5T_NATIVE_DOUBLE, 2,
                                  (const long long[]){ n, 3 }, dims)) ||
        !(b->volume = read_dataset(ctx, path, file, graph_where, "volume", H5T_NATIVE_DOUBLE, 1,
                                   &n, dims)) ||
        !(b->mass = read_dataset(ctx, path, file, graph_where, "mass", H5T_NATIVE_DOUBLE, 1, &n,
                                 dims)) ||
        !(b->edges = read_dataset(ctx, path, file, graph_where, "edges", H5T_NATIVE_INT, 2,
                                  (const long long[]){ -1, 2 }, dims)))
        return ctx->status;
    b->m = (int)dims[0];
    if (!(b->rest_vertices = read_dataset(ctx, path, file, mesh_where, "rest_vertices",
                                          H5T_NATIVE_DOUBLE, 2, (const long long[]){ -1, 3 },
                                          dims)))
        return ctx->status;
    b->v = (int)dims[0];
    long long v = b->v;
    if (!(b->faces = read_dataset(ctx, path, file, mesh_where, "faces", H5T_NATIVE_INT, 2,
                                  (const long long[]){ -1, 3 }, dims)))
        return ctx->status;
    b->f = (int)dims[0];
    if (!(b->skin_index = read_dataset(ctx, path, file, mesh_where, "skin_index", H5T_NATIVE_INT,
                                       2, (const long long[]){ v, -1 }, dims)))
        return ctx->status;
    b->k = (int)dims[1];
    if (b->k < 1 || b->k > OP_SKIN_MAX_K)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s/skin_index has %d columns, expected 1 to %d",
                       path, mesh_where, b->k, OP_SKIN_MAX_K);
    if (!(b->skin_weight = read_dataset(ctx, path, file, mesh_where, "skin_weight",
                                        H5T_NATIVE_DOUBLE, 2, (const long long[]){ v, b->k },
                                        dims)))
        return ctx->status;
    int rc = runfile_read_number(ctx, path, file, graph_where, "density", H5T_NATIVE_DOUBLE, &b->density);
    if (!rc && (!isfinite(b->density) || b->density <= 0))
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s density %g is not positive", path, graph_where,
                     b->density);
    if (!rc)
        rc = runfile_read_number(ctx, path, file, mesh_where, "polygons", H5T_NATIVE_INT, &b->polygons);
    if (!rc)
        rc = check_indices(ctx, path, graph_where, "edges", b->edges, b->m, 2, b->n);
    if (!rc)
        rc = check_indices(ctx, path, mesh_where, "faces", b->faces, b->f, 3, b->v);
    if (!rc)
        rc = check_indices(ctx, path, mesh_where, "skin_index", b->skin_index, b->v, b->k, b->n);
    return rc;
}

static int agrees(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b));
}

static void free_outputs(op_graph *graph, op_mesh *mesh, op_skin *skin)
{
    if (graph) {
        op_graph_free(graph);
        memset(graph, 0, sizeof *graph);
    }
    if (mesh) {
        op_mesh_free(mesh);
        memset(mesh, 0, sizeof *mesh);
    }
    if (skin) {
        op_skin_free(skin);
        memset(skin, 0, sizeof *skin);
    }
}

/* The caller has zeroed graph, mesh and skin, so freeing all three on failure is safe. */
int runfile_build_body(op_ctx *ctx, const char *path, const char *name, const runfile_body_data *b,
                      op_graph *graph, op_mesh *mesh, op_skin *skin)
{
    int rc = OP_OK;
    if (graph) {
        rc = op_graph_alloc(ctx, graph, b->n, b->m);
        if (rc)
            goto fail;
        memcpy(graph->rest_position, b->rest_position, 3 * (size_t)b->n * sizeof(double));
        memcpy(graph->rest_axes, b->rest_axes, 9 * (size_t)b->n * sizeof(double));
        memcpy(graph->radii, b->radii, 3 * (size_t)b->n * sizeof(double));
        rc = op_graph_set_edges(ctx, graph, b->edges, b->m);
        if (rc)
            goto fail;
        if (graph->edge_count != b->m) {
            rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: /graph/%s/edges repeats edges (%d unique of %d)",
                         path, name, graph->edge_count, b->m);
            goto fail;
        }
        op_graph_derive(graph, b->density);
        for (int i = 0; i < b->n; i++)
            if (!agrees(graph->volume[i], b->volume[i]) || !agrees(graph->mass[i], b->mass[i])) {
                rc = OP_FAIL(ctx, OP_ERR_INVALID,
                             "%s: /graph/%s particle %d: stored volume %.17g and mass %.17g are "
                             "inconsistent with the radii and density (%.17g, %.17g)",
                             path, name, i, b->volume[i], b->mass[i], graph->volume[i],
                             graph->mass[i]);
                goto fail;
            }
    }
    if (mesh) {
        rc = op_mesh_alloc(ctx, mesh, b->v, b->f);
        if (rc)
            goto fail;
        memcpy(mesh->vertices, b->rest_vertices, 3 * (size_t)b->v * sizeof(double));
        memcpy(mesh->faces, b->faces, 3 * (size_t)b->f * sizeof(int));
        mesh->polygon_count = b->polygons;
    }
    if (skin) {
        rc = op_skin_alloc(ctx, skin, b->v, b->k);
        if (rc)
            goto fail;
        memcpy(skin->index, b->skin_index, (size_t)b->v * (size_t)b->k * sizeof(int));
        memcpy(skin->weight, b->skin_weight, (size_t)b->v * (size_t)b->k * sizeof(double));
    }
    return OP_OK;
fail:
    free_outputs(graph, mesh, skin);
    return rc;
}

static int read_body_impl(op_ctx *ctx, const char *path, const char *name, op_graph *graph,
                          op_mesh *mesh, op_skin *skin)
{
    if (graph)
        memset(graph, 0, sizeof *graph);
    if (mesh)
        memset(mesh, 0, sizeof *mesh);
    if (skin)
        memset(skin, 0, sizeof *skin);
    if (!runfile_valid_body_name(name))
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: invalid body name \"%.80s\"", path ? path : "",
                       name ? name : "(null)");
    hid_t file = runfile_open_file(ctx, path, H5F_ACC_RDONLY);
    if (file < 0)
        return ctx->status;
    runfile_body_data b;
    int rc = runfile_load_body(ctx, path, file, name, &b);
    if (!rc)
        rc = runfile_build_body(ctx, path, name, &b, graph, mesh, skin);
    runfile_body_data_free(&b);
    H5Fclose(file);
    return rc;
}

/* The "bodies" root attribute, every name validated. */
int runfile_read_body_list(op_ctx *ctx, const char *path, hid_t file, char ***names, size_t *count)
{
    hid_t attr = open_attribute(ctx, path, file, "/", "bodies");
    if (attr < 0)
        return ctx->status;
    int rc = runfile_read_strings(ctx, path, attr, "bodies", names, count);
    H5Aclose(attr);
    for (size_t i = 0; i < *count && !rc; i++)
        if (!runfile_valid_body_name((*names)[i]))
            rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: bodies lists an invalid name \"%.80s\"", path,
                         (*names)[i]);
    if (rc) {
        runfile_free_strings(*names, *count);
        *names = NULL;
        *count = 0;
    }
    return rc;
}

static int body_names_impl(op_ctx *ctx, const char *path, char (*names)[OP_RUNFILE_NAME_SIZE],
                           int capacity, int *count)
{
    *count = 0;
    hid_t file = runfile_open_file(ctx, path, H5F_ACC_RDONLY);
    if (file < 0)
        return ctx->status;
    char **list;
    size_t listed;
    int rc = runfile_read_body_list(ctx, path, file, &list, &listed);
    H5Fclose(file);
    if (rc)
        return rc;
    if (listed > (size_t)(capacity < 0 ? 0 : capacity))
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: %zu bodies, more than the %d expected", path,
                     listed, capacity);
    else {
        for (size_t i = 0; i < listed; i++)
            snprintf(names[i], OP_RUNFILE_NAME_SIZE, "%s", list[i]);
        *count = (int)listed;
    }
    runfile_free_strings(list, listed);
    return rc;
}

static int dataset_shape_impl(op_ctx *ctx, const char *path, const char *dataset, int *rank_out,
                              int64_t *dims_out)
{
    hid_t file = runfile_open_file(ctx, path, H5F_ACC_RDONLY);
    if (file < 0)
        return ctx->status;
    int rc = OP_OK;
    hid_t space = -1;
    hid_t ds = runfile_open_dataset(ctx, path, file, dataset);
    if (ds < 0) {
        rc = ctx->status;
        goto done;
    }
    space = H5Dget_space(ds);
    int rank = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);
    hsize_t dims[H5S_MAX_RANK];
    if (rank < 0 || H5Sget_simple_extent_dims(space, dims, NULL) < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot read the shape of %s", path, dataset);
        goto done;
    }
    if (rank > OP_RUNFILE_MAX_RANK) {
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: dataset %s has rank %d (at most %d)", path,
                     dataset, rank, OP_RUNFILE_MAX_RANK);
        goto done;
    }
    *rank_out = rank;
    for (int i = 0; i < rank; i++)
        dims_out[i] = (int64_t)dims[i];
done:
    if (space >= 0)
        H5Sclose(space);
    if (ds >= 0)
        H5Oclose(ds);
    H5Fclose(file);
    return rc;
}

/* Rows [first, first + count) of a dataset whose stored type is `want` (float64 or int64). */
static int read_rows_impl(op_ctx *ctx, const char *path, const char *dataset, long first,
                          long count, op_series_type want, void *out, long capacity)
{
    const char *want_name = want == OP_SERIES_FLOAT64 ? "float64" : "int64";
    if (!out && capacity > 0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: rows of %s: no output buffer", path ? path : "",
                       dataset ? dataset : "");
    hid_t file = runfile_open_file(ctx, path, H5F_ACC_RDONLY);
    if (file < 0)
        return ctx->status;
    int rc = OP_OK;
    hid_t type = -1, space = -1, memspace = -1;
    hid_t ds = runfile_open_dataset(ctx, path, file, dataset);
    if (ds < 0) {
        rc = ctx->status;
        goto done;
    }
    type = H5Dget_type(ds);
    space = H5Dget_space(ds);
    if (type < 0 || space < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot inspect dataset %s", path, dataset);
        goto done;
    }
    H5T_class_t cls = H5Tget_class(type);
    int matches = H5Tget_size(type) == 8 &&
                  (want == OP_SERIES_FLOAT64 ? cls == H5T_FLOAT
                                             : cls == H5T_INTEGER && H5Tget_sign(type) == H5T_SGN_2);
    if (!matches) {
        char type_text[32];
        runfile_type_name(type, type_text, sizeof type_text);
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: dataset %s is %s, not %s", path, dataset,
                     type_text, want_name);
        goto done;
    }
    hsize_t dims[H5S_MAX_RANK];
    int rank = H5Sget_simple_extent_dims(space, dims, NULL);
    if (rank < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot read the shape of %s", path, dataset);
        goto done;
    }
    if (rank == 0) {
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: dataset %s is a scalar, it has no rows", path,
                     dataset);
        goto done;
    }
    long long rows = (long long)dims[0];
    if (count < 1 || first < 0 || first >= rows || count > rows - first) {
        rc = OP_FAIL(ctx, OP_ERR_INVALID,
                     "%s: dataset %s has rows 0 to %lld; cannot read %ld row%s from row %ld",
                     path, dataset, rows - 1, count, count == 1 ? "" : "s", first);
        goto done;
    }
    hsize_t columns = 1;
    for (int i = 1; i < rank; i++)
        columns *= dims[i];
    if (columns != 0 && (hsize_t)count > (hsize_t)LONG_MAX / columns) {
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: %ld rows of %s are too many values", path, count,
                     dataset);
        goto done;
    }
    hsize_t values = (hsize_t)count * columns;
    if (values > (hsize_t)(capacity < 0 ? 0 : capacity)) {
        rc = OP_FAIL(ctx, OP_ERR_INVALID,
                     "%s: %ld row%s of %s hold %llu values, more than the %ld given room for",
                     path, count, count == 1 ? "" : "s", dataset, (unsigned long long)values,
                     capacity);
        goto done;
    }
    if (values == 0)
        goto done;
    hsize_t start[H5S_MAX_RANK] = { (hsize_t)first }, extent[H5S_MAX_RANK];
    memcpy(extent, dims, (size_t)rank * sizeof *dims);
    extent[0] = (hsize_t)count;
    memspace = H5Screate_simple(1, &values, NULL);
    if (memspace < 0 ||
        H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, extent, NULL) < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot select rows of %s", path, dataset);
        goto done;
    }
    hid_t mem = want == OP_SERIES_FLOAT64 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64;
    if (H5Dread(ds, mem, memspace, space, H5P_DEFAULT, out) < 0)
        rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot read rows %ld to %ld of %s", path, first,
                     first + count - 1, dataset);
done:
    if (memspace >= 0)
        H5Sclose(memspace);
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    if (ds >= 0)
        H5Oclose(ds);
    H5Fclose(file);
    return rc;
}

/* Opens the run file for reading an attribute of `object`, which must exist ("/" always
 * does); *file is the open file on success, negative otherwise. */
static int open_attribute_owner(op_ctx *ctx, const char *path, const char *object, const char *name, hid_t *file)
{
    *file = -1;
    if (!object || !*object || !name || !*name)
        return OP_FAIL(ctx, OP_ERR_USAGE, "%s: no attribute name given", path ? path : "");
    *file = runfile_open_file(ctx, path, H5F_ACC_RDONLY);
    if (*file < 0)
        return ctx->status;
    if (strcmp(object, "/") != 0 && !runfile_object_exists(*file, object)) {
        H5Fclose(*file);
        *file = -1;
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: no group or dataset %s (looking for attribute %s)", path,
                       object, name);
    }
    return OP_OK;
}

static int read_attribute_impl(op_ctx *ctx, const char *path, const char *object,
                               const char *name, hid_t mem_type, void *value)
{
    hid_t file;
    if (open_attribute_owner(ctx, path, object, name, &file) != OP_OK)
        return ctx->status;
    int rc = OP_OK;
    if (mem_type == H5T_NATIVE_DOUBLE) {
        /* Integers convert: a parameter written as an int is still a number. */
        hid_t attr = open_attribute(ctx, path, file, object, name);
        if (attr < 0)
            rc = ctx->status;
        else {
            hid_t type = H5Aget_type(attr), space = H5Aget_space(attr);
            H5T_class_t cls = type < 0 ? H5T_NO_CLASS : H5Tget_class(type);
            if (type < 0 || space < 0)
                rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot inspect attribute %s of %s", path,
                             name, object);
            else if ((cls != H5T_FLOAT && cls != H5T_INTEGER) ||
                     H5Sget_simple_extent_npoints(space) != 1)
                rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: attribute %s of %s is not one number",
                             path, name, object);
            else if (H5Aread(attr, H5T_NATIVE_DOUBLE, value) < 0)
                rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot read attribute %s of %s", path, name,
                             object);
            if (type >= 0)
                H5Tclose(type);
            if (space >= 0)
                H5Sclose(space);
            H5Aclose(attr);
        }
    } else
        rc = runfile_read_number(ctx, path, file, object, name, mem_type, value);
    H5Fclose(file);
    return rc;
}

static int read_attribute_string_impl(op_ctx *ctx, const char *path, const char *object,
                                      const char *name, char *out, size_t size)
{
    hid_t file;
    if (open_attribute_owner(ctx, path, object, name, &file) != OP_OK)
        return ctx->status;
    int rc = OP_OK;
    hid_t attr = -1;
    if ((attr = open_attribute(ctx, path, file, object, name)) < 0)
        rc = ctx->status;
    else {
        char what[160];
        snprintf(what, sizeof what, "%s of %s", name, object);
        char **strings;
        size_t count;
        rc = runfile_read_strings(ctx, path, attr, what, &strings, &count);
        if (!rc) {
            if (count != 1)
                rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: attribute %s holds %zu strings, not one",
                             path, what, count);
            else if (strlen(strings[0]) >= size)
                rc = OP_FAIL(ctx, OP_ERR_INVALID,
                             "%s: attribute %s has %zu characters, more than the %zu given room for",
                             path, what, strlen(strings[0]), size ? size - 1 : 0);
            else
                memcpy(out, strings[0], strlen(strings[0]) + 1);
            runfile_free_strings(strings, count);
        }
    }
    if (attr >= 0)
        H5Aclose(attr);
    H5Fclose(file);
    return rc;
}

int op_runfile_body_names(op_ctx *ctx, const char *path, char (*names)[OP_RUNFILE_NAME_SIZE],
                          int capacity, int *count)
{
    h5_quiet q = quiet_begin();
    int rc = body_names_impl(ctx, path, names, capacity, count);
    quiet_end(q);
    return rc;
}

int op_runfile_read_body(op_ctx *ctx, const char *path, const char *name, op_graph *graph,
                         op_mesh *mesh, op_skin *skin)
{
    h5_quiet q = quiet_begin();
    int rc = read_body_impl(ctx, path, name, graph, mesh, skin);
    quiet_end(q);
    return rc;
}

int op_runfile_dataset_shape(op_ctx *ctx, const char *path, const char *dataset, int *rank,
                             int64_t dims[OP_RUNFILE_MAX_RANK])
{
    h5_quiet q = quiet_begin();
    int rc = dataset_shape_impl(ctx, path, dataset, rank, dims);
    quiet_end(q);
    return rc;
}

int op_runfile_read_rows(op_ctx *ctx, const char *path, const char *dataset, long first,
                         long count, double *out, long capacity)
{
    h5_quiet q = quiet_begin();
    int rc = read_rows_impl(ctx, path, dataset, first, count, OP_SERIES_FLOAT64, out, capacity);
    quiet_end(q);
    return rc;
}

int op_runfile_read_rows_int64(op_ctx *ctx, const char *path, const char *dataset, long first,
                               long count, int64_t *out, long capacity)
{
    h5_quiet q = quiet_begin();
    int rc = read_rows_impl(ctx, path, dataset, first, count, OP_SERIES_INT64, out, capacity);
    quiet_end(q);
    return rc;
}

int op_runfile_read_attribute_double(op_ctx *ctx, const char *path, const char *object,
                                     const char *name, double *value)
{
    h5_quiet q = quiet_begin();
    int rc = read_attribute_impl(ctx, path, object, name, H5T_NATIVE_DOUBLE, value);
    quiet_end(q);
    return rc;
}

int op_runfile_read_attribute_int(op_ctx *ctx, const char *path, const char *object,
                                  const char *name, int64_t *value)
{
    h5_quiet q = quiet_begin();
    int rc = read_attribute_impl(ctx, path, object, name, H5T_NATIVE_INT64, value);
    quiet_end(q);
    return rc;
}

int op_runfile_read_attribute_string(op_ctx *ctx, const char *path, const char *object,
                                     const char *name, char *out, size_t size)
{
    if (out && size)
        out[0] = '\0';
    if (!out || !size)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: attribute %s: no output buffer", path ? path : "",
                       name ? name : "");
    h5_quiet q = quiet_begin();
    int rc = read_attribute_string_impl(ctx, path, object, name, out, size);
    quiet_end(q);
    if (rc)
        out[0] = '\0';
    return rc;
}

int op_runfile_stored_name(op_ctx *ctx, const char *path, const char *dataset, char *out, size_t size)
{
    if (!out || size == 0 || !dataset)
        return OP_FAIL(ctx, OP_ERR_USAGE, "%s: no dataset name or no room for it", path ? path : "");
    h5_quiet q = quiet_begin();
    hid_t file = runfile_open_file(ctx, path, H5F_ACC_RDONLY);
    if (file >= 0) {
        char alias[OP_SERIES_PATH_SIZE];
        const char *stored = runfile_stored_name(file, dataset, alias, sizeof alias);
        if ((size_t)snprintf(out, size, "%s", stored) >= size)
            OP_FAIL(ctx, OP_ERR_INVALID, "%s: the name %s does not fit %zu bytes", path, stored, size);
        H5Fclose(file);
    }
    quiet_end(q);
    return ctx->status;
}
