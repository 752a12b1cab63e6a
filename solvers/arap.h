/* The paper's solver (Choi & Lee 2017, Sec. 3): alternating local rotations and global
 * positions on the oriented-particle graph. Its two half-steps are exposed so tests can check
 * that each one never raises the energy. */
#ifndef OPSIM_ARAP_H
#define OPSIM_ARAP_H

#include "opsim/body.h"
#include "opsim/ctx.h"
#include "opsim/solver.h"
#include "kernels/sparse.h"

extern const op_solver_type op_solver_arap;

/* Local step: every free rotation R_i = argmax_{R∈SO(3)} tr(Rᵀ C_i), Eq. 5 + 11 + constraint
 * terms, in Gauss–Seidel or Jacobi order as the solver was configured. */
void op_arap_local_step(void *solver, op_body *body, double h);
/* The local step's order: *order = the free rotations (rotation-pinned particles left out) in
 * the order the sweep visits them; returns their count. Gauss–Seidel visits them colour by
 * colour (no two rotations of a colour appear in one term of E), by index within a colour. */
int op_arap_sweep_order(const void *solver, const int **order);
/* *colour_start = the colours' runs in that order, colour c at [colour_start[c],
 * colour_start[c + 1]); returns the number of colours. */
int op_arap_sweep_colours(const void *solver, const int **colour_start);
/* The global step's factor: one pointer for every body that shares it (bodies instancing one
 * model with the same k, h and position pins, and no position constraint), NULL when every
 * position is pinned. Its rows are the position-free particles in index order, so that
 * op_sparse_solve3 with it applies A⁻¹ to a [free][3] block (arap-lbfgs's initial Hessian). A
 * new h (begin_substep) may replace it. */
const op_sparse_factor *op_arap_factor(const void *solver);
/* C^p_i + C^d_i (Sec. 3.4) of particle i added into C as the local step forms them, with the
 * rotations `rotations`, the positions the last local step read and the targets of the last
 * begin_substep (for tests). */
void op_arap_constraint_terms(const void *solver, const op_body *body, const double *rotations, int i, double C[9]);
/* The conjugate-gradient iterations of the body's last global step (global = pcg; 0 with the
 * factor). */
int op_arap_linear_iterations(const void *solver);
/* Global step: every free position from the prefactored n×n system (Eq. 7 + 12 + 14). */
int op_arap_global_step(op_ctx *ctx, void *solver, op_body *body, double h);

#endif
