/* Solid voxelisation by ray parity. Every column of cell centres (fixed y, z) is a ray along x;
 * the triangles it crosses are found by projecting each triangle onto the yz-plane. A ray that
 * passes exactly through a shared edge or vertex (common for generated, grid-aligned shapes) is
 * counted once by the rasteriser's top-left rule, evaluated on canonically ordered edges so
 * both triangles sharing an edge see the same sign. */
#include "geometry/voxel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/math3.h"

/* Edge function of the undirected edge {a, b} at q, with the endpoints taken in a canonical
 * order so that it is bitwise the negation for the reversed edge. */
static double edge_function(const double a[2], const double b[2], const double q[2])
{
    int swap = a[0] > b[0] || (a[0] == b[0] && a[1] > b[1]);
    const double *p0 = swap ? b : a, *p1 = swap ? a : b;
    double e = (p1[0] - p0[0]) * (q[1] - p0[1]) - (p1[1] - p0[1]) * (q[0] - p0[0]);
    return swap ? -e : e;
}

/* Whether the x-ray at (y, z) = q crosses triangle t, and where. */
static int ray_crossing(const op_mesh *mesh, int t, const double q[2], double *x_out)
{
    const int *f = &mesh->faces[3 * t];
    double p[3][2], x[3];
    for (int k = 0; k < 3; ++k) {
        p[k][0] = mesh->vertices[3 * f[k] + 1];
        p[k][1] = mesh->vertices[3 * f[k] + 2];
        x[k] = mesh->vertices[3 * f[k]];
    }
    double area = (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[1][1] - p[0][1]) * (p[2][0] - p[0][0]);
    if (area == 0.0)
        return 0;
    int order[3] = { 0, 1, 2 };
    if (area < 0) { /* make the projection counter-clockwise */
        order[1] = 2;
        order[2] = 1;
        area = -area;
    }
    double weight[3];
    for (int k = 0; k < 3; ++k) {
        const double *a = p[order[k]], *b = p[order[(k + 1) % 3]];
        double e = edge_function(a, b, q);
        if (e < 0)
            return 0;
        if (e == 0) {
            /* top-left rule for a counter-clockwise triangle (y right, z up) */
            double dy = b[0] - a[0], dz = b[1] - a[1];
            int top_left = dz < 0 || (dz == 0 && dy < 0);
            if (!top_left)
                return 0;
        }
        weight[order[(k + 2) % 3]] = e; /* barycentric weight of the opposite vertex */
    }
    *x_out = (weight[0] * x[0] + weight[1] * x[1] + weight[2] * x[2]) / area;
    return 1;
}

static int compare_double(const void *a, const void *b)
{
    double da = *(const double *)a, db = *(const double *)b;
    return da < db ? -1 : da > db;
}

