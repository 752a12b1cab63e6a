/* sparse_cg.h: the matrix in compressed rows, built from triplets, its Jacobi and IC(0)
 * preconditioners, and the preconditioned conjugate gradients for three columns at once (DIC's,
 * by Eisenstat's trick, in sparse_cg_dic.c). */
#include "kernels/sparse_cg.h"
#include "kernels/sparse_cg_internal.h"
#include "kernels/sparse.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

void op_sparse_matrix_free(op_sparse_matrix **matrix)
{
    if (!matrix || !*matrix)
        return;
    op_sparse_matrix *a = *matrix;
    free(a->row_start);
    free(a->column);
    free(a->value);
    free(a->inverse_diagonal);
    free(a->lower_start);
    free(a->lower_column);
    free(a->lower_value);
    free(a->dic_diagonal);
    free(a->dic_correction);
    op_sparse_amg_free(a->amg);
    free(a);
    *matrix = NULL;
}

/* Sorts row i's entries by column, stably (so duplicates keep the triplets' order and are summed
 * in it), and sums the duplicates; returns the row's new length. Rows are a particle's
 * neighbours: a few dozen entries, so insertion sort. */
static int sort_and_merge_row(int *column, double *value, int length)
{
    for (int a = 1; a < length; ++a) {
        int c = column[a], b = a;
        double v = value[a];
        for (; b > 0 && column[b - 1] > c; --b) {
            column[b] = column[b - 1];
            value[b] = value[b - 1];
        }
        column[b] = c;
        value[b] = v;
    }
    int kept = 0;
    for (int a = 0; a < length; ++a) {
        if (kept > 0 && column[kept - 1] == column[a])
            value[kept - 1] += value[a];
        else {
            column[kept] = column[a];
            value[kept++] = value[a];
        }
    }
    return kept;
}

/* Both triangles from the triplets, in triplet order within each row, then each row sorted and
 * merged in place and the rows packed. */
static int fill_rows(op_ctx *ctx, op_sparse_matrix *a, int count, const int *rows, const int *cols,
                     const double *values)
{
    int n = a->n;
    int *fill = op_calloc(ctx, (size_t)n + 1, sizeof(int));
    if (!fill)
        return ctx->status;
    for (int t = 0; t < count; ++t) {
        a->row_start[rows[t] + 1]++;
        if (rows[t] != cols[t])
            a->row_start[cols[t] + 1]++;
    }
    for (int i = 0; i < n; ++i)
        a->row_start[i + 1] += a->row_start[i];
    size_t entries = (size_t)a->row_start[n];
    a->column = op_calloc(ctx, entries + 1, sizeof(int));
    a->value = op_calloc(ctx, entries + 1, sizeof(double));
    if (ctx->status != OP_OK) {
        free(fill);
        return ctx->status;
    }
    for (int t = 0; t < count; ++t) {
        int slot = a->row_start[rows[t]] + fill[rows[t]]++;
        a->column[slot] = cols[t];
        a->value[slot] = values[t];
        if (rows[t] != cols[t]) {
            slot = a->row_start[cols[t]] + fill[cols[t]]++;
            a->column[slot] = rows[t];
            a->value[slot] = values[t];
        }
    }
    int packed = 0;
    for (int i = 0; i < n; ++i) {
        int first = a->row_start[i], length = a->row_start[i + 1] - first;
        a->row_start[i] = packed;
        memmove(&a->column[packed], &a->column[first], (size_t)length * sizeof(int));
        memmove(&a->value[packed], &a->value[first], (size_t)length * sizeof(double));
        packed += sort_and_merge_row(&a->column[packed], &a->value[packed], length);
    }
    a->row_start[n] = packed;
    free(fill);
    return OP_OK;
}

/* The inverse diagonal, refusing a diagonal entry that is not positive. */
static int invert_diagonal(op_ctx *ctx, op_sparse_matrix *a)
{
    for (int i = 0; i < a->n; ++i) {
        double d = 0.0;
        for (int p = a->row_start[i]; p < a->row_start[i + 1]; ++p)
            if (a->column[p] == i)
                d = a->value[p];
        if (!(d > 0.0))
            return OP_FAIL(ctx, OP_ERR_INVALID, "matrix is not positive definite (column %d: diagonal entry %g)",
                           i, d);
        a->inverse_diagonal[i] = 1.0 / d;
    }
    return OP_OK;
}

