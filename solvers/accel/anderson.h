/* Anderson acceleration (Peng, Deng, Zhang, Liu 2018, "Anderson acceleration for geometry
 * optimization and physics simulation"; their public code AASolver), applied by the world around
 * every iteration of any iterative variant, beside Chebyshev (chebyshev.h), so that no variant's
 * file knows about it.
 *
 * The fixed-point map. Within one sub-step, u is the vector of the body's free unknowns in the
 * displacement form: u = (x_i − x_ref,i for every position not pinned, R_i − P for every
 * rotation not pinned), x_ref = P x̄ + t and P the body's placed rest state, so that a body near
 * rest loses no digits to cancellation; G(u) is one iteration of the variant from u (for arap:
 * a local then a global step). With the residual f_k = G(u_k) − u_k and the last m differences
 * ΔF = [f_{k−m+1} − f_{k−m}, …, f_k − f_{k−1}], ΔG likewise of G, Anderson's iterate is
 *   u_{k+1} = G(u_k) − ΔG θ,   θ = argmin_θ ‖f_k − ΔF θ‖²,
 * the rotation blocks of u_{k+1} then re-projected onto SO(3) (op_polar_rotation of P + the
 * mixed difference, as chebyshev_rotations does), pinned values never written.
 *
 * The least squares by the normal equations (ΔFᵀΔF + λ I) θ = ΔFᵀ f_k, solved by LAPACKE_dposv
 * (Cholesky), with λ = 1e-10 · max_j (ΔFᵀΔF)_jj: a relative Tikhonov term that keeps the m×m
 * system positive definite when two differences are nearly parallel (they are once the
 * iteration has converged to rounding level), at a cost of 1e-10 in θ's relative accuracy. The
 * Gram matrix is formed here, by dot products in one fixed order, so the result does not depend
 * on the BLAS's threads; the m×m solve is LAPACK's. When dposv reports a non-positive pivot
 * (only when every difference is zero, as λ guards the rest) the plain iterate is taken and the
 * history reset.
 *
 * The safeguard (Peng et al. Sec. 4, and AASolver): an accelerated iterate is kept only if the
 * energy (the variant's energy hook, solver.h, where it gives one, else the yardstick
 * op_energy_eval; equal to 1e-12 relative; at the sub-step's h, y and Y) of the state it gives does not
 * rise above the energy of u_k, the last accepted iterate; otherwise the body takes the plain
 * iterate G(u_k), bit for bit, and the history is reset (the differences are dropped, f_k and
 * G(u_k) kept to difference against). Each such rejection is counted. With a variant whose
 * plain iteration never raises E (arap with Gauss–Seidel rotations: block-coordinate descent),
 * the energy of the iterates the world keeps therefore never rises; with Jacobi rotations the
 * plain iterate may raise it, and then so may the accepted sequence.
 *
 * Costs: one energy evaluation per accelerated iterate, one more when an iteration starts from
 * a state the last one did not leave (a rejection, the first iteration of a sub-step, a floor
 * projection in between); O(m · dim) for the Gram matrix's new row, ΔFᵀf and the mixing; one
 * polar decomposition per free rotation, warm-started. On the Fig. 5 dinosaur (100 particles,
 * dim 1,200), counted in instructions (callgrind, docs/variants.md): an accelerated iteration
 * 3.4 plain Gauss–Seidel ones; of its 381 thousand, the plain iteration 112, arap's energy hook
 * 66 (the yardstick: 117), the re-projections 53, the Gram row and ΔFᵀf 33, state copies 41.
 * energy_evaluations counts the energies asked for.
 *
 * m = 0 leaves every iterate as the variant made it and evaluates nothing: bitwise the plain run
 * (tests/test_anderson.c). The history is reset at the start of every sub-step. */
#ifndef OPSIM_ANDERSON_H
#define OPSIM_ANDERSON_H

#include "opsim/body.h"
#include "opsim/solver.h"
#include "accel/accel.h"

enum { OP_ANDERSON_MAX_M = 50 };

typedef struct op_anderson_def {
    int enabled; /* anderson = on */
    int m;       /* anderson_m: the window, 0 … OP_ANDERSON_MAX_M */
} op_anderson_def;

/* The common options of validated settings (op_solver_settings_validate). anderson = on together
 * with chebyshev = on is an OP_ERR_USAGE naming both keys. */
int op_anderson_def_from_settings(op_ctx *ctx, const op_solver_settings *settings, op_anderson_def *def);

typedef struct op_anderson {
    int m;                 /* window */
    int dim;               /* free unknowns: 3 per free position, 9 per free rotation */
    int n;                 /* particles */
    int free_rotations;    /* rotations not pinned */
    double *u;             /* [dim] u_k, the state the iteration started from */
    double energy_u;       /* E(u_k) */
    double *left_position, *left_rotation; /* [n][3], [n][9] the state the last iteration left */
    int left_energy_known; /* energy_left is its energy */
    double energy_left;
    double *plain_position, *plain_rotation; /* [n][3], [n][9] G(u_k) as the variant made it */
    double *g, *f;         /* [dim] G(u_k), f_k */
    double *g_prev, *f_prev; /* [dim] G(u_{k−1}), f_{k−1} (valid when have_prev) */
    int have_prev;
    int columns;           /* differences held, ≤ m */
    int next;              /* the slot the next difference goes to (circular) */
    double *dF, *dG;       /* [m][dim] */
    double *gram;          /* [m][m] ΔFᵀΔF, slot order */
    double *candidate;     /* [dim] */
    double *quaternion;    /* [n][4] warm starts of the re-projections (anderson.c) */
    long rejections;       /* accelerated iterates refused by the safeguard, since the last take */
    const op_solver_type *solver; /* the variant and its state for the body, whose energy hook */
    void *solver_state;    /* (solver.h) the safeguard uses when it gives one; NULL: the yardstick */
    long energy_evaluations; /* E of an iterate computed (by the hook or the yardstick), since init */
} op_anderson;

int op_anderson_init(op_ctx *ctx, op_anderson *state, const op_anderson_def *def, const op_body *body);
void op_anderson_free(op_anderson *state);

/* Before iteration k (0-based) of the sub-step: remembers u_k from the body and its energy
 * (evaluated unless the body holds, bit for bit, what the last iteration left with a known
 * energy); k = 0 resets the history. */
void op_anderson_before(op_anderson *state, const op_body *body, double h, int k);

/* After the iteration: the body holds G(u_k); replaces it by the accepted iterate (see above).
 * Returns 1 when it changed the body's rotations (the variant's resync is then due), 0
 * otherwise. OP_ERR_LIBRARY should LAPACK report a bad argument. */
int op_anderson_apply(op_ctx *ctx, op_anderson *state, op_body *body, double h, int *changed_rotations);

/* Rejections counted since the last call, and the count reset. */
long op_anderson_take_rejections(op_anderson *state);

/* The least squares of the file comment for `columns` differences: θ from the Gram matrix
 * gram[columns][columns] (row-major, symmetric) and rhs = ΔFᵀ f, with the stated λ. Returns
 * LAPACK's info (0 on success; > 0: not positive definite). Exposed for tests. */
int op_anderson_solve(int columns, const double *gram, const double *rhs, double *theta);

/* Behind the accelerators' interface (accel.h): "anderson", on with anderson = on; it counts
 * its rejections (anderson_rejections). */
extern const op_accel_type op_anderson_accel;
/* Body b's state of a world's accelerator when it is Anderson, else NULL (tests swap it). */
op_anderson *op_anderson_accel_body(op_accel *accel, int b);

#endif
