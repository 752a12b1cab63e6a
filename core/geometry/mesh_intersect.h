/* Whether a mesh's surface intersects itself: two triangles crossing (an edge of one passing
 * through the other's interior), the state of two overlapping cubes written as one mesh. The
 * builder's inside test (core/geometry/voxel.c) then fills what a researcher may not mean, so
 * the graph cache reports it as a warning naming the first pair (graph_cache.h). Triangles
 * sharing a vertex position are never compared (neighbours across an edge or a seam touch by
 * construction), and only proper crossings count: triangles touching at a point or along an
 * edge, or overlapping in one plane, are not reported. */
#ifndef OPSIM_MESH_INTERSECT_H
#define OPSIM_MESH_INTERSECT_H

#include "opsim/mesh.h"

/* 1 and the lowest pair (first < second, the lowest first, then the lowest second) of crossing
 * triangles in pair[0..1]; 0 when none cross; -1 when out of memory (nothing known). */
int op_mesh_self_intersection(const op_mesh *mesh, int pair[2]);

#endif