int op_voxelize(op_ctx *ctx, const op_mesh *mesh, int resolution, op_voxels *voxels)
{
    memset(voxels, 0, sizeof *voxels);
    if (resolution < 4 || resolution > 2048)
        return OP_FAIL(ctx, OP_ERR_INVALID, "voxelize: resolution %d is outside 4..2048", resolution);
    if (!op_mesh_is_closed(mesh))
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "voxelize: the mesh is not closed (every edge must join exactly two triangles)");
    double lo[3], hi[3], extent[3];
    op_mesh_bounds(mesh, lo, hi);
    v3_sub(extent, hi, lo);
    double longest = fmax(extent[0], fmax(extent[1], extent[2]));
    double shortest = fmin(extent[0], fmin(extent[1], extent[2]));
    if (!(shortest > 0))
        return OP_FAIL(ctx, OP_ERR_INVALID, "voxelize: the mesh is flat (bounding box %g x %g x %g)", extent[0],
                       extent[1], extent[2]);
    double size = fmin(longest / resolution, shortest / 4.0);
    /* The count is formed in double and bounded before any conversion to int: extreme
     * coordinates (a vertex at 1e200, an extent that overflows to inf) would otherwise overflow
     * the int, which is undefined behaviour. */
    double cells = 1;
    for (int d = 0; d < 3; ++d)
        cells *= ceil(extent[d] / size) + 2;
    if (!(isfinite(longest) && size > 0 && cells <= 200000000.0))
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "voxelize: the mesh's bounding box %g x %g x %g m would need %.3g cells of %g m "
                       "(at most 2e8; a thin mesh needs cells a quarter of its thinnest extent)",
                       extent[0], extent[1], extent[2], cells, size);
    for (int d = 0; d < 3; ++d) {
        voxels->dims[d] = (int)ceil(extent[d] / size) + 2;
        voxels->origin[d] = 0.5 * (lo[d] + hi[d]) - 0.5 * (voxels->dims[d] - 1) * size;
    }
    voxels->size = size;
    int ny = voxels->dims[1], nz = voxels->dims[2], columns = ny * nz;
    voxels->inside = op_calloc(ctx, (size_t)cells, 1);
    int *column_start = op_calloc(ctx, (size_t)columns + 1, sizeof(int));
    if (ctx->status != OP_OK) {
        free(column_start);
        op_voxels_free(voxels);
        return ctx->status;
    }
    /* Two passes over the triangles: count crossings per column, then store them. */
    double *crossings = NULL;
    int *fill = NULL;
    for (int pass = 0; pass < 2; ++pass) {
        for (int t = 0; t < mesh->face_count; ++t) {
            const int *f = &mesh->faces[3 * t];
            double ylo = INFINITY, yhi = -INFINITY, zlo = INFINITY, zhi = -INFINITY;
            for (int k = 0; k < 3; ++k) {
                ylo = fmin(ylo, mesh->vertices[3 * f[k] + 1]);
                yhi = fmax(yhi, mesh->vertices[3 * f[k] + 1]);
                zlo = fmin(zlo, mesh->vertices[3 * f[k] + 2]);
                zhi = fmax(zhi, mesh->vertices[3 * f[k] + 2]);
            }
            int j0 = (int)ceil((ylo - voxels->origin[1]) / size), j1 = (int)floor((yhi - voxels->origin[1]) / size);
            int k0 = (int)ceil((zlo - voxels->origin[2]) / size), k1 = (int)floor((zhi - voxels->origin[2]) / size);
            j0 = j0 < 0 ? 0 : j0;
            k0 = k0 < 0 ? 0 : k0;
            j1 = j1 >= ny ? ny - 1 : j1;
            k1 = k1 >= nz ? nz - 1 : k1;
            for (int k = k0; k <= k1; ++k)
                for (int j = j0; j <= j1; ++j) {
                    double q[2] = { voxels->origin[1] + j * size, voxels->origin[2] + k * size }, x;
                    if (!ray_crossing(mesh, t, q, &x))
                        continue;
                    int column = j + ny * k;
                    if (pass == 0)
                        column_start[column + 1]++;
                    else
                        crossings[fill[column]++] = x;
                }
        }
        if (pass == 0) {
            for (int c = 0; c < columns; ++c)
                column_start[c + 1] += column_start[c];
            crossings = op_calloc(ctx, (size_t)column_start[columns], sizeof(double));
            fill = op_calloc(ctx, (size_t)columns, sizeof(int));
            if (ctx->status != OP_OK)
                break;
            memcpy(fill, column_start, (size_t)columns * sizeof(int));
        }
    }
    if (ctx->status == OP_OK) {
        int nx = voxels->dims[0];
        for (int column = 0; column < columns; ++column) {
            double *xs = &crossings[column_start[column]];
            int count = column_start[column + 1] - column_start[column];
            qsort(xs, (size_t)count, sizeof(double), compare_double);
            /* an odd count can only come from rounding at a grazing hit: drop the column's
             * last crossing rather than fill to infinity */
            for (int c = 0; c + 1 < count; c += 2) {
                int i0 = (int)ceil((xs[c] - voxels->origin[0]) / size);
                int i1 = (int)floor((xs[c + 1] - voxels->origin[0]) / size);
                for (int i = i0 < 0 ? 0 : i0; i <= i1 && i < nx; ++i) {
                    double cx = voxels->origin[0] + i * size;
                    if (cx > xs[c] && cx < xs[c + 1]) {
                        int j = column % ny, k = column / ny;
                        voxels->inside[op_voxel_index(voxels, i, j, k)] = 1;
                        voxels->inside_count++;
                    }
                }
            }
        }
    }
    free(crossings);
    free(fill);
    free(column_start);
    if (ctx->status == OP_OK && voxels->inside_count == 0)
        OP_FAIL(ctx, OP_ERR_INVALID, "voxelize: no cell centre lies inside the mesh at resolution %d", resolution);
    if (ctx->status != OP_OK)
        op_voxels_free(voxels);
    return ctx->status;
}

void op_voxels_free(op_voxels *voxels)
{
    OP_FREE(voxels->inside);
    voxels->inside_count = 0;
}

void op_voxel_center(const op_voxels *voxels, int index, double out[3])
{
    int nx = voxels->dims[0], ny = voxels->dims[1];
    int x = index % nx, y = (index / nx) % ny, z = index / (nx * ny);
    v3_set(out, voxels->origin[0] + x * voxels->size, voxels->origin[1] + y * voxels->size,
           voxels->origin[2] + z * voxels->size);
}

int op_voxel_at(const op_voxels *voxels, const double p[3])
{
    int c[3];
    for (int d = 0; d < 3; ++d) {
        c[d] = (int)floor((p[d] - voxels->origin[d]) / voxels->size + 0.5);
        if (c[d] < 0 || c[d] >= voxels->dims[d])
            return -1;
    }
    return op_voxel_index(voxels, c[0], c[1], c[2]);
}

int op_mesh_contains_point(const op_mesh *mesh, const double p[3])
{
    double q[2] = { p[1], p[2] }, x;
    int crossings = 0;
    for (int t = 0; t < mesh->face_count; ++t)
        if (ray_crossing(mesh, t, q, &x) && x > p[0])
            ++crossings;
    return crossings & 1;
}

