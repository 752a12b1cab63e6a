/* The arap family's own evaluation of its energy (the optional `energy` of include/opsim/solver.h):
 * E = E^k + E^e + E^c of docs/design.md §1 at the body's current iterate, with ∂E/∂x when asked,
 * from per-edge data the variant keeps for its iterations. It must equal the harness's yardstick
 * (core/sim/energy.c, op_energy_eval) to 1e-12 relative on every scene (tests/test_solver_energy.c);
 * the yardstick stays the only energy any reported number is computed with.
 *
 * Why not the paper's "free" energies. Peng et al. 2018 and Liu et al. 2017 read E off the local
 * step's projections (Σ‖D_i x − p_i‖²). Here the local step's sums C_i enter E only as
 * −tr(R_iᵀ C_i) plus constants (tr Ā_i, tr(Y_i Ā_i Y_iᵀ), the elastic terms' d̄ᵀd̄), and the
 * global step's quadratic as c − ½ bᵀu: both are differences of large terms, which at rest and
 * near it lose every digit (a body exactly at rest has E = 0, the yardstick gives exactly 0; the
 * expanded forms give rounding of the size of tr Ā and of ‖x − x_ref‖²). What a variant can
 * hold instead is what makes the difference forms cheap:
 *   per undirected edge {i, j}: d̄ = x̄_j − x̄_i and S_ij = Ā_i + Ā_j (6 values), so that both
 *     directed edges' rotation terms are one form tr(D S_ij Dᵀ), D = R_i − R_j (the yardstick
 *     forms D twice and multiplies two full 3×3 products), and both position residuals
 *     R_i d̄ − d, R_j d̄ − d share d = x_j − x_i;
 *   per particle the symmetric Ā_i (6 values) for the kinetic rotation term.
 * One pass over the undirected edges then gives E and, at the same residuals, ∂E/∂x (the
 * gradient arap-lbfgs's line search needs at its accepted trial), in place of the yardstick's
 * two passes over the directed edges. Work per undirected edge: 9 subtractions and 25 products
 * for the rotation form, 2 × 9 products for the residuals; the yardstick: 2 × (9 + 36) and 2 × 9.
 * Counted under callgrind on the Fig. 5 dinosaur: 66 thousand instructions an energy (the
 * yardstick 117), 74 with the gradient (docs/variants.md).
 *
 * Rounding. Every term is a sum of squares of differences formed as the yardstick forms them
 * (R_i − R_j, R_i − Y_i, x_i − y_i, x_j − x_i); only the order of the sums and the grouping of
 * Ā_i + Ā_j differ, each a relative change of a few units of rounding per term of a sum of
 * non-negative terms, so the two agree to about n ε relative (measured: tests/test_solver_energy.c). */
#ifndef OPSIM_ARAP_ENERGY_H
#define OPSIM_ARAP_ENERGY_H

#include "opsim/body.h"
#include "opsim/ctx.h"

typedef struct op_arap_energy {
    int n, edge_count;
    int *ends;        /* [edge][2] i < j */
    double *rest;     /* [edge][3] d̄ = x̄_j − x̄_i */
    double *moments;  /* [edge][6] Ā_i + Ā_j, upper triangle row by row */
    double *moment;   /* [n][6] Ā_i likewise */
} op_arap_energy;

/* Made from the graph (nothing of the body's placement, stiffness or h). */
int op_arap_energy_init(op_ctx *ctx, op_arap_energy *data, const op_graph *graph);
void op_arap_energy_free(op_arap_energy *data);

/* E of the body's state at step h; with gradient non-NULL, ∂E/∂x_i into gradient[n][3] for every
 * particle (pinned ones included, as op_energy_position_gradient). */
double op_arap_energy_eval(const op_arap_energy *data, const op_body *body, double h, double *gradient);

/* A variant's `energy` hook (solver.h) in one call: *data made from the body's graph on its first
 * use (a variant keeps NULL until then, so a run that never asks pays nothing), then E into
 * *energy. release frees what it made. */
int op_arap_energy_of(op_ctx *ctx, op_arap_energy **data, const op_body *body, double h, double *energy);
void op_arap_energy_release(op_arap_energy **data);

#endif
