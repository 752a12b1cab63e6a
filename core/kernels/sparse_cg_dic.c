/* sparse_cg.h's DIC preconditioner: the diagonal incomplete Cholesky factor of the held matrix,
 * and conjugate gradients preconditioned by it through Eisenstat's trick. */
#include "kernels/sparse_cg.h"
#include "kernels/sparse_cg_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* d̃_i = a_ii − Σ_{j<i} a_ij² / d̃_j over row i's entries left of the diagonal, ascending j. */
static int dic_rows(op_ctx *ctx, op_sparse_matrix *a)
{
    for (int i = 0; i < a->n; ++i) {
        double pivot = 0.0, diagonal = 0.0;
        for (int p = a->row_start[i]; p < a->row_start[i + 1] && a->column[p] <= i; ++p)
            if (a->column[p] < i)
                pivot -= a->value[p] * a->value[p] / a->dic_diagonal[a->column[p]];
            else
                diagonal = a->value[p];
        pivot += diagonal;
        if (!(pivot > 0.0))
            return OP_FAIL(ctx, OP_ERR_INVALID, "diagonal incomplete Cholesky: pivot of row %d is %g, not positive",
                           i, pivot);
        a->dic_diagonal[i] = pivot;
        a->dic_correction[i] = diagonal - 2.0 * pivot;
    }
    return OP_OK;
}

int op_sparse_matrix_factor_dic(op_ctx *ctx, op_sparse_matrix *matrix)
{
    op_sparse_matrix_drop_preconditioner(matrix);
    matrix->dic_diagonal = op_calloc(ctx, (size_t)matrix->n + 1, sizeof(double));
    matrix->dic_correction = op_calloc(ctx, (size_t)matrix->n + 1, sizeof(double));
    if (ctx->status != OP_OK || dic_rows(ctx, matrix) != OP_OK) {
        op_sparse_matrix_drop_preconditioner(matrix);
        return ctx->status;
    }
    return OP_OK;
}

/* ---- DIC by Eisenstat's trick ----
 *
 * With T = D̃ + L (L: A's strict lower triangle) the preconditioner is M = T D̃⁻¹ Tᵀ, and CG on
 * A x = b preconditioned by M is CG on T⁻¹ A T⁻ᵀ y = T⁻¹ b preconditioned by D̃⁻¹, x = T⁻ᵀ y.
 * As A = T + Tᵀ + (D − 2 D̃), the product T⁻¹ A T⁻ᵀ p is w + T⁻¹ (p + (D − 2 D̃) w) with
 * w = T⁻ᵀ p: two triangular passes over L, no product with A (Eisenstat 1981). x follows as
 * x += α w. The residual tracked is r̂ = T⁻¹ r; the stopping test stays the true one on r = T r̂,
 * made when ‖r̂‖ times the last measured ‖r‖ / ‖r̂‖ says it may pass. */

/* The three columns go through each pass over L's entries together; a finished column's values
 * are computed and not used. */

/* y = T⁻¹ y in place, rows ascending. */
static void dic_forward(const op_sparse_matrix *a, double *y)
{
    for (int i = 0; i < a->n; ++i) {
        double sum[3] = { y[3 * i], y[3 * i + 1], y[3 * i + 2] };
        for (int p = a->row_start[i]; a->column[p] < i; ++p) {
            const double *yj = &y[3 * a->column[p]];
            for (int c = 0; c < 3; ++c)
                sum[c] -= a->value[p] * yj[c];
        }
        for (int c = 0; c < 3; ++c)
            y[3 * i + c] = sum[c] / a->dic_diagonal[i];
    }
}

/* y = T⁻ᵀ y in place, rows descending (each solved y_i taken out of the rows it couples to
 * above). */
static void dic_backward(const op_sparse_matrix *a, double *y)
{
    for (int i = a->n - 1; i >= 0; --i) {
        double yi[3];
        for (int c = 0; c < 3; ++c)
            yi[c] = y[3 * i + c] = y[3 * i + c] / a->dic_diagonal[i];
        for (int p = a->row_start[i]; a->column[p] < i; ++p) {
            double *yj = &y[3 * a->column[p]];
            for (int c = 0; c < 3; ++c)
                yj[c] -= a->value[p] * yi[c];
        }
    }
}

/* out = T v (the true residual from r̂). */
static void dic_lower_times(const op_sparse_matrix *a, const double *v, double *out)
{
    for (int i = 0; i < a->n; ++i) {
        double sum[3];
        for (int c = 0; c < 3; ++c)
            sum[c] = a->dic_diagonal[i] * v[3 * i + c];
        for (int p = a->row_start[i]; a->column[p] < i; ++p) {
            const double *vj = &v[3 * a->column[p]];
            for (int c = 0; c < 3; ++c)
                sum[c] += a->value[p] * vj[c];
        }
        for (int c = 0; c < 3; ++c)
            out[3 * i + c] = sum[c];
    }
}

