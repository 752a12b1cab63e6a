/* The CHOLMOD wrapper: a symmetric positive-definite n×n matrix assembled from triplets,
 * factored once (simplicial LDLᵀ: on these small graphs it measured 4–5× faster than the
 * supernodal default; AMD's order, with METIS's tried beside it from 8,000 rows, sparse.c) and
 * solved for three right-hand sides at a time, one pass over L for all three (x, y and z share
 * the matrix). Every CHOLMOD status is checked: cholmod_factorize returns TRUE for a matrix that is
 * not positive definite and only sets common->status. CHOLMOD is used only while a factor is
 * made; the solve is opsim's own, on a copy of L. */
#ifndef OPSIM_SPARSE_H
#define OPSIM_SPARSE_H

#include <stddef.h>

#include "opsim/ctx.h"

/* A factor is read-only once made: a solve writes only the caller's workspace and right-hand
 * side, so any number of threads may solve with one factor at once, each with its own
 * workspace. Bodies whose matrices are identical share one factor (solvers/arap.c), so a
 * factor is reference counted: op_sparse_factor_retain adds a holder, op_sparse_factor_free
 * drops one, and the last drop frees it. Retaining and dropping are atomic. */
typedef struct op_sparse_factor op_sparse_factor;

/* A solve's scratch space (two n×4 blocks). Zero-initialise; op_sparse_workspace_reserve sizes
 * it for a factor; op_sparse_workspace_free releases it. Owned by one thread at a time. */
typedef struct op_sparse_workspace {
    int capacity;   /* the largest factor size it serves */
    double *data;   /* [2][capacity][4] */
} op_sparse_workspace;

/* Assembles A from `count` triplets (row, col, value) of its upper or lower triangle or both
 * (duplicates are summed; an entry given at (i, j) and (j, i) counts once per listing, so give
 * each off-diagonal entry in one triangle only) and factors it. Fails with OP_ERR_INVALID for
 * n < 1, an index out of range or a non-finite value, and when A is not positive definite,
 * naming the failing column; "not positive definite" includes numerically singular: a pivot
 * at or below 32·n·ε times its diagonal entry, which only a matrix with a condition number
 * above 1/(32·n·ε) can have. Fails with OP_ERR_LIBRARY should CHOLMOD hand back anything but
 * the simplicial LDLᵀ factor it is asked for. *factor is NULL on failure; on success it has
 * one holder, the caller. */
int op_sparse_factor_create(op_ctx *ctx, int n, int count, const int *rows, const int *cols, const double *values,
                            op_sparse_factor **factor);
/* The triplets' checks op_sparse_factor_create makes (and sparse_cg.h's matrix): n ≥ 1, count ≥ 0,
 * indices in range, finite values; OP_ERR_INVALID naming the entry. */
int op_sparse_check_triplets(op_ctx *ctx, int n, int count, const int *rows, const int *cols, const double *values);
/* Bytes the factor holds (its copy of L by columns and by rows, the pivots and the order). */
size_t op_sparse_factor_bytes(const op_sparse_factor *factor);
/* The bodies holding the factor now (op_sparse_factor_retain). */
int op_sparse_factor_holders(const op_sparse_factor *factor);
/* Bytes a workspace holds. */
size_t op_sparse_workspace_bytes(const op_sparse_workspace *work);
/* Adds a holder; returns factor. */
op_sparse_factor *op_sparse_factor_retain(op_sparse_factor *factor);
/* Drops the caller's hold, freeing the factor when it was the last, and sets *factor to NULL;
 * safe on NULL and on a NULL *factor. */
void op_sparse_factor_free(op_sparse_factor **factor);

/* Makes room in *work for solves with `factor` (keeps what is there when it is big enough). */
int op_sparse_workspace_reserve(op_ctx *ctx, op_sparse_workspace *work, const op_sparse_factor *factor);
/* Frees the workspace and zeroes it; safe on a zeroed one. */
void op_sparse_workspace_free(op_sparse_workspace *work);

/* Solves A X = B in place for B = rhs[n][3] (row-major: particle i's x, y, z together), with
 * `work` as scratch. Allocates nothing and leaves the factor as it was. Fails with
 * OP_ERR_INVALID when the workspace is too small for the factor (rhs untouched) or the solution
 * is not finite (rhs then holds it). */
int op_sparse_solve3(op_ctx *ctx, const op_sparse_factor *factor, op_sparse_workspace *work, double *rhs);
/* Four op_sparse_solve3 with one factor, each with its own workspace and right-hand side, and
 * bitwise their results: where the AVX paths run, the four substitutions go side by side (the
 * instances of one model in a group, solvers/arap.c), two an AVX-512 register where the CPU has
 * it (then each pair's interleaved substitutions use both its workspaces). On failure *failed is the one that failed
 * (and the message names it). */
int op_sparse_solve3_four(op_ctx *ctx, const op_sparse_factor *factor, op_sparse_workspace *const work[4],
                          double *const rhs[4], int *failed);

int op_sparse_factor_size(const op_sparse_factor *factor);
/* Nonzeros of the factor L, its diagonal included (for reports and benchmarks). */
long op_sparse_factor_nonzeros(const op_sparse_factor *factor);

#endif
