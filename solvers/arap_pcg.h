/* The iterative global step that arap and arap-reference share ([solver] global = pcg,
 * docs/method.md, *Global step*): the three options, the global matrix held as it is for the
 * current h (op_arap_global_matrix) with its preconditioner, the conjugate gradients' workspace, and the solve warm-
 * started from the body's iterate. With global = cholesky (the default) nothing here is made
 * and the variant solves with its factor. */
#ifndef OPSIM_ARAP_PCG_H
#define OPSIM_ARAP_PCG_H

#include <stddef.h>

#include "kernels/sparse_cg.h"
#include "opsim/body.h"
#include "opsim/ctx.h"
#include "opsim/solver.h"

/* The three entries of a variant's option table (op_solver_option initialisers). With
 * global = cholesky the other two are read, checked, and have no effect. */
#define OP_ARAP_PCG_OPTIONS                                                                                       \
    { "global", "cholesky",                                                                                       \
      ("global step's linear solve: cholesky (CHOLMOD factor, exact) or pcg (preconditioned conjugate "           \
       "gradients from the current iterate, to global_tolerance; not with floor_contact = solve)") },             \
    { "global_tolerance", "1e-8",                                                                                 \
      "pcg: each coordinate stops when its residual |b - A u| <= this times |b| (2-norms), in (0, 0.1]" },        \
    { "global_preconditioner", "jacobi",                                                                          \
      ("pcg: jacobi (the diagonal), ic0 (incomplete Cholesky with zero fill), dic (its diagonal form by "       \
       "Eisenstat's trick, an iteration reading A's entries about once) or amg (smoothed-aggregation "          \
       "algebraic multigrid, one V-cycle an iteration); each made once per sub-step length "                    \
       "(docs/scaling.md)") }

enum { OP_ARAP_PCG_JACOBI, OP_ARAP_PCG_IC0, OP_ARAP_PCG_DIC, OP_ARAP_PCG_AMG }; /* "jacobi|ic0|dic|amg"'s order */

/* Zero-initialise; op_arap_pcg_free. */
typedef struct op_arap_pcg {
    int on;                   /* global = pcg */
    double tolerance;         /* global_tolerance */
    int preconditioner;       /* global_preconditioner: OP_ARAP_PCG_JACOBI, _IC0, _DIC or _AMG */
    op_sparse_matrix *matrix; /* the global matrix for the current h, the body's own */
    op_cg_workspace work;
    double *solution;         /* [free_count][3]: the warm start, then the solution */
    int iterations;           /* the last solve's conjugate-gradient iterations */
} op_arap_pcg;

/* Reads global, global_tolerance and global_preconditioner; refuses pcg with the floor held in the global step
 * (body->floor_held: the held set is solved through the factor), naming both options. */
int op_arap_pcg_settings(op_ctx *ctx, const op_solver_settings *settings, const op_body *body, op_arap_pcg *p);
/* When on: the matrix for sub-steps of length h over the free rows (row_of, free_count), its
 * preconditioner (IC(0)'s or DIC's factor, or AMG's hierarchy), and room for the solve. */
int op_arap_pcg_prepare(op_ctx *ctx, op_arap_pcg *p, const op_body *body, const int *row_of, int free_count,
                        double h);
/* Solves A u = rhs ([free_count][3], replaced by u) from the body's iterate, u = x − x_ref
 * (reference [n][3]), at most 2 free_count + 100 iterations; a failure's message names the
 * options. With team, a call made outside a thread team shares the solve's rows with OpenMP's
 * threads (core/kernels/sparse_cg.h; the same bits), else the solve runs on the calling thread. */
int op_arap_pcg_solve(op_ctx *ctx, op_arap_pcg *p, const op_body *body, const int *row_of, int free_count,
                      const double *reference, double *rhs, int team);
/* The bytes held: the matrix (and its IC(0) or DIC factor or AMG hierarchy), the workspace and the
 * warm start. */
size_t op_arap_pcg_bytes(const op_arap_pcg *p, int free_count);
void op_arap_pcg_free(op_arap_pcg *p);

#endif
