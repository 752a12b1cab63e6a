/* The iterative alternative to sparse.h's factor: a symmetric positive-definite matrix held as
 * it is (compressed rows, both triangles), and preconditioned conjugate gradients for three
 * right-hand sides at once (x, y and z share the matrix), warm-started from the caller's guess.
 * arap's global step takes it with [solver] global = pcg (solvers/arap.c), for bodies where the
 * factor's fill costs more than the iterations (docs/scaling.md, *The global step at
 * scale*).
 *
 * Four preconditioners ([solver] global_preconditioner): Jacobi, the diagonal, by default (one
 * multiply a row, no set-up, cannot break down); IC(0), the incomplete Cholesky factor L on A's
 * own lower triangle (no fill, op_sparse_matrix_factor_ic0), applied as two triangular solves;
 * DIC, the diagonal incomplete Cholesky factor (op_sparse_matrix_factor_dic), applied by
 * Eisenstat's trick; and AMG, smoothed-aggregation algebraic multigrid, one V-cycle an
 * iteration (op_sparse_matrix_factor_amg). On the global matrix M/h² + k·L_graph IC(0) halves
 * Jacobi's iterations but reads A and L each iteration, about twice Jacobi's entries; DIC needs
 * a few more iterations than IC(0) and its iteration reads about Jacobi's entries, so of the
 * three it reads the least; AMG's iterations barely grow with the body, and from 16,000 rows a
 * solve with it reads the least of all (docs/scaling.md, *The global step at scale*). The matrix is a symmetric M-matrix (a
 * positive diagonal, non-positive off-diagonal entries, diagonally dominant), for which both
 * factors exist (Meijerink & van der Vorst 1977); a pivot that is not positive is still refused
 * by row. The rows keep the caller's order (the graph's, which numbers particles in voxel scan
 * order): no reordering is made.
 *
 * Threads and determinism: a solve called outside a thread team (a lone body's global step,
 * include/opsim/solver.h) shares its rows with the threads OpenMP offers, at most the
 * workspace's `threads` (arap sets 1 unless its sweep takes a team): the products with A, the
 * vector updates, the sums over rows and AMG's finest level; IC(0)'s triangular passes and
 * AMG's coarser sweeps stay on one thread, and DIC's whole solve does. Every sum still runs in a fixed order that
 * no thread count changes: a row's entries by ascending column; a sum over rows ascending within
 * blocks of 512 rows and the blocks' sums ascending (op_cg_column_dots); the triangular solves
 * by ascending then descending rows. No intrinsics: every run, thread count and build (scalar
 * or SIMD) gives the same bits. */
#ifndef OPSIM_SPARSE_CG_H
#define OPSIM_SPARSE_CG_H

#include <stddef.h>

#include "kernels/sparse.h"
#include "opsim/ctx.h"

/* Read-only once made: any number of threads may solve with one matrix at once, each with its
 * own workspace. */
typedef struct op_sparse_matrix op_sparse_matrix;

/* A conjugate-gradient solve's scratch space (four n×3 blocks and a sum for each block of rows;
 * with AMG, the V-cycle's levels and the coarsest factor's workspace) and the threads a solve
 * may use. Zero-initialise (threads 0: every thread on offer); op_cg_workspace_reserve sizes it;
 * op_cg_workspace_free releases it. */
typedef struct op_cg_workspace {
    int threads;                  /* the most threads a solve may share its rows with; 0: as many as
                                     OpenMP offers outside a team (the results do not depend on it) */
    int team;                     /* the threads the current solve shares its rows with */
    int capacity;                 /* the largest matrix size it serves */
    double *data;                 /* [4][capacity][3], then the row blocks' sums [blocks][3] */
    double (*block_sums)[3];      /* in data: a sum over rows' blocks (op_cg_column_dots) */
    size_t multigrid_capacity;    /* doubles in multigrid */
    double *multigrid;            /* AMG's V-cycle: each level's residual, right-hand side and solution */
    op_sparse_workspace coarse;   /* AMG's coarsest solve */
} op_cg_workspace;

/* A from triplets as op_sparse_factor_create takes them (sparse.h: upper, lower or both
 * triangles, duplicates summed, an off-diagonal entry given in one triangle only). Fails with
 * OP_ERR_INVALID for bad triplets (op_sparse_check_triplets) or a diagonal entry that is not
 * positive (A cannot then be positive definite). *matrix is NULL on failure. */
int op_sparse_matrix_create(op_ctx *ctx, int n, int count, const int *rows, const int *cols, const double *values,
                            op_sparse_matrix **matrix);