int op_sparse_matrix_create(op_ctx *ctx, int n, int count, const int *rows, const int *cols, const double *values,
                            op_sparse_matrix **matrix)
{
    *matrix = NULL;
    if (op_sparse_check_triplets(ctx, n, count, rows, cols, values) != OP_OK)
        return ctx->status;
    op_sparse_matrix *a = op_calloc(ctx, 1, sizeof *a);
    if (!a)
        return ctx->status;
    a->n = n;
    a->row_start = op_calloc(ctx, (size_t)n + 1, sizeof(int));
    a->inverse_diagonal = op_calloc(ctx, (size_t)n, sizeof(double));
    if (ctx->status == OP_OK && fill_rows(ctx, a, count, rows, cols, values) == OP_OK)
        invert_diagonal(ctx, a);
    if (ctx->status != OP_OK) {
        op_sparse_matrix_free(&a);
        return ctx->status;
    }
    *matrix = a;
    return OP_OK;
}

int op_sparse_matrix_size(const op_sparse_matrix *matrix)
{
    return matrix->n;
}

long op_sparse_matrix_nonzeros(const op_sparse_matrix *matrix)
{
    return matrix->row_start[matrix->n];
}

size_t op_sparse_matrix_bytes(const op_sparse_matrix *matrix)
{
    size_t n = (size_t)matrix->n, entries = (size_t)matrix->row_start[matrix->n];
    size_t bytes = (n + 1) * sizeof(int) + n * sizeof(double) + entries * (sizeof(int) + sizeof(double));
    if (matrix->lower_value)
        bytes += (n + 1) * sizeof(int) + (size_t)matrix->lower_start[n] * (sizeof(int) + sizeof(double));
    if (matrix->dic_diagonal)
        bytes += 2 * n * sizeof(double);
    if (matrix->amg)
        bytes += op_sparse_amg_bytes(matrix->amg);
    return bytes;
}

long op_sparse_cg_entries_per_iteration(const op_sparse_matrix *matrix)
{
    long nonzeros = matrix->row_start[matrix->n];
    if (matrix->dic_diagonal) /* A's off-diagonal entries once, D̃ three times, D − 2 D̃ once */
        return nonzeros - matrix->n + 4L * matrix->n;
    if (matrix->lower_value)
        return nonzeros + 2L * matrix->lower_start[matrix->n];
    if (matrix->amg)
        return nonzeros + op_sparse_amg_entries(matrix->amg);
    return nonzeros + matrix->n;
}

/* Σ_k l_ik l_jk over the columns k < j that rows i and j both hold: row i's entries at
 * [from_i, to_i) and row j's off-diagonal ones, both ascending, merged in ascending k. */
static double row_overlap(const op_sparse_matrix *a, int from_i, int to_i, int j)
{
    const int *column = a->lower_column;
    const double *value = a->lower_value;
    int p = from_i, q = a->lower_start[j], end_j = a->lower_start[j + 1] - 1;
    double sum = 0.0;
    while (p < to_i && q < end_j) {
        if (column[p] == column[q])
            sum += value[p++] * value[q++];
        else if (column[p] < column[q])
            ++p;
        else
            ++q;
    }
    return sum;
}

/* L's rows in place over A's lower triangle, row by row: l_ij = (a_ij − Σ_{k<j} l_ik l_jk) / l_jj,
 * then l_ii = √(a_ii − Σ_{k<i} l_ik²); fails naming the row whose pivot is not positive. */
