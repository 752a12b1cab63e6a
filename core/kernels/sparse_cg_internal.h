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

/* The rows a solve shares with its team go in blocks of OP_CG_BLOCK_ROWS consecutive rows: the
 * sums over rows add each block's sum in ascending order (op_cg_column_dots), and AMG's finest
 * sweeps are Gauss–Seidel within a block (sparse_cg_amg.c), so the blocks, not the team, fix
 * the bits. */
enum { OP_CG_BLOCK_ROWS = 512 };

/* The threads a solve shares its rows with: at most work->threads (0: no limit) of those OpenMP
 * offers when called outside a team (the world's only unit, include/opsim/solver.h), else one. */
int op_cg_team(const op_cg_workspace *work);

/* Work on rows [first, end) of a row loop. */
typedef void op_cg_rows(void *context, int first, int end);
/* Calls rows(context, first, end) over [0, n): once, on the calling thread, when team is 1 or
 * n fits one block; else each of `team` threads once, on its share of whole blocks, in order. */
void op_cg_share_rows(int team, int n, op_cg_rows *rows, void *context);

/* y = M x, or y += M x when add, over rows [first, end) of a matrix stored by rows (row i's
 * entries at [start[i], start[i + 1]) of column and value) and three columns x[j][c]: each
 * row's three sums in its entries' order, then stored or added. Inline, so a caller's constant
 * `add` leaves no test in the loop. */
static inline void op_rows_times3(int first, int end, const int *start, const int *column, const double *value,
                                  const double *x, double *y, int add)
{
    for (int i = first; i < end; ++i) {
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

/* y = M x, or y += M x when add, for M of `rows` rows (as op_rows_times3), the rows shared by
 * `team` threads. */
void op_rows_times3_shared(int team, int rows, const int *start, const int *column, const double *value,
                           const double *x, double *y, int add);

/* Back to Jacobi: IC(0)'s and DIC's arrays and AMG's hierarchy freed. */
void op_sparse_matrix_drop_preconditioner(op_sparse_matrix *a);
/* out[c] = Σ_i a[i][c] b[i][c]: each column summed in ascending i within blocks of
 * OP_CG_BLOCK_ROWS rows, the blocks' sums added in ascending order, so the bits do not depend
 * on the team (work->team, work->block_sums: op_sparse_cg3 sets them). */
void op_cg_column_dots(const op_cg_workspace *work, const double *a, const double *b, int n, double out[3]);
/* The columns whose residual is not yet small enough: active[c] = ‖r_c‖² > limit[c]; returns
 * how many. */
int op_cg_still_active(const op_cg_workspace *work, const double *r, int n, const double limit[3], int active[3]);
/* The failure after max_iterations, naming the first column still active and its residual r. */
int op_cg_not_converged(op_ctx *ctx, const op_cg_workspace *work, const double *r, int n, const double bb[3],
                        const double limit[3], const int active[3], int max_iterations);
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
