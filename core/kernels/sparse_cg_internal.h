/* Inside sparse_cg.h's matrix: its layout, and the pieces sparse_cg.c (the matrix, Jacobi and
 * IC(0), the CG loop), sparse_cg_dic.c (DIC and its CG by Eisenstat's trick) and
 * sparse_cg_amg.c (the multigrid V-cycle) share. Not for other files. */
#ifndef OPSIM_SPARSE_CG_INTERNAL_H
#define OPSIM_SPARSE_CG_INTERNAL_H

#include "kernels/sparse_cg.h"

/* sparse_cg_amg.c's multigrid hierarchy. */
typedef struct op_sparse_amg op_sparse_amg;

/* Row i's entries at [row_start[i], row_start[i + 1]) of column and value, columns ascending,
 * both triangles; the inverse of each diagonal entry for the Jacobi preconditioner. With IC(0),
 * L's row i at [lower_start[i], lower_start[i + 1]) of lower_column and lower_value: A's entries
 * of columns j ≤ i, ascending, so the diagonal last; lower_value is NULL without it. With DIC,
 * its diagonal D̃ and D − 2 D̃ (Eisenstat's correction); NULL without it. With AMG, its
 * hierarchy (level 0 reads this matrix's arrays); NULL without it. */
struct op_sparse_matrix {
    int n;
    int *row_start, *column;
    double *value, *inverse_diagonal;
    int *lower_start, *lower_column;
    double *lower_value;
    double *dic_diagonal, *dic_correction;
    op_sparse_amg *amg;
};

/* The threads a solve shares its rows with: every thread OpenMP offers when called outside a
 * team (the world's only unit, include/opsim/solver.h), else one. No result depends on it: a
 * row's value is computed by one thread in a fixed order, and sums over rows go by fixed blocks
 * (op_cg_column_dots). */
int op_cg_team(void);

/* y = M x, or y += M x when add, for a matrix of `rows` rows stored by rows (row i's entries at
 * [start[i], start[i + 1]) of column and value) and three columns x[j][c]: each row's three sums
 * in its entries' order, then stored or added; rows shared among `team` threads. Inline, so a
 * caller's constant `add` leaves no test in the loop. */
static inline void op_rows_times3(int rows, const int *start, const int *column, const double *value,
                                  const double *x, double *y, int add, int team)
{
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
    for (int i = 0; i < rows; ++i) {
        double sum[3] = { 0.0, 0.0, 0.0 };
        for (int p = start[i]; p < start[i + 1]; ++p) {
            const double *xj = &x[3 * column[p]];
            for (int c = 0; c < 3; ++c)
                sum[c] += value[p] * xj[c];
        }
        for (int c = 0; c < 3; ++c)
            y[3 * i + c] = add ? y[3 * i + c] + sum[c] : sum[c];
    }
}

/* Back to Jacobi: IC(0)'s and DIC's arrays and AMG's hierarchy freed. */
void op_sparse_matrix_drop_preconditioner(op_sparse_matrix *a);
/* out[c] = Σ_i a[i][c] b[i][c]: each column summed in ascending i within blocks of
 * OP_CG_DOT_ROWS rows, the blocks' sums added in ascending order (so the bits do not depend on
 * the team; a matrix of at most OP_CG_DOT_ROWS rows is one plain ascending sum). */
enum { OP_CG_DOT_ROWS = 512 };
void op_cg_column_dots(const double *a, const double *b, int n, double out[3]);
/* The columns whose residual is not yet small enough: active[c] = ‖r_c‖² > limit[c]; returns
 * how many. */
int op_cg_still_active(const double *r, int n, const double limit[3], int active[3]);
/* The failure after max_iterations, naming the first column still active and its residual r. */
int op_cg_not_converged(op_ctx *ctx, const double *r, int n, const double bb[3], const double limit[3],
                        const int active[3], int max_iterations);
/* The failure when pᵀ A p is not positive. */
int op_cg_breakdown(op_ctx *ctx, int iterations);
/* op_sparse_cg3 with DIC (sparse_cg_dic.c): bb = ‖b_c‖², limit = tolerance² bb, active the
 * columns with b_c ≠ 0 (their x already zero). */
int op_cg_eisenstat(op_ctx *ctx, const op_sparse_matrix *a, op_cg_workspace *work, const double *rhs, double *x,
                    const double bb[3], const double limit[3], int active[3], int max_iterations, int *iterations);

/* AMG (sparse_cg_amg.c): the hierarchy freed (safe on NULL); the bytes it holds; the entries
 * one V-cycle reads; the doubles of scratch (op_cg_workspace's multigrid) and the coarsest
 * factor's workspace (op_cg_workspace's coarse) a V-cycle needs; z = V-cycle(r), three columns. */
void op_sparse_amg_free(op_sparse_amg *amg);
size_t op_sparse_amg_bytes(const op_sparse_amg *amg);
long op_sparse_amg_entries(const op_sparse_amg *amg);
size_t op_sparse_amg_scratch(const op_sparse_amg *amg);
int op_sparse_amg_reserve(op_ctx *ctx, const op_sparse_amg *amg, op_sparse_workspace *coarse);
int op_sparse_amg_workspace_fits(const op_sparse_amg *amg, const op_cg_workspace *work);
void op_sparse_amg_apply(const op_sparse_amg *amg, op_cg_workspace *work, const double *r, double *z);

#endif
