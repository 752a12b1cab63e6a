/* What arap (solvers/arap.c) and arap-reference (solvers/arap_reference.c) share beyond the
 * paper's two steps: Sec. 3.4's constraint terms regrouped by particle, the couplings of free
 * particles to pinned ones, the Gauss–Seidel colour order and the global matrix's factor. Both
 * variants call these, so that they evaluate every term in one order and give the same bits. */
#ifndef OPSIM_ARAP_TERMS_H
#define OPSIM_ARAP_TERMS_H

#include "base/math3.h"
#include "kernels/sparse.h"
#include "kernels/sparse_cg.h"
#include "opsim/body.h"
#include "opsim/ctx.h"

/* The terms of E that are not the graph's edges, for one body (op_arap_terms_targets' comment
 * in solvers/arap_terms.c derives the regrouping). */
typedef struct op_arap_terms {
    int n;                     /* the body's particles */
    int position_constraints;  /* how many of its constraints are position constraints */
    int *constraint_start;     /* [n + 1] the constraint influences that involve each particle */
    int *constraint_entry;     /* constraint index * OP_SKIN_MAX_K + influence slot */
    /* the position constraints regrouped by particle (the local step): */
    double *constraint_placed; /* [constraint][3] P v̄ + t, the placed rest vertex */
    double *constraint_rest;   /* [n][9] S_i, fixed */
    double *constraint_local;  /* [n][9] T_i + S_i, per sub-step (op_arap_terms_targets) */
    int *coupling_start;       /* [n + 1] particle i's couplings: the distinct particles p of */
    int *coupling_particle;    /* its position constraints, each with M_ip (9) and m_ip (3) */
    double *coupling_weight;   /* [coupling][12] */
    /* ... and by free particle (the global step): */
    int pull_count;            /* free particles with position constraints */
    int *pull_particle;        /* [pull_count] the particle a */
    double *pull_target;       /* [pull_count][3] G_a, per sub-step (op_arap_terms_targets) */
    int *pull_start;           /* [pull_count + 1] its couplings: the distinct particles p of */
    int *pull_partner;         /* its position constraints, each with n_ap (3) and c_ap (1) */
    double *pull_weight;       /* [coupling][4] */
    int *direction_start;      /* [n + 1] the direction-constraint entries of each particle, */
    int *direction_entry;      /* encoded as constraint_entry's */
    int pinned_count;          /* couplings of a free particle to a pinned neighbour: */
    int *pinned_row;           /* [pinned_count] the free particle's row */
    int *pinned_particle;      /* [pinned_count] the pinned neighbour */
    double *pinned_weight;     /* [pinned_count] k (v_i + v_j) */
} op_arap_terms;

/* Sets up *t for the body: row_of[i] is particle i's row in the global system, −1 where its
 * position is pinned. Also forms the first sub-step's targets. On failure *t may hold
 * allocations: op_arap_terms_free releases them. */
int op_arap_terms_create(op_ctx *ctx, op_arap_terms *t, const op_body *body, const int *row_of);
void op_arap_terms_free(op_arap_terms *t);
/* T_i and G_a from the constraints' current targets: once a sub-step. */
void op_arap_terms_targets(op_arap_terms *t, const op_body *body);
/* C_i of Eq. 5 + 11 + 13 + 15, the matrix whose polar factor is R_i (docs/method.md, "Local
 * step"), in displacement form u = x − x̄: base_i (the inertial and P S_i terms the caller keeps)
 * plus k Σ_j R_j (Ā_j + Ā_i), summed as k (Σ_j R_j Ā_j + (Σ_j R_j) Ā_i), plus k Σ_j (u_j − u_i)
 * w_ijᵀ with w_ij = v_j (x̄_j − x̄_i), plus the constraint terms (op_arap_terms_local). The one
 * assembly arap-reference and vbd share; the fast arap's lanes give its bits
 * (tests/test_arap_reference.c). */
void op_arap_local_matrix(const op_arap_terms *t, const op_body *body, const double *base, const double *displacement,
                          const double *rotations, int i, double C[9]);

/* The rest state's sums over each particle's edges, into arrays the caller zeroed: x_ref
 * (reference [n][3], the rest centres placed as the body is), S_i = Σ_j v_j d̄_ij d̄_ijᵀ (spread
 * [n][9], exactly symmetric: the upper triangle mirrored) and, unless rest_pull is NULL,
 * Σ_j v_j (x̄_i − x̄_j) (rest_pull [n][3]); d̄_ij = x̄_j − x̄_i. */
void op_arap_rest_sums(const op_body *body, double *reference, double *spread, double *rest_pull);

/* Whether any constraint involves particle i: else op_arap_terms_local adds nothing. */
static inline int op_arap_terms_involve(const op_arap_terms *t, int i)
{
    return t->constraint_start[i + 1] > t->constraint_start[i];
}
/* C^p_i + C^d_i (Eq. 13, 15) added into C, with `rotations` the ones the sweep reads and
 * `displacement` [n][3] the local step's u = x − x_ref. */
void op_arap_terms_local(const op_arap_terms *t, const op_body *body, const double *displacement,
                         const double *rotations, int i, double C[9]);
/* The pinned neighbours' and the position constraints' terms added into the global step's
 * right-hand side rhs [free][3], with turn [n][12] each particle's R − P by columns padded to
 * four (op_arap_turn_mul_v). */
void op_arap_terms_rhs(const op_arap_terms *t, const op_body *body, const int *row_of, const double *reference,
                       const double *turn, double *rhs);

/* (R − P) v from its columns in turn (t as op_arap_terms_rhs's turn), in m3_mul_v's order */
static inline void op_arap_turn_mul_v(double out[3], const double t[12], const double v[3])
{
    double r[3];
    for (int k = 0; k < 3; ++k)
        r[k] = t[k] * v[0] + t[4 + k] * v[1] + t[8 + k] * v[2];
    v3_copy(out, r);
}

/* The local step's Gauss–Seidel order: the free rotations colour by colour, by index within a
 * colour (op_arap_colour_sweep's comment). */
typedef struct op_arap_sweep {
    int count, colours;
    int *order;        /* [count] */
    int *colour_start; /* [colours + 1] each colour's run in order */
} op_arap_sweep;

int op_arap_colour_sweep(op_ctx *ctx, const op_arap_terms *t, const op_body *body, op_arap_sweep *s);
void op_arap_sweep_free(op_arap_sweep *s);

/* The global matrix of Eq. 7 + 12 + 14 over the free_count free particles (row_of as above) for
 * sub-steps of length h, factored with CHOLMOD into *factor (NULL on entry; left NULL when no
 * position is free). */
int op_arap_factor_matrix(op_ctx *ctx, const op_body *body, const int *row_of, int free_count, double h,
                          op_sparse_factor **factor);
/* The same matrix held as it is, for conjugate gradients ([solver] global = pcg), into *matrix
 * (NULL on entry; left NULL when no position is free). */
int op_arap_global_matrix(op_ctx *ctx, const op_body *body, const int *row_of, int free_count, double h,
                          op_sparse_matrix **matrix);

#endif
