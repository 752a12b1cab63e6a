/* The per-particle loops of a body's sub-step outside the solver: the prediction (world.c's
 * PREDICT: y, Y, the rigid fit's sums, the turn of the rotations) and the velocities' update
 * (UPDATE_VELOCITY). Four particles at a time in AVX lanes where the CPU has them (core/kernels/simd.h),
 * bitwise what one particle at a time gives. */
#ifndef OPSIM_PREDICT_H
#define OPSIM_PREDICT_H

#include "opsim/body.h"

/* The sums of world.c's rigid fit over a body's particles (d = p − x₀ with p = x + h v, and
 * e = x − x₀, x₀ the first particle's position at the sub-step's start), each added particle by
 * particle in index order. */
typedef struct op_rigid_fit_sums {
    double mass;       /* Σ m */
    double d[3], e[3]; /* Σ m d, Σ m e */
    double spread[9];  /* Σ m d eᵀ */
    double spin[9];    /* Σ Y Ā Rᵀ (ρ left out) */
} op_rigid_fit_sums;

/* For every particle of body, in index order: y = x + h v + h² g into inertial_position and, where
 * the position is not pinned, into position; Y = R + h Ṙ into inertial_rotation; and when fit is
 * not NULL its terms of the rigid fit's sums added to *fit, d and e relative to anchor. Returns
 * 1 when some particle's velocity differs from the first's or some Ṙ is not zero (the body turns
 * or deforms), else 0. */
int op_predict_particles(op_body *body, double h, const double gravity[3], const double anchor[3],
                         op_rigid_fit_sums *fit);

/* R_i ← Q R_i for every particle whose rotation is not pinned. */
void op_predict_turn(op_body *body, const double Q[9]);

/* Whether op_predict_particles4 and op_predict_turn4 take these four bodies: one graph, no pins. */
int op_predict_bodies_unpinned(op_body *const bodies[4]);

/* op_predict_particles for each of four bodies that op_predict_bodies_unpinned takes, body p's
 * sums (when fits is not NULL) and whether it turns into fits[p] and turning[p], d and e relative
 * to anchor[p]: bitwise what the four calls give, with the bodies side by side, one a lane, where
 * the AVX paths run. */
void op_predict_particles4(op_body *const bodies[4], double h, const double gravity[3], const double *const anchor[4],
                           op_rigid_fit_sums *const fits[4], int turning[4]);

/* op_predict_turn for each of four bodies that op_predict_bodies_unpinned takes, by Q[p]; none for
 * a body whose Q[p] is NULL. */
void op_predict_turn4(op_body *const bodies[4], const double *const Q[4]);

/* v = (x − x_start) / h and Ṙ = (R − R_start) / h for every particle. */
void op_predict_update_velocity(op_body *body, double h);

#endif
