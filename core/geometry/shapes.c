/* Generated meshes. Boxes are subdivided into quads on every face (each split into two
 * triangles, polygon_count keeps the quads) so their vertex and face counts can match the
 * paper's bar; the torus is a quad grid over its two angles. */
#include "geometry/shapes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const op_shape_names[] = { "bar", "sheet", "column", "torus", "cube", "cloth", "cube18", "cube27", NULL };

static void emit_quad(op_mesh *mesh, int *face, int a, int b, int c, int d)
{
    int *f = &mesh->faces[3 * *face];
    f[0] = a, f[1] = b, f[2] = c;
    f[3] = a, f[4] = c, f[5] = d;
    *face += 2;
}

/* A box of the given size centred at the origin, subdivided segments[d] times along axis d. */
static int box_mesh(op_ctx *ctx, const double size[3], const int segments[3], op_mesh *mesh)
{
    int lattice[3] = { segments[0] + 1, segments[1] + 1, segments[2] + 1 };
    size_t points = (size_t)lattice[0] * lattice[1] * lattice[2];
    int *vertex_of = op_calloc(ctx, points, sizeof(int));
    if (!vertex_of)
        return ctx->status;
    int vertex_count = 0;
    for (size_t p = 0; p < points; ++p) {
        int c[3] = { (int)(p % lattice[0]), (int)(p / lattice[0] % lattice[1]), (int)(p / lattice[0] / lattice[1]) };
        int on_surface = 0;
        for (int d = 0; d < 3; ++d)
            on_surface |= c[d] == 0 || c[d] == segments[d];
        vertex_of[p] = on_surface ? vertex_count++ : -1;
    }
    int quads = 2 * (segments[0] * segments[1] + segments[1] * segments[2] + segments[2] * segments[0]);
    if (op_mesh_alloc(ctx, mesh, vertex_count, 2 * quads) != OP_OK) {
        free(vertex_of);
        return ctx->status;
    }
    mesh->polygon_count = quads;
    for (size_t p = 0; p < points; ++p) {
        if (vertex_of[p] < 0)
            continue;
        int c[3] = { (int)(p % lattice[0]), (int)(p / lattice[0] % lattice[1]), (int)(p / lattice[0] / lattice[1]) };
        for (int d = 0; d < 3; ++d)
            mesh->vertices[3 * vertex_of[p] + d] = size[d] * ((double)c[d] / segments[d] - 0.5);
    }
    int face = 0;
    for (int d = 0; d < 3; ++d) {
        /* (u, v, d) is cyclic, so u × v = +d: corners in (u, v) order face outward at the far side */
        int u = (d + 1) % 3, v = (d + 2) % 3;
        for (int side = 0; side < 2; ++side)
            for (int j = 0; j < segments[v]; ++j)
                for (int i = 0; i < segments[u]; ++i) {
                    int corner[4];
                    int du[4] = { 0, 1, 1, 0 }, dv[4] = { 0, 0, 1, 1 };
                    for (int q = 0; q < 4; ++q) {
                        int c[3];
                        c[d] = side ? segments[d] : 0;
                        c[u] = i + du[q];
                        c[v] = j + dv[q];
                        corner[q] = vertex_of[c[0] + lattice[0] * (c[1] + lattice[1] * c[2])];
                    }
                    if (side)
                        emit_quad(mesh, &face, corner[0], corner[1], corner[2], corner[3]);
                    else
                        emit_quad(mesh, &face, corner[0], corner[3], corner[2], corner[1]);
                }
    }
    free(vertex_of);
    return OP_OK;
}

/* A torus lying in the xz-plane (axis along y), major radius R, minor radius r. */
static int torus_mesh(op_ctx *ctx, double major, double minor, int around, int tube, op_mesh *mesh)
{
    if (op_mesh_alloc(ctx, mesh, around * tube, 2 * around * tube) != OP_OK)
        return ctx->status;
    mesh->polygon_count = around * tube;
    for (int i = 0; i < around; ++i)
        for (int j = 0; j < tube; ++j) {
            double theta = 2.0 * M_PI * i / around, phi = 2.0 * M_PI * j / tube;
            double ring = major + minor * cos(phi);
            double *v = &mesh->vertices[3 * (i * tube + j)];
            v[0] = ring * cos(theta);
            v[1] = minor * sin(phi);
            v[2] = -ring * sin(theta);
        }
    int face = 0;
    for (int i = 0; i < around; ++i)
        for (int j = 0; j < tube; ++j) {
            int i1 = (i + 1) % around, j1 = (j + 1) % tube;
            emit_quad(mesh, &face, i * tube + j, i1 * tube + j, i1 * tube + j1, i * tube + j1);
        }
    return OP_OK;
}

int op_shape_mesh(op_ctx *ctx, const char *name, op_mesh *mesh)
{
    memset(mesh, 0, sizeof *mesh);
    if (strcmp(name, "bar") == 0)
        return box_mesh(ctx, (const double[3]){ 1.0, 0.05, 0.05 }, (const int[3]){ 40, 4, 4 }, mesh);
    if (strcmp(name, "sheet") == 0)
        return box_mesh(ctx, (const double[3]){ 1.0, 0.02, 1.0 }, (const int[3]){ 16, 1, 16 }, mesh);
    if (strcmp(name, "column") == 0)
        return box_mesh(ctx, (const double[3]){ 0.1, 1.0, 0.1 }, (const int[3]){ 2, 20, 2 }, mesh);
    if (strcmp(name, "torus") == 0)
        return torus_mesh(ctx, 0.3, 0.1, 48, 24, mesh);
    if (strcmp(name, "cube") == 0) /* Müller et al. 2005's cubes (Fig. 4, 6) */
        return box_mesh(ctx, (const double[3]){ 0.4, 0.4, 0.4 }, (const int[3]){ 8, 8, 8 }, mesh);
    if (strcmp(name, "cloth") == 0) /* Vogiannou et al. 2010's cloth: 32 x 32 particles 2 cm apart */
        return box_mesh(ctx, (const double[3]){ 0.64, 0.01, 0.64 }, (const int[3]){ 32, 1, 32 }, mesh);
    if (strcmp(name, "cube18") == 0) /* its 9 x 9 x 9 lattice cube: particles 2 cm apart */
        return box_mesh(ctx, (const double[3]){ 0.18, 0.18, 0.18 }, (const int[3]){ 9, 9, 9 }, mesh);
    if (strcmp(name, "cube27") == 0) /* its Fig. 5's load, 5 times the cloth's volume: (5 x 0.64² x 0.01)^(1/3) m */
        return box_mesh(ctx, (const double[3]){ 0.2736, 0.2736, 0.2736 }, (const int[3]){ 8, 8, 8 }, mesh);
    return OP_FAIL(ctx, OP_ERR_USAGE, "unknown shape '%s' (bar, sheet, column, torus, cube, cloth, cube18 or cube27)",
                   name);
}
