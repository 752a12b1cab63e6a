/* The floor inside the global step (`[world] floor_contact = solve`, docs/method.md, "Floor
 * contacts"): what arap (solvers/arap.c) and arap-reference (solvers/arap_reference.c) share so
 * that the global step keeps every free particle's ellipsoid above the floor, with the same bits
 * in both. The solver solves its unconstrained system as before; op_arap_floor_hold then corrects
 * the y column of the solution with the contacting particles held on the floor, through the same
 * factor (solvers/arap_floor.c derives it). */
#ifndef OPSIM_ARAP_FLOOR_H
#define OPSIM_ARAP_FLOOR_H

#include "kernels/sparse.h"
#include "opsim/body.h"
#include "opsim/ctx.h"

/* One body's floor hold: the active set (the particles held on the floor) kept from one global
 * step to the next, the columns A⁻¹ e_a of the particles that have touched, and the Schur
 * complement of the held set with its dense factor. Zero-initialise; op_arap_floor_free. */
typedef struct op_arap_floor {
    int n, free_count;
    const op_sparse_factor *factor; /* the factor the columns were solved with, */
    double factor_h;                /* for sub-steps of this length */
    int *column_of;     /* [n] particle i's column in columns, −1 while it has none */
    double *columns;    /* [column_capacity][free_count] A⁻¹ e_row(i), over the free rows */
    int column_count, column_capacity;
    unsigned char *held; /* [n] 1 where the particle is held on the floor */
    int *list;          /* [n] the held particles, ascending */
    int list_count;
    int *factored;      /* [n] the list the Schur factor below was made for */
    int factored_count;
    double *schur;      /* [n][n] at most: S = E A⁻¹ Eᵀ of the held set, its Cholesky factor */
    double *schur_full; /* [n][n] at most: S itself, for friction */
    double *friction;   /* [n][2] the floor's tangential force on each held particle (x, z; N) */
    double *multiplier; /* [n] the floor's force on each held particle (N) */
    double *bound;      /* [n] the lowest u_y each free particle may take */
    double *free_y;     /* [n] u_y of the unconstrained solve */
    double *scratch;    /* [free_count][3] right-hand sides of the column solves */
    int rounds;         /* the active-set rounds of the last hold */
} op_arap_floor;

void op_arap_floor_free(op_arap_floor *floor);

/* After the global step's unconstrained solve u = rhs [free][3] (u = x − reference, row_of as
 * the solver's), when body->floor_held: the y column replaced by the solution of the same
 * system with u_y ≥ bound for every free particle, bound the height at which its ellipsoid (with
 * the rotations the local step left) touches body->floor_height; the held particles' bounds
 * are met exactly. Then the x and z columns with Coulomb friction on the held particles
 * (body->floor_friction times each one's floor force): a particle sticks where the sub-step
 * started unless that takes more than the bound, else slides with the bound's force. work is the solver's workspace, free to overwrite; h the sub-step. Writes
 * body->floor_push[i] = μ_i h²/m_i (μ_i the floor's force, 0 where not held) for the world's
 * velocity response (op_floor_respond). Bitwise the same for the same inputs. */
int op_arap_floor_hold(op_ctx *ctx, op_arap_floor *floor, op_body *body, const op_sparse_factor *factor,
                       op_sparse_workspace *work, const int *row_of, int free_count, const double *reference,
                       double h, double *rhs);

#endif