static int factor_rows(op_ctx *ctx, op_sparse_matrix *a)
{
    for (int i = 0; i < a->n; ++i) {
        int first = a->lower_start[i], diagonal = a->lower_start[i + 1] - 1;
        for (int p = first; p < diagonal; ++p) {
            int j = a->lower_column[p];
            a->lower_value[p] = (a->lower_value[p] - row_overlap(a, first, p, j)) /
                                a->lower_value[a->lower_start[j + 1] - 1];
        }
        double pivot = a->lower_value[diagonal];
        for (int p = first; p < diagonal; ++p)
            pivot -= a->lower_value[p] * a->lower_value[p];
        if (!(pivot > 0.0))
            return OP_FAIL(ctx, OP_ERR_INVALID, "incomplete Cholesky factor: pivot of row %d is %g, not positive",
                           i, pivot);
        a->lower_value[diagonal] = sqrt(pivot);
    }
    return OP_OK;
}

/* A's lower triangle (the diagonal included: op_sparse_matrix_create made every diagonal entry
 * present and positive) copied to L's arrays. */
static int copy_lower_triangle(op_ctx *ctx, op_sparse_matrix *a)
{
    int n = a->n;
    a->lower_start = op_calloc(ctx, (size_t)n + 1, sizeof(int));
    if (!a->lower_start)
        return ctx->status;
    for (int i = 0; i < n; ++i) {
        int length = 0;
        for (int p = a->row_start[i]; p < a->row_start[i + 1] && a->column[p] <= i; ++p)
            ++length;
        a->lower_start[i + 1] = a->lower_start[i] + length;
    }
    a->lower_column = op_calloc(ctx, (size_t)a->lower_start[n] + 1, sizeof(int));
    a->lower_value = op_calloc(ctx, (size_t)a->lower_start[n] + 1, sizeof(double));
    if (ctx->status != OP_OK)
        return ctx->status;
    for (int i = 0; i < n; ++i) {
        int length = a->lower_start[i + 1] - a->lower_start[i];
        memcpy(&a->lower_column[a->lower_start[i]], &a->column[a->row_start[i]], (size_t)length * sizeof(int));
        memcpy(&a->lower_value[a->lower_start[i]], &a->value[a->row_start[i]], (size_t)length * sizeof(double));
    }
    return OP_OK;
}

/* Back to Jacobi: IC(0)'s and DIC's arrays and AMG's hierarchy freed. */
void op_sparse_matrix_drop_preconditioner(op_sparse_matrix *a)
{
    op_sparse_amg_free(a->amg);
    a->amg = NULL;
    free(a->lower_start);
    free(a->lower_column);
    free(a->lower_value);
    free(a->dic_diagonal);
    free(a->dic_correction);
    a->lower_start = a->lower_column = NULL;
    a->lower_value = a->dic_diagonal = a->dic_correction = NULL;
}

int op_sparse_matrix_factor_ic0(op_ctx *ctx, op_sparse_matrix *matrix)
{
    op_sparse_matrix_drop_preconditioner(matrix);
    if (copy_lower_triangle(ctx, matrix) != OP_OK || factor_rows(ctx, matrix) != OP_OK) {
        op_sparse_matrix_drop_preconditioner(matrix);
        return ctx->status;
    }
    return OP_OK;
}

int op_cg_team(const op_cg_workspace *work)
{
    int team = omp_in_parallel() ? 1 : omp_get_max_threads();
    return work->threads > 0 && work->threads < team ? work->threads : team;
}

void op_cg_share_rows(int team, int n, op_cg_rows *rows, void *context)
{
    int blocks = (n + OP_CG_BLOCK_ROWS - 1) / OP_CG_BLOCK_ROWS;
    if (team <= 1 || blocks <= 1) {
        rows(context, 0, n);
        return;
    }
#pragma omp parallel num_threads(team)
    {
        long thread = omp_get_thread_num(), threads = omp_get_num_threads();
        int first = (int)(blocks * thread / threads) * OP_CG_BLOCK_ROWS;
        int end = (int)(blocks * (thread + 1) / threads) * OP_CG_BLOCK_ROWS;
        if (first < n)
            rows(context, first, end < n ? end : n);
    }
}

typedef struct rows_times3 {
    const int *start, *column;
    const double *value, *x;
    double *y;
} rows_times3;

