/* Checking a run file (op_runfile_check): every body readable, every value finite, the root's
 * provenance present. */
#include <math.h>
#include <string.h>

#include "io/runfile_hdf5.h"

static int check_finite(op_ctx *ctx, const char *path, const char *where, const char *name,
                        const double *x, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (!isfinite(x[i]))
            return OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s/%s element %zu is %g", path, where, name,
                           i, x[i]);
    return OP_OK;
}

static int check_count(op_ctx *ctx, const char *path, hid_t file, const char *where,
                       const char *name, int expected)
{
    int value;
    int rc = runfile_read_number(ctx, path, file, where, name, H5T_NATIVE_INT, &value);
    if (!rc && value != expected)
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s attribute %s is %d but the datasets hold %d",
                     path, where, name, value, expected);
    return rc;
}

static int check_body(op_ctx *ctx, const char *path, hid_t file, const char *name)
{
    char graph_where[80], mesh_where[80];
    snprintf(graph_where, sizeof graph_where, "/graph/%s", name);
    snprintf(mesh_where, sizeof mesh_where, "/mesh/%s", name);
    runfile_body_data b;
    int rc = runfile_load_body(ctx, path, file, name, &b);
    size_t n = (size_t)b.n;
    if (!rc)
        rc = check_finite(ctx, path, graph_where, "rest_position", b.rest_position, 3 * n);
    if (!rc)
        rc = check_finite(ctx, path, graph_where, "rest_axes", b.rest_axes, 9 * n);
    if (!rc)
        rc = check_finite(ctx, path, graph_where, "radii", b.radii, 3 * n);
    if (!rc)
        rc = check_finite(ctx, path, graph_where, "volume", b.volume, n);
    if (!rc)
        rc = check_finite(ctx, path, graph_where, "mass", b.mass, n);
    if (!rc)
        rc = check_finite(ctx, path, mesh_where, "rest_vertices", b.rest_vertices,
                          3 * (size_t)b.v);
    if (!rc)
        rc = check_finite(ctx, path, mesh_where, "skin_weight", b.skin_weight,
                          (size_t)b.v * (size_t)b.k);
    for (int e = 0; e < b.m && !rc; e++) {
        const int *edge = &b.edges[2 * e], *previous = edge - 2;
        if (edge[0] >= edge[1])
            rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s/edges row %d is (%d, %d), not i < j", path,
                         graph_where, e, edge[0], edge[1]);
        else if (e > 0 && (edge[0] < previous[0] ||
                           (edge[0] == previous[0] && edge[1] <= previous[1])))
            rc = OP_FAIL(ctx, OP_ERR_INVALID,
                         "%s: %s/edges row %d (%d, %d) is unsorted or repeated", path,
                         graph_where, e, edge[0], edge[1]);
    }
    if (!rc)
        rc = runfile_require_string(ctx, path, file, graph_where, "kind");
    if (!rc)
        rc = runfile_require_string(ctx, path, file, graph_where, "source");
    int requested;
    uint64_t seed;
    if (!rc)
        rc = runfile_read_number(ctx, path, file, graph_where, "particles_requested", H5T_NATIVE_INT,
                         &requested);
    if (!rc)
        rc = runfile_read_number(ctx, path, file, graph_where, "seed", H5T_NATIVE_UINT64, &seed);
    if (!rc)
        rc = check_count(ctx, path, file, graph_where, "particles", b.n);
    if (!rc)
        rc = check_count(ctx, path, file, graph_where, "edges", b.m);
    if (!rc) {
        op_graph graph;
        memset(&graph, 0, sizeof graph);
        rc = runfile_build_body(ctx, path, name, &b, &graph, NULL, NULL);
        if (!rc)
            op_graph_free(&graph);
    }
    runfile_body_data_free(&b);
    return rc;
}

/* Every body group under /<top> must be listed, so nothing in the file goes unchecked. */
static int check_group_count(op_ctx *ctx, const char *path, hid_t file, const char *top,
                             size_t listed)
{
    if (H5Lexists(file, top, H5P_DEFAULT) <= 0) {
        if (listed == 0)
            return OP_OK;
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: bodies are listed but /%s is missing", path, top);
    }
    H5G_info_t info;
    if (H5Gget_info_by_name(file, top, &info, H5P_DEFAULT) < 0)
        return H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot inspect group /%s", path, top);
    if (info.nlinks != listed)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: /%s holds %llu bodies but bodies lists %zu", path,
                       top, (unsigned long long)info.nlinks, listed);
    return OP_OK;
}

static int check_impl(op_ctx *ctx, const char *path)
{
    hid_t file = runfile_open_file(ctx, path, H5F_ACC_RDONLY);
    if (file < 0)
        return ctx->status;
    int rc = OP_OK;
    size_t count = sizeof ROOT_STRING_ATTRIBUTES / sizeof ROOT_STRING_ATTRIBUTES[0];
    for (size_t i = 0; i < count && !rc; i++)
        rc = runfile_require_string(ctx, path, file, "/", ROOT_STRING_ATTRIBUTES[i]);
    uint64_t seed;
    if (!rc)
        rc = runfile_read_number(ctx, path, file, "/", "seed", H5T_NATIVE_UINT64, &seed);
    char **names = NULL;
    size_t listed = 0;
    if (!rc)
        rc = runfile_read_body_list(ctx, path, file, &names, &listed);
    for (size_t i = 0; i < listed && !rc; i++)
        for (size_t j = 0; j < i && !rc; j++)
            if (strcmp(names[i], names[j]) == 0)
                rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: bodies lists %s twice", path, names[i]);
    if (!rc)
        rc = check_group_count(ctx, path, file, "graph", listed);
    if (!rc)
        rc = check_group_count(ctx, path, file, "mesh", listed);
    for (size_t i = 0; i < listed && !rc; i++)
        rc = check_body(ctx, path, file, names[i]);
    runfile_free_strings(names, listed);
    H5Fclose(file);
    return rc;
}

int op_runfile_check(op_ctx *ctx, const char *path)
{
    h5_quiet q = quiet_begin();
    int rc = check_impl(ctx, path);
    quiet_end(q);
    return rc;
}