/* The bins of the yz-rectangle [a, b] (clamped to the grid), widened by `margin`. */
static void bin_range(const op_mesh_locator *l, const double a[2], const double b[2], double margin, int lo[2],
                      int hi[2])
{
    for (int d = 0; d < 2; ++d) {
        double from = floor((a[d] - margin - l->lo[d]) / l->cell), to = floor((b[d] + margin - l->lo[d]) / l->cell);
        lo[d] = from < 0 ? 0 : from >= l->dims[d] ? l->dims[d] - 1 : (int)from;
        hi[d] = to < 0 ? 0 : to >= l->dims[d] ? l->dims[d] - 1 : (int)to;
    }
}

/* Triangle t's projected bounding box in (y, z); 0 when the projection has no area (such a
 * triangle is never crossed, ray_crossing). */
static int projected_box(const op_mesh *mesh, int t, double lo[2], double hi[2])
{
    const int *f = &mesh->faces[3 * t];
    double p[3][2];
    for (int k = 0; k < 3; ++k) {
        p[k][0] = mesh->vertices[3 * f[k] + 1];
        p[k][1] = mesh->vertices[3 * f[k] + 2];
    }
    double area = (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[1][1] - p[0][1]) * (p[2][0] - p[0][0]);
    for (int d = 0; d < 2; ++d) {
        lo[d] = fmin(p[0][d], fmin(p[1][d], p[2][d]));
        hi[d] = fmax(p[0][d], fmax(p[1][d], p[2][d]));
    }
    return area != 0.0;
}

int op_mesh_locator_make(op_ctx *ctx, const op_mesh *mesh, op_mesh_locator *l)
{
    *l = (op_mesh_locator){ .mesh = mesh };
    double lo[2] = { INFINITY, INFINITY }, hi[2] = { -INFINITY, -INFINITY };
    for (int v = 0; v < mesh->vertex_count; ++v)
        for (int d = 0; d < 2; ++d) {
            lo[d] = fmin(lo[d], mesh->vertices[3 * v + 1 + d]);
            hi[d] = fmax(hi[d], mesh->vertices[3 * v + 1 + d]);
        }
    double extent = mesh->vertex_count ? fmax(hi[0] - lo[0], hi[1] - lo[1]) : 0.0;
    /* about one triangle's projected footprint a bin: a triangle spans a few bins, a bin holds
       a few triangles */
    int faces = mesh->face_count > 0 ? mesh->face_count : 1;
    l->cell = extent > 0.0 ? fmax(sqrt((hi[0] - lo[0]) * (hi[1] - lo[1]) / faces), extent / 2048.0) : 1.0;
    double margin = 1e-9 * extent, a[2], b[2];
    for (int d = 0; d < 2; ++d) { /* the grid holds every widened box */
        l->lo[d] = mesh->vertex_count ? lo[d] - margin : 0.0;
        l->dims[d] = extent > 0.0 ? (int)((hi[d] + margin - l->lo[d]) / l->cell) + 1 : 1;
    }
    size_t bins = (size_t)l->dims[0] * l->dims[1];
    l->start = op_calloc(ctx, bins + 1, sizeof *l->start);
    if (!l->start)
        return ctx->status;
    int from[2], to[2];
    for (int pass = 0; pass < 2; ++pass) { /* count, then place: counting sort by bin */
        for (int t = 0; t < mesh->face_count; ++t) {
            if (!projected_box(mesh, t, a, b))
                continue;
            bin_range(l, a, b, margin, from, to);
            for (int z = from[1]; z <= to[1]; ++z)
                for (int y = from[0]; y <= to[0]; ++y) {
                    size_t bin = (size_t)y + (size_t)l->dims[0] * z;
                    if (pass == 0)
                        l->start[bin + 1]++;
                    else
                        l->face[l->start[bin]++] = t;
                }
        }
        if (pass == 0) {
            for (size_t bin = 0; bin < bins; ++bin)
                l->start[bin + 1] += l->start[bin];
            if (!(l->face = op_calloc(ctx, (size_t)l->start[bins] + 1, sizeof *l->face)))
                return ctx->status;
        } else { /* placing moved each start to its bin's end: back one bin */
            for (size_t bin = bins; bin > 0; --bin)
                l->start[bin] = l->start[bin - 1];
            l->start[0] = 0;
        }
    }
    return OP_OK;
}

void op_mesh_locator_free(op_mesh_locator *l)
{
    free(l->start);
    free(l->face);
    *l = (op_mesh_locator){ 0 };
}

int op_mesh_locator_contains(const op_mesh_locator *l, const double p[3])
{
    double q[2] = { p[1], p[2] }, x;
    int bin[2];
    for (int d = 0; d < 2; ++d) {
        double at = floor((q[d] - l->lo[d]) / l->cell);
        if (!(at >= 0 && at < l->dims[d]))
            return 0; /* beyond every triangle's widened box: no crossing */
        bin[d] = (int)at;
    }
    size_t b = (size_t)bin[0] + (size_t)l->dims[0] * bin[1];
    int crossings = 0;
    for (int k = l->start[b]; k < l->start[b + 1]; ++k)
        if (ray_crossing(l->mesh, l->face[k], q, &x) && x > p[0])
            ++crossings;
    return crossings & 1;
}