static void rows_times3_set(void *context, int first, int end)
{
    const rows_times3 *m = context;
    op_rows_times3(first, end, m->start, m->column, m->value, m->x, m->y, 0);
}

static void rows_times3_add(void *context, int first, int end)
{
    const rows_times3 *m = context;
    op_rows_times3(first, end, m->start, m->column, m->value, m->x, m->y, 1);
}

void op_rows_times3_shared(int team, int rows, const int *start, const int *column, const double *value,
                           const double *x, double *y, int add)
{
    rows_times3 m = { start, column, value, x, y };
    op_cg_share_rows(team, rows, add ? rows_times3_add : rows_times3_set, &m);
}

void op_sparse_matrix_times3(const op_sparse_matrix *matrix, const double *x, double *y)
{
    op_rows_times3(0, matrix->n, matrix->row_start, matrix->column, matrix->value, x, y, 0);
}

/* A's product shared by the solve's team. */
static void times3(const op_sparse_matrix *a, const op_cg_workspace *work, const double *x, double *y)
{
    op_rows_times3_shared(work->team, a->n, a->row_start, a->column, a->value, x, y, 0);
}

/* AMG's V-cycle scratch and its coarsest factor's workspace, kept when big enough. */
static int reserve_multigrid(op_ctx *ctx, op_cg_workspace *work, const op_sparse_amg *amg)
{
    size_t needed = op_sparse_amg_scratch(amg);
    if (work->multigrid_capacity < needed) {
        double *multigrid = op_calloc(ctx, needed, sizeof(double));
        if (!multigrid)
            return ctx->status;
        free(work->multigrid);
        work->multigrid = multigrid;
        work->multigrid_capacity = needed;
    }
    return op_sparse_amg_reserve(ctx, amg, &work->coarse);
}

/* The workspace's data for n rows: r, z, p and q, then a sum for each block of rows. */
static size_t data_doubles(int n)
{
    return 12 * (size_t)n + 3 * (((size_t)n + OP_CG_BLOCK_ROWS - 1) / OP_CG_BLOCK_ROWS);
}

int op_cg_workspace_reserve(op_ctx *ctx, op_cg_workspace *work, const op_sparse_matrix *matrix)
{
    if (matrix->amg && reserve_multigrid(ctx, work, matrix->amg) != OP_OK)
        return ctx->status;
    if (work->capacity >= matrix->n)
        return OP_OK;
    double *data = op_calloc(ctx, data_doubles(matrix->n), sizeof(double));
    if (!data)
        return ctx->status;
    free(work->data);
    work->data = data;
    work->block_sums = (double(*)[3])(data + 12 * (size_t)matrix->n);
    work->capacity = matrix->n;
    return OP_OK;
}

size_t op_cg_workspace_bytes(const op_cg_workspace *work)
{
    return ((work->data ? data_doubles(work->capacity) : 0) + work->multigrid_capacity) * sizeof(double) +
           op_sparse_workspace_bytes(&work->coarse);
}

void op_cg_workspace_free(op_cg_workspace *work)
{
    free(work->multigrid);
    op_sparse_workspace_free(&work->coarse);
    free(work->data);
    int threads = work->threads;
    memset(work, 0, sizeof *work);
    work->threads = threads;
}

typedef struct column_dots {
    const double *a, *b;
    double (*block_sums)[3];
} column_dots;

/* Each block's sums of rows [first, end) (whole blocks) into block_sums. */
static void block_dots(void *context, int first, int end)
{
    const column_dots *d = context;
    for (int block_first = first; block_first < end; block_first += OP_CG_BLOCK_ROWS) {
        int block_end = block_first + OP_CG_BLOCK_ROWS < end ? block_first + OP_CG_BLOCK_ROWS : end;
        double sum[3] = { 0.0, 0.0, 0.0 };
        for (int i = block_first; i < block_end; ++i)
            for (int c = 0; c < 3; ++c)
                sum[c] += d->a[3 * i + c] * d->b[3 * i + c];
        for (int c = 0; c < 3; ++c)
            d->block_sums[block_first / OP_CG_BLOCK_ROWS][c] = sum[c];
    }
}

