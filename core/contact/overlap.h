/* Overlap between bodies measured from a state alone (docs/method.md, "Contacts that hold in the
 * stored states"): for every pair of particles of different bodies within reach (the broad
 * phase's test, bounding spheres), the narrow phase's penetration along the centre line,
 * p = h_i(n) + h_j(n) − |x_j − x_i|, with h from op_support_distance and E_i = R_i Ē_i. It reads
 * no contact log and no collider: `opsim overlap` runs it on the states a run file stores, and
 * the tests compare it with what the contacts logged. Pairs of two position-pinned particles
 * count like any other (a run file does not say which are pinned). */
#ifndef OPSIM_OVERLAP_H
#define OPSIM_OVERLAP_H

#include "contact/broad_phase.h"
#include "opsim/body.h"
#include "opsim/ctx.h"

/* What op_overlap_deepest reads of `count` particles (global index, body by body): rest axes
 * [n][9] (columns), semi-axes [n][3], body index [n]; bound[n], the largest semi-axis, is
 * filled by op_overlap_bounds. */
typedef struct op_overlap_shapes {
    int count;
    const double *rest_axes, *radii;
    const int *group;
    double *bound;
} op_overlap_shapes;

void op_overlap_bounds(op_overlap_shapes *shapes);

/* The deepest penetration (m, 0 when none) between particles of different bodies at centres
 * position[n][3] and rotations rotation[n][9] (row-major R_i), into *deepest; the pair into *i,
 * *j (−1 when none penetrates), either may be NULL. bp is a workspace, zero-initialised before
 * the first call and freed with op_broad_phase_free. */
int op_overlap_deepest(op_ctx *ctx, op_broad_phase *bp, const op_overlap_shapes *shapes, const double *position,
                       const double *rotation, double *deepest, int *i, int *j);

/* op_overlap_deepest for every state a run file stores under `group` ("/particles": the output
 * frames; "/substeps": every sub-step, `[run] output = substeps`), the bodies' shapes from
 * /graph: *rows states, (*deepest)[row] (m) and (*time)[row] (s), malloc'd (the caller frees);
 * *smallest, the smallest semi-axis of any particle. A missing group is OP_ERR_INVALID naming
 * the file and the group. */
int op_overlap_run_file(op_ctx *ctx, const char *path, const char *group, long *rows, double **deepest,
                        double **time, double *smallest);

/* Starts that make sense (docs/method.md, "Starts"): the first body starting inside the floor
 * (a position-free particle reaching below it, floor != 0) or inside another body (a pair of
 * particles of different bodies, not both position-pinned, penetrating along the centre line)
 * deeper than OP_START_TOLERANCE of the particle's, or the pair's smaller, smallest semi-axis:
 * the depth the contacts may leave during impacts (docs/method.md); shallower overlaps, such as
 * the 4.1 mm (6.7 %) between two armadillos of Fig. 7's 180-model start, are left to the first
 * sub-step's contacts. *fault: body (−1 when none), other (−1: the floor), the
 * particles in each body, depth and allowed (m). The scene refuses such a start (core/io/scene.c)
 * rather than let the contacts push the bodies out, which injects their elastic energy. */
#define OP_START_TOLERANCE 0.2
typedef struct op_start_fault {
    int body, other, particle, other_particle;
    double depth, allowed;
} op_start_fault;
int op_overlap_start(op_ctx *ctx, const op_body *bodies, int count, int floor, double floor_height,
                     op_start_fault *fault);

#endif
