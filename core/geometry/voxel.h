/* Solid voxelisation of a closed triangle mesh: which cells of a regular grid lie inside.
 * The builders partition these interior voxels into particles. */
#ifndef OPSIM_VOXEL_H
#define OPSIM_VOXEL_H

#include <stdint.h>

#include "opsim/ctx.h"
#include "opsim/mesh.h"

typedef struct op_voxels {
    int dims[3];          /* cells along x, y, z */
    double origin[3];     /* centre of cell (0, 0, 0) */
    double size;          /* cell edge length, m */
    uint8_t *inside;      /* [dims[0] * dims[1] * dims[2]], 1 where the cell centre is inside */
    int inside_count;
} op_voxels;

/* Cell size: the longest bounding-box extent over `resolution`, but at most a quarter of the
 * shortest extent so that thin shapes (sheets, bars) stay several cells thick. The mesh must
 * be closed; the inside test is ray parity along x with a tie rule that counts a ray through
 * a shared edge or vertex exactly once. */
int op_voxelize(op_ctx *ctx, const op_mesh *mesh, int resolution, op_voxels *voxels);
void op_voxels_free(op_voxels *voxels);

static inline int op_voxel_index(const op_voxels *voxels, int x, int y, int z)
{
    return x + voxels->dims[0] * (y + voxels->dims[1] * z);
}
void op_voxel_center(const op_voxels *voxels, int index, double out[3]);
/* The cell containing point p, or -1 outside the grid. */
int op_voxel_at(const op_voxels *voxels, const double p[3]);

/* Exact-as-floats point-in-mesh test by ray parity along +x at p (independent of any grid). */
int op_mesh_contains_point(const op_mesh *mesh, const double p[3]);

/* The same test against only the triangles a +x ray at p can cross: the mesh's triangles binned
 * once on a grid over the yz-plane by their projected bounding boxes (widened by 1e-9 of the
 * mesh's extent, far beyond any rounding of the edge functions), so that a query tests the few
 * triangles of its bin. The parity counts the same crossings, so the answer is
 * op_mesh_contains_point's bit for bit; the builder asks it once per candidate edge, and
 * scanning every triangle made that 84 % of building 4,000 particles of the dinosaur. */
typedef struct op_mesh_locator {
    const op_mesh *mesh;
    double lo[2], cell; /* the grid's corner in (y, z) and its cell size */
    int dims[2];
    int *start;         /* [dims[0] * dims[1] + 1] offsets into face */
    int *face;          /* triangle indices, ascending in each bin */
} op_mesh_locator;

int op_mesh_locator_make(op_ctx *ctx, const op_mesh *mesh, op_mesh_locator *locator);
void op_mesh_locator_free(op_mesh_locator *locator);
int op_mesh_locator_contains(const op_mesh_locator *locator, const double p[3]);

#endif