/* out = the blocks' sums of n rows (block_sums), added in ascending order */
static void add_block_sums(const op_cg_workspace *work, int n, double out[3])
{
    double sum[3] = { 0.0, 0.0, 0.0 };
    for (int k = 0; k < (n + OP_CG_BLOCK_ROWS - 1) / OP_CG_BLOCK_ROWS; ++k)
        for (int c = 0; c < 3; ++c)
            sum[c] += work->block_sums[k][c];
    for (int c = 0; c < 3; ++c)
        out[c] = sum[c];
}

void op_cg_column_dots(const op_cg_workspace *work, const double *a, const double *b, int n, double out[3])
{
    column_dots d = { a, b, work->block_sums };
    op_cg_share_rows(work->team, n, block_dots, &d);
    add_block_sums(work, n, out);
}

/* z = (L Lᵀ)⁻¹ r, all three columns in one pass over L's entries (a finished column's z is
 * computed and not used): L y = r forward by rows, then Lᵀ z = y backward by L's rows (each
 * solved z_i taken out of the rows above it), in place in z. */
static void precondition_ic0(const op_sparse_matrix *a, const double *r, double *z)
{
    const int *start = a->lower_start, *column = a->lower_column;
    const double *value = a->lower_value;
    for (int i = 0; i < a->n; ++i) {
        int diagonal = start[i + 1] - 1;
        double sum[3] = { r[3 * i], r[3 * i + 1], r[3 * i + 2] };
        for (int p = start[i]; p < diagonal; ++p) {
            const double *zj = &z[3 * column[p]];
            for (int c = 0; c < 3; ++c)
                sum[c] -= value[p] * zj[c];
        }
        for (int c = 0; c < 3; ++c)
            z[3 * i + c] = sum[c] / value[diagonal];
    }
    for (int i = a->n - 1; i >= 0; --i) {
        int diagonal = start[i + 1] - 1;
        double zi[3];
        for (int c = 0; c < 3; ++c)
            zi[c] = z[3 * i + c] = z[3 * i + c] / value[diagonal];
        for (int p = start[i]; p < diagonal; ++p) {
            double *zj = &z[3 * column[p]];
            for (int c = 0; c < 3; ++c)
                zj[c] -= value[p] * zi[c];
        }
    }
}

typedef struct jacobi {
    const double *inverse_diagonal, *r;
    double *z;
    int active[3];
} jacobi;

/* z = D⁻¹ r over rows [first, end) in the active columns */
static void precondition_jacobi(void *context, int first, int end)
{
    const jacobi *j = context;
    for (int i = first; i < end; ++i)
        for (int c = 0; c < 3; ++c)
            if (j->active[c])
                j->z[3 * i + c] = j->inverse_diagonal[i] * j->r[3 * i + c];
}

/* z = M⁻¹ r in the active columns: M = L Lᵀ with IC(0), AMG's V-cycle (all three columns), else
 * D (Jacobi) */
static void precondition(const op_sparse_matrix *a, op_cg_workspace *work, const double *r, double *z,
                         const int active[3])
{
    if (a->amg) {
        op_sparse_amg_apply(a->amg, work, r, z);
        return;
    }
    if (a->lower_value) {
        precondition_ic0(a, r, z);
        return;
    }
    jacobi j = { a->inverse_diagonal, r, z, { active[0], active[1], active[2] } };
    op_cg_share_rows(work->team, a->n, precondition_jacobi, &j);
}

/* active[c] = active[c] and rr[c] > limit[c]; returns how many are. */
static int stop_converged(const double rr[3], const double limit[3], int active[3])
{
    int count = 0;
    for (int c = 0; c < 3; ++c) {
        active[c] = active[c] && rr[c] > limit[c];
        count += active[c];
    }
    return count;
}

/* The columns whose residual is not yet small enough: active[c] = ‖r_c‖² > limit[c]; returns
 * how many. */
int op_cg_still_active(const op_cg_workspace *work, const double *r, int n, const double limit[3], int active[3])
{
    double rr[3];
    op_cg_column_dots(work, r, r, n, rr);
    return stop_converged(rr, limit, active);
}

