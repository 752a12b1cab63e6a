/* The CHOLMOD wrapper: a symmetric positive-definite n×n matrix assembled from triplets,
 * factored once (simplicial LDLᵀ: on these small graphs it measured 4–5× faster than the
 * supernodal default) and solved for three right-hand sides at a time (x, y and z share the
 * matrix). Every CHOLMOD status is checked: cholmod_factorize returns TRUE for a matrix that is
 * not positive definite and only sets common->status. */
#ifndef OPSIM_SPARSE_H
#define OPSIM_SPARSE_H

#include "ctx.h"

/* Each factor carries its own CHOLMOD workspace, so different factors may be used from different
 * threads at once; one factor must not be used by two threads at once. */
typedef struct op_sparse_factor op_sparse_factor;

/* Assembles A from `count` triplets (row, col, value) of its upper or lower triangle or both
 * (duplicates are summed; an entry given at (i, j) and (j, i) counts once per listing, so give
 * each off-diagonal entry in one triangle only) and factors it. Fails with OP_ERR_INVALID for
 * n < 1, an index out of range or a non-finite value, and when A is not positive definite,
 * naming the failing column; "not positive definite" includes numerically singular: a pivot
 * at or below 32·n·ε times its diagonal entry, which only a matrix with a condition number
 * above 1/(32·n·ε) can have. *factor is NULL on failure. */
int op_sparse_factor_create(op_ctx *ctx, int n, int count, const int *rows, const int *cols, const double *values,
                            op_sparse_factor **factor);
/* Frees the factor and sets *factor to NULL; safe on NULL and on a NULL *factor. */
void op_sparse_factor_free(op_sparse_factor **factor);

/* Solves A X = B in place for B = rhs[n][3] (row-major: particle i's x, y, z together).
 * Allocates nothing: the workspace is made when the factor is. Fails with OP_ERR_INVALID when
 * the solution is not finite (rhs then holds it). */
int op_sparse_solve3(op_ctx *ctx, op_sparse_factor *factor, double *rhs);

int op_sparse_factor_size(const op_sparse_factor *factor);
/* Nonzeros of the factor L, its diagonal included (for reports and benchmarks). */
long op_sparse_factor_nonzeros(const op_sparse_factor *factor);

#endif
