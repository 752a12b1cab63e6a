/* Mesh → oriented-particle graph (the part the paper leaves out; docs/graph-construction.md
 * explains every choice). All three kinds start from the mesh's interior voxels and partition
 * them into cells, one particle per cell:
 *   solid  geodesic farthest-point seeding then Lloyd iterations, distances measured through
 *          the voxels so a cell never spans a gap between limbs;
 *   rod    equal slabs along the longest bounding-box axis (a chain: the paper's bar);
 *   shell  a grid over the two longest bounding-box axes (flat ellipsoids: the paper's sheet);
 *   lattice  a u x v x w grid over all three axes, the slots in proportion to the extents (for
 *          a spring network's solid: Vogiannou et al. 2010's 9 x 9 x 9 cube).
 * Two particles are joined when their cells share voxel faces and the midpoint of their centres
 * lies inside the mesh; with an overlap scale S > 0 also when their ellipsoids, scaled by S, meet
 * on the line between their centres and that line stays in the solid (denser graphs, as the
 * paper's: docs/graph-construction.md §4); in a lattice instead when their slots differ by at most one along each
 * axis (the 26-neighbourhood: structural, face-diagonal and body-diagonal springs, so that a
 * spring network of it resists shear, which the 6 face neighbours alone would not). Each ellipsoid has its cell's centroid and second moments (LAPACKE's
 * symmetric eigensolver): radii √(5λ), the radii of the solid ellipsoid with the same moments. */
#ifndef OPSIM_BUILD_H
#define OPSIM_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "opsim/ctx.h"
#include "opsim/graph.h"
#include "opsim/mesh.h"
#include "geometry/skin.h"

/* OP_BODY_JOINED is a catalogue model made of two others (core/geometry/model.c), never built from a mesh. */
typedef enum op_body_kind { OP_BODY_SOLID, OP_BODY_ROD, OP_BODY_SHELL, OP_BODY_LATTICE, OP_BODY_JOINED } op_body_kind;

/* Raise it when a change to the builder changes what it builds from the same mesh and def: the
 * graph cache (core/geometry/graph_cache.h) then builds its entries again. */
enum { OP_BUILD_VERSION = 3 };

/* Values only, no pointers: the graph cache keys on the bytes of the whole struct. */
typedef struct op_build_def {
    op_body_kind kind;
    int particles;        /* solid and rod: exactly; shell: the nearest u x v grid; lattice: the
                             nearest u x v x w */
    uint64_t seed;        /* solid: picks the first farthest-point seed */
    int voxel_resolution; /* cells along the longest bounding-box extent */
    int lloyd_iterations; /* solid: upper bound; stops early when no seed moves */
    double contact_fraction; /* shared voxel faces two cells need for an edge, as a fraction of
                                the smaller cell's voxel count^(2/3) (its typical face area) */
    double overlap_scale; /* 0: the face rule alone; S > 0: also join particles whose ellipsoids,
                             scaled by S, meet on the line of centres (op_edge_rule_parse) */
    double density;       /* kg/m³ */
    int skin_k;           /* influences per visual vertex */
} op_build_def;

op_build_def op_default_build_def(void);

/* Builds the graph and the skinning of `mesh` (which must be closed). Deterministic: the same
 * mesh and def give bitwise-identical results. */
int op_build_body(op_ctx *ctx, const op_mesh *mesh, const op_build_def *def, op_graph *graph, op_skin *skin);

/* A solid of more particles than its interior voxels can give OP_BUILD_VOXELS_PER_PARTICLE each
 * at the resolution asked for starts at the resolution that gives them (the voxel count grows
 * as its cube), rather than failing into pieces and refining 3/2 at a time, a whole build each:
 * the dinosaur's 32,298 voxels at 96 serve 1,000 particles, 16,000 start at 220. The catalogue's
 * solids (at most 240 particles, 738 voxels each) build exactly as before.
 *
 * Any closed mesh builds: stray islands of the interior voxels (26-connected components of at
 * most OP_BUILD_ISLAND_VOXELS voxels besides the largest) are dropped, and while the interior or
 * the graph is still in pieces the grid is refined by 3/2 at a time, as long as the resolution
 * stays within OP_BUILD_REFINE_LIMIT times the one asked for and the grid within
 * OP_BUILD_MAX_CELLS cells (a thin limb cut into fragments joins up once the voxels are thinner
 * than it). An interior connected at the resolution asked for builds exactly as before. */
enum {
    OP_BUILD_REFINE_NUMERATOR = 3,
    OP_BUILD_REFINE_DENOMINATOR = 2,
    OP_BUILD_REFINE_LIMIT = 4,
    OP_BUILD_MAX_CELLS = 1 << 24,
    OP_BUILD_VOXELS_PER_PARTICLE = 24,
    OP_BUILD_MAX_CELLS_FOR_PARTICLES = 1 << 27, /* the grid the particle count may ask for: 0.7 GB */
    OP_BUILD_ISLAND_VOXELS = 8
};
typedef struct op_build_report {
    int voxel_resolution; /* the one used: def's, or a finer one */
    int islands_dropped;  /* stray voxel islands left out, and their voxels */
    int island_voxels;
} op_build_report;
/* op_build_body, saying in *report (may be NULL) what it chose. */
int op_build_body_report(op_ctx *ctx, const op_mesh *mesh, const op_build_def *def, op_graph *graph, op_skin *skin,
                         op_build_report *report);
/* The edge rule as written in data/models.tsv and for `opsim graph --edges`: "faces" (overlap
 * scale 0) or "overlap:S" (S > 0). Returns 0 and sets *overlap_scale, or -1 for anything else. */
int op_edge_rule_parse(const char *text, double *overlap_scale);
/* The rule's text as op_edge_rule_parse reads it ("faces", "overlap:1.25"), into out[size]. */
void op_edge_rule_format(double overlap_scale, char *out, size_t size);

const char *op_body_kind_name(op_body_kind kind);
/* Returns 0 and sets *kind, or -1 for an unknown name. */
int op_body_kind_parse(const char *name, op_body_kind *kind);

#endif