/* Of the active columns whose predicted ‖r‖² (‖r̂‖² times ratio) is within limit, the true
 * ‖r‖² = ‖T r̂‖² (into scratch), ratio updated and the column stopped if it passes; returns the
 * active count. */
static int dic_still_active(const op_sparse_matrix *a, const op_cg_workspace *work, const double *r_hat,
                            double *scratch, const double limit[3], double ratio[3], int active[3])
{
    double hat[3], rr[3];
    int check[3], checking = 0;
    op_cg_column_dots(work, r_hat, r_hat, a->n, hat);
    for (int c = 0; c < 3; ++c) {
        check[c] = active[c] && hat[c] * ratio[c] <= limit[c];
        checking += check[c];
    }
    if (checking) {
        dic_lower_times(a, r_hat, scratch);
        op_cg_column_dots(work, scratch, scratch, a->n, rr);
        for (int c = 0; c < 3; ++c)
            if (check[c]) {
                ratio[c] = hat[c] > 0.0 ? rr[c] / hat[c] : ratio[c];
                active[c] = rr[c] > limit[c];
            }
    }
    return active[0] + active[1] + active[2];
}

/* p = D̃ r̂ + β p in the active columns (β = 0: the start), rz = r̂ᵀ D̃ r̂ updated. */
static void dic_direction(const op_sparse_matrix *a, const double *r_hat, double *p, double rz[3], int start,
                          const int active[3])
{
    double next[3] = { 0.0, 0.0, 0.0 }, beta[3];
    for (int i = 0; i < a->n; ++i)
        for (int c = 0; c < 3; ++c)
            next[c] += r_hat[3 * i + c] * a->dic_diagonal[i] * r_hat[3 * i + c];
    for (int c = 0; c < 3; ++c) {
        beta[c] = start || !active[c] ? 0.0 : next[c] / rz[c];
        if (active[c])
            rz[c] = next[c];
    }
    for (int i = 0; i < a->n; ++i)
        for (int c = 0; c < 3; ++c)
            if (active[c])
                p[3 * i + c] = a->dic_diagonal[i] * r_hat[3 * i + c] + beta[c] * p[3 * i + c];
}

/* q = T⁻¹ A T⁻ᵀ p with w = T⁻ᵀ p. */
static void dic_product(const op_sparse_matrix *a, const double *p, double *w, double *q)
{
    size_t count = 3 * (size_t)a->n;
    memcpy(w, p, count * sizeof *w);
    dic_backward(a, w);
    for (int i = 0; i < a->n; ++i)
        for (int c = 0; c < 3; ++c)
            q[3 * i + c] = p[3 * i + c] + a->dic_correction[i] * w[3 * i + c];
    dic_forward(a, q);
    for (size_t k = 0; k < count; ++k)
        q[k] += w[k];
}

int op_cg_eisenstat(op_ctx *ctx, const op_sparse_matrix *a, op_cg_workspace *work, const double *rhs, double *x,
                        const double bb[3], const double limit[3], int active[3], int max_iterations, int *iterations)
{
    int n = a->n;
    double *r = work->data, *w = r + 3 * (size_t)n, *p = w + 3 * (size_t)n, *q = p + 3 * (size_t)n;
    double rz[3] = { 0.0, 0.0, 0.0 }, ratio[3] = { 0.0, 0.0, 0.0 }, pq[3], alpha[3];
    op_sparse_matrix_times3(a, x, q);
    for (size_t k = 0; k < 3 * (size_t)n; ++k)
        r[k] = rhs[k] - q[k];
    int count = op_cg_still_active(work, r, n, limit, active);
    double rr[3], hat[3];
    op_cg_column_dots(work, r, r, n, rr);
    dic_forward(a, r);
    op_cg_column_dots(work, r, r, n, hat);
    for (int c = 0; c < 3; ++c)
        ratio[c] = hat[c] > 0.0 ? rr[c] / hat[c] : 0.0;
    memset(p, 0, 3 * (size_t)n * sizeof *p); /* the finished columns' p stays zero */
    dic_direction(a, r, p, rz, 1, active);
    while (count > 0) {
        if (*iterations >= max_iterations) {
            dic_lower_times(a, r, q);
            return op_cg_not_converged(ctx, work, q, n, bb, limit, active, max_iterations);
        }
        dic_product(a, p, w, q);
        ++*iterations;
        op_cg_column_dots(work, p, q, n, pq);
        for (int c = 0; c < 3; ++c) {
            if (active[c] && !(pq[c] > 0.0))
                return op_cg_breakdown(ctx, *iterations);
            alpha[c] = active[c] ? rz[c] / pq[c] : 0.0;
        }
        for (int i = 0; i < n; ++i)
            for (int c = 0; c < 3; ++c)
                if (active[c]) {
                    x[3 * i + c] += alpha[c] * w[3 * i + c];
                    r[3 * i + c] -= alpha[c] * q[3 * i + c];
                }
        count = dic_still_active(a, work, r, q, limit, ratio, active);
        if (count > 0)
            dic_direction(a, r, p, rz, 0, active);
    }
    return OP_OK;
}