/* Frees the matrix and sets *matrix to NULL; safe on NULL and on a NULL *matrix. */
void op_sparse_matrix_free(op_sparse_matrix **matrix);
int op_sparse_matrix_size(const op_sparse_matrix *matrix);
/* Stored entries, both triangles and the diagonal. */
long op_sparse_matrix_nonzeros(const op_sparse_matrix *matrix);
/* Bytes the matrix holds (its arrays, and IC(0)'s L or DIC's two diagonals when made). */
size_t op_sparse_matrix_bytes(const op_sparse_matrix *matrix);

/* Makes L, A's incomplete Cholesky factor with zero fill (A ≈ L Lᵀ on A's sparsity), from which
 * op_sparse_cg3 then preconditions instead of the diagonal; made again if called again. Fails
 * with OP_ERR_INVALID naming the row whose pivot is not positive (the matrix is then as before,
 * Jacobi-preconditioned). Call it before sharing the matrix between threads. */
int op_sparse_matrix_factor_ic0(op_ctx *ctx, op_sparse_matrix *matrix);
/* Makes DIC, the diagonal incomplete Cholesky preconditioner M = (D̃ + L) D̃⁻¹ (D̃ + L)ᵀ, L A's
 * strict lower triangle, D̃ chosen so that M's diagonal is A's (d̃_i = a_ii − Σ_{j<i} a_ij² /
 * d̃_j); op_sparse_cg3 then applies it by Eisenstat's trick: an iteration's two triangular
 * passes over L stand in for the product with A. Fails as op_sparse_matrix_factor_ic0 does.
 * Replaces IC(0), as IC(0) replaces it. */
int op_sparse_matrix_factor_dic(op_ctx *ctx, op_sparse_matrix *matrix);
/* Makes AMG, a smoothed-aggregation algebraic multigrid hierarchy of A (sparse_cg_amg.c's
 * header: greedy aggregates in index order, piecewise-constant tentative prolongators, the
 * finest smoothed by one damped Jacobi step, Galerkin coarse matrices, the coarsest by sparse.h's
 * factor);
 * op_sparse_cg3 then preconditions by one V-cycle (symmetric Gauss–Seidel sweeps) an
 * iteration. Fails with OP_ERR_INVALID for a coarse matrix the factor refuses. Replaces IC(0)
 * and DIC, as they replace it. */
int op_sparse_matrix_factor_amg(op_ctx *ctx, op_sparse_matrix *matrix);
/* AMG's levels, finest first: rows and stored entries into rows[0 .. capacity) and entries;
 * returns the level count (0 without AMG). */
int op_sparse_matrix_amg_levels(const op_sparse_matrix *matrix, int *rows, long *entries, int capacity);
/* Matrix entries (and diagonal values) one CG iteration reads: Jacobi A's nonzeros + n; IC(0)
 * A's nonzeros + L's entries twice; DIC (Eisenstat) A's off-diagonal entries once + 4 n; AMG
 * A's nonzeros + a V-cycle's (each level above the coarsest: its matrix three times and its
 * prolongator twice; the coarsest factor's L below the diagonal twice and its diagonal once). A
 * DIC solve reads L's lower half and D̃ once more each time it tests the true residual. */
long op_sparse_cg_entries_per_iteration(const op_sparse_matrix *matrix);

/* Y = A X for X = x[n][3] (row-major, as below). */
void op_sparse_matrix_times3(const op_sparse_matrix *matrix, const double *x, double *y);

int op_cg_workspace_reserve(op_ctx *ctx, op_cg_workspace *work, const op_sparse_matrix *matrix);
/* Bytes the workspace holds. */
size_t op_cg_workspace_bytes(const op_cg_workspace *work);
void op_cg_workspace_free(op_cg_workspace *work);

/* Solves A X = B, B = rhs[n][3] row-major (particle i's x, y, z together), by preconditioned
 * conjugate gradients on each column, the three columns' products with A in one pass over the
 * matrix. x holds the starting guess on entry and the solution on return. A column stops when
 * its residual ‖b − A x‖₂ ≤ tolerance · ‖b‖₂ (a zero column of B gives exactly x = 0), checked
 * on the recurrence's residual (with DIC, r = T r̂ from the transformed one, computed when r̂
 * predicts a pass); *iterations is the number of iterations made, each one product with A or,
 * with DIC, with T⁻¹ A T⁻ᵀ (the most any column needed). Fails with OP_ERR_INVALID for a workspace too small, a tolerance outside
 * (0, 1), or when a column has not converged after max_iterations products (x then holds the
 * last iterate; the message gives the residual reached), and when the solution is not finite. */
int op_sparse_cg3(op_ctx *ctx, const op_sparse_matrix *matrix, op_cg_workspace *work, const double *rhs, double *x,
                  double tolerance, int max_iterations, int *iterations);

#endif