/* The checks of op_sparse_cg3's arguments */
static int check_cg(op_ctx *ctx, const op_sparse_matrix *a, const op_cg_workspace *work, const double *rhs,
                    const double *x, double tolerance)
{
    if (!a || !work || !rhs || !x)
        return OP_FAIL(ctx, OP_ERR_INVALID, "conjugate gradients: %s is NULL",
                       !a ? "matrix" : !work ? "workspace" : !rhs ? "right-hand side" : "guess");
    if (work->capacity < a->n)
        return OP_FAIL(ctx, OP_ERR_INVALID, "conjugate gradients: workspace for %d rows, matrix of %d",
                       work->capacity, a->n);
    if (a->amg && !op_sparse_amg_workspace_fits(a->amg, work))
        return OP_FAIL(ctx, OP_ERR_INVALID, "conjugate gradients: workspace not reserved for the matrix's AMG "
                       "(op_cg_workspace_reserve)");
    if (!(tolerance > 0.0 && tolerance < 1.0))
        return OP_FAIL(ctx, OP_ERR_INVALID, "conjugate gradients: tolerance %g outside (0, 1)", tolerance);
    return OP_OK;
}

typedef struct cg_update {
    const double *q, *z;
    double *x, *r, *p;
    double alpha[3], beta[3];
    int active[3];
    double (*block_sums)[3];
} cg_update;

/* x += α p and r −= α q over rows [first, end) (whole blocks) in the active columns, and each
 * block's ‖r‖² into block_sums (op_cg_column_dots' blocks and order). */
static void update_x_r(void *context, int first, int end)
{
    const cg_update *u = context;
    for (int block_first = first; block_first < end; block_first += OP_CG_BLOCK_ROWS) {
        int block_end = block_first + OP_CG_BLOCK_ROWS < end ? block_first + OP_CG_BLOCK_ROWS : end;
        double sum[3] = { 0.0, 0.0, 0.0 };
        for (int i = block_first; i < block_end; ++i)
            for (int c = 0; c < 3; ++c) {
                if (u->active[c]) {
                    u->x[3 * i + c] += u->alpha[c] * u->p[3 * i + c];
                    u->r[3 * i + c] -= u->alpha[c] * u->q[3 * i + c];
                }
                sum[c] += u->r[3 * i + c] * u->r[3 * i + c];
            }
        for (int c = 0; c < 3; ++c)
            u->block_sums[block_first / OP_CG_BLOCK_ROWS][c] = sum[c];
    }
}

/* p = z + β p over rows [first, end) in the active columns */
static void update_p(void *context, int first, int end)
{
    const cg_update *u = context;
    for (int i = first; i < end; ++i)
        for (int c = 0; c < 3; ++c)
            if (u->active[c])
                u->p[3 * i + c] = u->z[3 * i + c] + u->beta[c] * u->p[3 * i + c];
}

/* One conjugate-gradient step of the active columns from p (q = A p already made): x += α p,
 * r −= α q, then, for the columns still active, z = M⁻¹ r and p = z + β p. Returns the
 * active count, or −1 on a breakdown (pᵀ A p not positive: A is not positive definite). */
static int cg_step(const op_sparse_matrix *a, op_cg_workspace *work, double *x, double *r, double *z, double *p,
                   const double *q, double rz[3], const double limit[3], int active[3])
{
    int n = a->n;
    double pq[3];
    cg_update u = { .q = q, .z = z, .x = x, .r = r, .p = p, .block_sums = work->block_sums };
    op_cg_column_dots(work, p, q, n, pq);
    for (int c = 0; c < 3; ++c) {
        u.active[c] = active[c];
        if (active[c]) {
            if (!(pq[c] > 0.0))
                return -1;
            u.alpha[c] = rz[c] / pq[c];
        }
    }
    op_cg_share_rows(work->team, n, update_x_r, &u);
    double rr[3];
    add_block_sums(work, n, rr);
    if (stop_converged(rr, limit, active) == 0)
        return 0;
    double rz_next[3];
    precondition(a, work, r, z, active);
    op_cg_column_dots(work, r, z, n, rz_next);
    for (int c = 0; c < 3; ++c) {
        u.active[c] = active[c];
        u.beta[c] = active[c] ? rz_next[c] / rz[c] : 0.0;
        rz[c] = rz_next[c];
    }
    op_cg_share_rows(work->team, n, update_p, &u);
    return active[0] + active[1] + active[2];
}

