/* Triangle meshes: the visual surface of a body. Reads OFF (OFF/COFF/NOFF headers, comments,
 * polygons) and OBJ (v and f records, every f index form, negative indices, polygons), writes
 * OBJ. Polygons are fan-triangulated; polygon_count keeps the face count as read so reports
 * can quote it (the paper's bar is 672 quads). Every parse error names file and line. */
#ifndef OPSIM_MESH_H
#define OPSIM_MESH_H

#include <stdio.h>

#include "opsim/ctx.h"

typedef struct op_mesh {
    int vertex_count;
    int face_count;    /* triangles */
    int polygon_count; /* faces as read or generated, before triangulation */
    double *vertices;  /* [vertex_count][3] */
    int *faces;        /* [face_count][3], zero-based, counter-clockwise seen from outside */
} op_mesh;

/* Chooses the reader by extension (.off or .obj, case-insensitive). On failure *mesh is
 * left empty and ctx holds "path:line: reason". */
int op_mesh_read(op_ctx *ctx, const char *path, op_mesh *mesh);
int op_mesh_read_off(op_ctx *ctx, const char *path, op_mesh *mesh);
int op_mesh_read_obj(op_ctx *ctx, const char *path, op_mesh *mesh);

/* Writes to a temporary name beside path and renames it on success: a failed or killed
 * write never leaves a file under the final name. */
int op_mesh_write_obj(op_ctx *ctx, const char *path, const op_mesh *mesh);

/* Rejects non-finite coordinates, out-of-range indices and triangles that repeat a vertex.
 * `name` identifies the mesh in the message. */
int op_mesh_check(op_ctx *ctx, const op_mesh *mesh, const char *name);
void op_mesh_print(FILE *out, const op_mesh *mesh, const char *name);

/* Allocates vertex and triangle storage (zeroed); polygon_count is set to face_count. */
int op_mesh_alloc(op_ctx *ctx, op_mesh *mesh, int vertex_count, int face_count);
void op_mesh_free(op_mesh *mesh);

void op_mesh_bounds(const op_mesh *mesh, double lo[3], double hi[3]);
/* The volume a closed mesh encloses (faces counter-clockwise seen from outside): Σ over its
 * triangles of v₀ · (v₁ × v₂) / 6, each taken relative to the first vertex so that a mesh far
 * from the origin loses no digits. */
double op_mesh_volume(const op_mesh *mesh);
/* Every edge shared by exactly two triangles, used once in each direction. */
int op_mesh_is_closed(const op_mesh *mesh);

/* A coarse stand-in of the surface, for pictures of scenes too big to draw whole: vertex
 * clustering on a uniform grid (Rossignac & Borrel 1993), each corner replaced by its cluster's
 * representative, the cluster's vertex nearest the cluster's mean, and triangles that collapse
 * dropped. The result indexes the mesh's own vertices, so anything per vertex (the skinned
 * positions of Eq. 2) serves it as it is. The grid is the finest a bisection finds with at most
 * max_faces triangles; a mesh with no more than that is returned whole. *faces
 * ([*count][3], malloc'd) keeps each survivor's winding. */
int op_mesh_cluster_faces(op_ctx *ctx, const op_mesh *mesh, int max_faces, int **faces, int *count);

#endif