/* The failure after max_iterations, naming the first column still active and its residual r. */
int op_cg_not_converged(op_ctx *ctx, const op_cg_workspace *work, const double *r, int n, const double bb[3],
                        const double limit[3], const int active[3], int max_iterations)
{
    double rr[3];
    op_cg_column_dots(work, r, r, n, rr);
    int c = active[0] ? 0 : active[1] ? 1 : 2;
    return OP_FAIL(ctx, OP_ERR_INVALID,
                   "conjugate gradients: column %d not converged after %d iterations (relative residual %.3g, "
                   "tolerance %g)", c, max_iterations, sqrt(rr[c] / bb[c]), sqrt(limit[c] / bb[c]));
}

int op_cg_breakdown(op_ctx *ctx, int iterations)
{
    return OP_FAIL(ctx, OP_ERR_INVALID,
                   "conjugate gradients: breakdown after %d iterations (the matrix is not positive definite)",
                   iterations);
}

static int check_finite(op_ctx *ctx, const double *x, int n)
{
    for (int i = 0; i < 3 * n; ++i)
        if (!isfinite(x[i]))
            return OP_FAIL(ctx, OP_ERR_INVALID,
                           "conjugate gradients: solution row %d is not finite (a non-finite right-hand side?)", i / 3);
    return OP_OK;
}

int op_sparse_cg3(op_ctx *ctx, const op_sparse_matrix *matrix, op_cg_workspace *work, const double *rhs, double *x,
                  double tolerance, int max_iterations, int *iterations)
{
    *iterations = 0;
    if (check_cg(ctx, matrix, work, rhs, x, tolerance) != OP_OK)
        return ctx->status;
    int n = matrix->n;
    /* DIC's passes run row after row: of its solve only the sums could be shared */
    work->team = matrix->dic_diagonal ? 1 : op_cg_team(work);
    double *r = work->data, *z = r + 3 * (size_t)n, *p = z + 3 * (size_t)n, *q = p + 3 * (size_t)n;
    double bb[3], limit[3], rz[3];
    int active[3];
    op_cg_column_dots(work, rhs, rhs, n, bb);
    for (int c = 0; c < 3; ++c) {
        limit[c] = tolerance * tolerance * bb[c];
        active[c] = bb[c] > 0.0;
        if (!active[c]) /* B's column is zero: so is the solution, exactly */
            for (int i = 0; i < n; ++i)
                x[3 * i + c] = 0.0;
    }
    if (matrix->dic_diagonal)
        return op_cg_eisenstat(ctx, matrix, work, rhs, x, bb, limit, active, max_iterations, iterations) != OP_OK
                   ? ctx->status
                   : check_finite(ctx, x, n);
    times3(matrix, work, x, q);
    for (size_t k = 0; k < 3 * (size_t)n; ++k)
        r[k] = rhs[k] - q[k];
    int count = op_cg_still_active(work, r, n, limit, active);
    memset(z, 0, 3 * (size_t)n * sizeof *z); /* the finished columns' p stays zero */
    precondition(matrix, work, r, z, active);
    op_cg_column_dots(work, r, z, n, rz);
    memcpy(p, z, 3 * (size_t)n * sizeof *p);
    while (count > 0) {
        if (*iterations >= max_iterations)
            return op_cg_not_converged(ctx, work, r, n, bb, limit, active, max_iterations);
        times3(matrix, work, p, q);
        ++*iterations;
        count = cg_step(matrix, work, x, r, z, p, q, rz, limit, active);
        if (count < 0)
            return op_cg_breakdown(ctx, *iterations);
    }
    return check_finite(ctx, x, n);
}
