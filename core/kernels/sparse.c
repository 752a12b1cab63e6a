/* The CHOLMOD wrapper behind sparse.h: triplet assembly, a simplicial LDLᵀ factor made with a
 * cholmod_common of its own and copied out of CHOLMOD, the positive-definiteness check CHOLMOD's
 * LDLᵀ does not make, the factor's reference count, and the three-column solve on the copy with
 * the caller's workspace, its substitutions written once over lanes (kernels/substitute_lanes.h)
 * and instantiated here for each width: no intrinsic in this file. */
#include "kernels/sparse.h"
#include "kernels/lanes.h"
#include "kernels/simd.h"

#include <cholmod.h>
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* A pivot D(k) of the LDLᵀ factor must exceed this times n times the matrix's own diagonal entry
 * A(k, k). CHOLMOD's LDLᵀ stops only at an exactly zero pivot, so a singular matrix (a graph
 * Laplacian with no mass term) mostly comes through with a last pivot of rounding size and
 * either sign: at most 0.7·n·ε·A(k, k) over 2,000 random Laplacians of 1 to 5,000 nodes, 45
 * times below this bound. For an SPD matrix D(k) ≥ A(k, k)/cond(A), so the check rejects only
 * matrices with a condition number above 1/(PIVOT_TOL·n), where a solve has next to no correct
 * digit left anyway. */
#define PIVOT_TOL (32.0 * DBL_EPSILON)

/* From this many rows up, METIS's nested dissection is tried beside AMD and CHOLMOD keeps the
 * order with the smaller factor. On one connected random geometric body of 4.1 edges a node
 * (bench_sparse -n N) AMD's L has 17,658 nonzeros at 1,000 nodes (METIS 19,672) but 1,012,830 at
 * 16,000 (METIS 697,003, 31 % fewer; the solve's work is proportional to them). Below, CHOLMOD's
 * default strategy is kept as it was, so that every body of the paper's scenes (at most 4,120
 * particles) keeps its factor, and its bits. METIS orders the same graph the same way on every
 * run (its seed is fixed) and on one thread. */
enum { NESTED_DISSECTION_MIN_ROWS = 8000 };

/* The simplicial LDLᵀ factor copied out of CHOLMOD for op_sparse_solve3's own triangular solves:
 * L below the diagonal by columns (column j at [column_start[j], column_start[j + 1]) of row and
 * value) and by rows (row i at [row_start[i], row_start[i + 1]) of column and row_value,
 * ascending), D(j) in pivot[j]. Both triangular solves run row by row of their triangle, summing
 * in registers, so that no entry of the solution waits on a chain of stores to itself. Nothing
 * of CHOLMOD is kept: once made, the factor is only read. */
struct op_sparse_factor {
    int *perm, *column_start, *row, *row_start, *column;
    double *value, *row_value, *pivot;
    int n;
    long nonzeros;
    atomic_int holders; /* op_sparse_factor_retain / op_sparse_factor_free */
};

static const char *cholmod_status_text(int status)
{
    switch (status) {
    case CHOLMOD_OK: return "ok";
    case CHOLMOD_NOT_INSTALLED: return "method not installed";
    case CHOLMOD_OUT_OF_MEMORY: return "out of memory";
    case CHOLMOD_TOO_LARGE: return "problem too large";
    case CHOLMOD_INVALID: return "invalid input";
    case CHOLMOD_GPU_PROBLEM: return "GPU failure";
    case CHOLMOD_NOT_POSDEF: return "matrix not positive definite";
    case CHOLMOD_DSMALL: return "tiny pivot";
    }
    return "unknown status";
}

/* Turns a CHOLMOD failure of `call` into the context's error. */
static int cholmod_failure(op_ctx *ctx, const cholmod_common *c, const char *call)
{
    op_status status = c->status == CHOLMOD_OUT_OF_MEMORY ? OP_ERR_NOMEM : OP_ERR_LIBRARY;
    return OP_FAIL(ctx, status, "CHOLMOD %s failed: %s (status %d)", call,
                   cholmod_status_text(c->status), c->status);
}

int op_sparse_check_triplets(op_ctx *ctx, int n, int count, const int *rows, const int *cols, const double *values)
{
    if (n < 1)
        return OP_FAIL(ctx, OP_ERR_INVALID, "sparse matrix size %d: must be at least 1", n);
    if (count < 0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "sparse matrix entry count %d: must not be negative", count);
    if (count > 0 && (!rows || !cols || !values))
        return OP_FAIL(ctx, OP_ERR_INVALID, "sparse matrix: %d entries but no arrays given", count);
    for (int t = 0; t < count; ++t) {
        if (rows[t] < 0 || rows[t] >= n || cols[t] < 0 || cols[t] >= n)
            return OP_FAIL(ctx, OP_ERR_INVALID,
                           "sparse matrix entry %d at (%d, %d): index out of range for size %d", t,
                           rows[t], cols[t], n);
        if (!isfinite(values[t]))
            return OP_FAIL(ctx, OP_ERR_INVALID, "sparse matrix entry %d at (%d, %d): value %g is not finite",
                           t, rows[t], cols[t], values[t]);
    }
    return OP_OK;
}

/* *a = the upper triangle of A as a packed, sorted CHOLMOD matrix with duplicates summed;
 * diag[i] receives A(i, i). */
static int assemble(op_ctx *ctx, cholmod_common *c, int n, int count, const int *rows, const int *cols,
                    const double *values, double *diag, cholmod_sparse **a)
{
    cholmod_triplet *t = cholmod_allocate_triplet((size_t)n, (size_t)n, (size_t)count, 1, CHOLMOD_REAL, c);
    if (!t)
        return cholmod_failure(ctx, c, "cholmod_allocate_triplet");
    int *ti = t->i, *tj = t->j;
    double *tx = t->x;
    for (int k = 0; k < count; ++k) {
        /* stype 1 keeps only the upper triangle: an entry given in the lower one is mirrored
         * rather than dropped. */
        int lo = rows[k] < cols[k] ? rows[k] : cols[k], hi = rows[k] < cols[k] ? cols[k] : rows[k];
        ti[k] = lo;
        tj[k] = hi;
        tx[k] = values[k];
        if (lo == hi)
            diag[lo] += values[k];
    }
    t->nnz = (size_t)count;
    *a = cholmod_triplet_to_sparse(t, (size_t)count, c);
    cholmod_free_triplet(&t, c);
    return *a ? OP_OK : cholmod_failure(ctx, c, "cholmod_triplet_to_sparse");
}

/* A positive definite matrix has a positive diagonal: the cheapest check, made before
 * factoring. */
static int check_diagonal(op_ctx *ctx, int n, const double *diag)
{
    for (int j = 0; j < n; ++j)
        if (!(diag[j] > 0.0))
            return OP_FAIL(ctx, OP_ERR_INVALID,
                           "matrix is not positive definite (column %d: diagonal entry %g)", j, diag[j]);
    return OP_OK;
}

/* CHOLMOD flags only a zero pivot (L->minor); a negative or rounding-size one has to be found
 * in D, the diagonal of the simplicial LDLᵀ factor. Columns are reported in the caller's
 * numbering, not the fill-reducing order's. */
static int check_pivots(op_ctx *ctx, const cholmod_factor *L, const double *diag)
{
    const int *perm = L->Perm, *lp = L->p;
    const double *lx = L->x;
    int n = (int)L->n;
    if (L->minor < L->n)
        return OP_FAIL(ctx, OP_ERR_INVALID, "matrix is not positive definite (column %d: zero pivot)",
                       perm[L->minor]);
    double tol = PIVOT_TOL * n;
    for (int k = 0; k < n; ++k) {
        int j = perm[k];
        double d = lx[lp[k]];
        if (!(d > tol * diag[j]))
            return OP_FAIL(ctx, OP_ERR_INVALID,
                           "matrix is not positive definite (column %d: pivot %g for diagonal entry %g)",
                           j, d, diag[j]);
    }
    return OP_OK;
}

/* Copies L's columns out of CHOLMOD (see the struct); L is a simplicial LDLᵀ. */
static int copy_factor(op_ctx *ctx, op_sparse_factor *f, const cholmod_factor *L)
{
    int n = f->n;
    const int *lp = L->p, *li = L->i, *lnz = L->nz, *perm = L->Perm;
    const double *lx = L->x;
    long below = 0;
    for (int j = 0; j < n; ++j)
        below += lnz[j] - 1;
    size_t entries = (size_t)(below ? below : 1);
    f->perm = op_calloc(ctx, (size_t)n, sizeof(int));
    f->column_start = op_calloc(ctx, (size_t)n + 1, sizeof(int));
    f->row = op_calloc(ctx, entries, sizeof(int));
    f->value = op_calloc(ctx, entries, sizeof(double));
    f->row_start = op_calloc(ctx, (size_t)n + 1, sizeof(int));
    f->column = op_calloc(ctx, entries, sizeof(int));
    f->row_value = op_calloc(ctx, entries, sizeof(double));
    f->pivot = op_calloc(ctx, (size_t)n, sizeof(double));
    int *fill = op_calloc(ctx, (size_t)n, sizeof(int));
    if (ctx->status != OP_OK) {
        free(fill);
        return ctx->status;
    }
    int count = 0;
    for (int j = 0; j < n; ++j) {
        f->perm[j] = perm ? perm[j] : j;
        f->pivot[j] = lx[lp[j]];
        f->column_start[j] = count;
        for (int p = lp[j] + 1; p < lp[j] + lnz[j]; ++p) {
            f->row[count] = li[p];
            f->value[count++] = lx[p];
        }
    }
    f->column_start[n] = count;
    for (int p = 0; p < count; ++p)
        f->row_start[f->row[p] + 1]++;
    for (int i = 0; i < n; ++i)
        f->row_start[i + 1] += f->row_start[i];
    /* columns in ascending order, so each row's entries ascend */
    for (int j = 0; j < n; ++j)
        for (int p = f->column_start[j]; p < f->column_start[j + 1]; ++p) {
            int i = f->row[p], slot = f->row_start[i] + fill[i]++;
            f->column[slot] = j;
            f->row_value[slot] = f->value[p];
        }
    free(fill);
    return OP_OK;
}

int op_sparse_factor_create(op_ctx *ctx, int n, int count, const int *rows, const int *cols, const double *values,
                            op_sparse_factor **factor)
{
    *factor = NULL;
    int status = op_sparse_check_triplets(ctx, n, count, rows, cols, values);
    if (status != OP_OK)
        return status;
    op_sparse_factor *f = op_calloc(ctx, 1, sizeof *f);
    double *diag = op_calloc(ctx, (size_t)n, sizeof *diag);
    if (!f || !diag) {
        free(f);
        free(diag);
        return OP_ERR_NOMEM;
    }
    f->n = n;
    atomic_init(&f->holders, 1);
    /* One cholmod_common per factorisation, not one per process: CHOLMOD keeps workspace and
     * status in it, so factors can be made on several threads at once. */
    cholmod_common common, *c = &common;
    cholmod_start(c);
    /* Core never prints; every failure is read from c->status instead. */
    c->print = 0;
    /* Simplicial LDLᵀ rather than the supernodal LLᵀ CHOLMOD would choose: 4–5× faster
     * 3-column solves at 100–500 nodes and on the 52-body scene, under 2× on one connected
     * 4,120-node graph (bench_sparse); the supernodal solve is also BLAS's, whose threads may
     * split sums differently from one run to the next, where this solve is opsim's own. The
     * fill-reducing order stays CHOLMOD's default below NESTED_DISSECTION_MIN_ROWS, AMD (METIS
     * only where AMD fills badly): the natural order, even numbered in voxel scan order, gave
     * 1.4–8× slower solves at every size measured. */
    c->supernodal = CHOLMOD_SIMPLICIAL;
    c->final_ll = 0;
    if (n >= NESTED_DISSECTION_MIN_ROWS) {
        c->nmethods = 2;
        c->method[0].ordering = CHOLMOD_AMD;
        c->method[1].ordering = CHOLMOD_METIS;
    }

    cholmod_sparse *a = NULL;
    cholmod_factor *L = NULL;
    status = assemble(ctx, c, n, count, rows, cols, values, diag, &a);
    if (status == OP_OK)
        status = check_diagonal(ctx, n, diag);
    if (status == OP_OK) {
        L = cholmod_analyze(a, c);
        if (!L || c->status < CHOLMOD_OK)
            status = cholmod_failure(ctx, c, "cholmod_analyze");
    }
    /* cholmod_factorize returns TRUE for a matrix that is not positive definite: the status and
     * the pivots say. */
    if (status == OP_OK && (!cholmod_factorize(a, L, c) || c->status < CHOLMOD_OK))
        status = cholmod_failure(ctx, c, "cholmod_factorize");
    /* The pivot check and the solve read L as a simplicial LDLᵀ, which is what was asked for;
     * anything else is CHOLMOD not doing as told, not bad input. */
    if (status == OP_OK && (L->is_super || L->is_ll || L->xtype != CHOLMOD_REAL))
        status = OP_FAIL(ctx, OP_ERR_LIBRARY, "CHOLMOD returned a %s factor where a real simplicial LDL' one was "
                         "asked for", L->is_super ? "supernodal" : L->is_ll ? "simplicial LL'" : "complex");
    if (status == OP_OK)
        status = check_pivots(ctx, L, diag);
    if (status == OP_OK) {
        f->nonzeros = (long)c->lnz;
        status = copy_factor(ctx, f, L);
    }
    cholmod_free_sparse(&a, c);
    cholmod_free_factor(&L, c);
    cholmod_finish(c);
    free(diag);
    if (status != OP_OK) {
        op_sparse_factor_free(&f);
        return status;
    }
    *factor = f;
    return OP_OK;
}

op_sparse_factor *op_sparse_factor_retain(op_sparse_factor *factor)
{
    atomic_fetch_add_explicit(&factor->holders, 1, memory_order_relaxed);
    return factor;
}

void op_sparse_factor_free(op_sparse_factor **factor)
{
    if (!factor || !*factor)
        return;
    op_sparse_factor *f = *factor;
    *factor = NULL;
    /* acquire-release: the last holder sees every other holder done with the factor */
    if (atomic_fetch_sub_explicit(&f->holders, 1, memory_order_acq_rel) != 1)
        return;
    free(f->perm);
    free(f->column_start);
    free(f->row);
    free(f->value);
    free(f->row_start);
    free(f->column);
    free(f->row_value);
    free(f->pivot);
    free(f);
}

int op_sparse_workspace_reserve(op_ctx *ctx, op_sparse_workspace *work, const op_sparse_factor *factor)
{
    if (work->capacity >= factor->n)
        return OP_OK;
    double *data = op_calloc(ctx, 8 * (size_t)factor->n, sizeof(double));
    if (!data)
        return ctx->status;
    free(work->data);
    work->data = data;
    work->capacity = factor->n;
    return OP_OK;
}

void op_sparse_workspace_free(op_sparse_workspace *work)
{
    free(work->data);
    memset(work, 0, sizeof *work);
}

/* ldl_solve3's two substitutions, written once over lanes (kernels/substitute_lanes.h) and
 * entered here for each width: one solve with x and y in one SSE2 register, z and the pad in
 * another (or column by column in the scalar build); where the CPU has AVX, one solve with the
 * three columns and the pad in one register, and four solves side by side, each one's
 * operations exactly as alone; where it has AVX-512, the four two a register, w[h] and v[h]
 * holding solves 2h and 2h + 1 interleaved, [n][2][4], for half the loads, multiplies and
 * subtractions. Each lane's operations are in the same order at every width, so the same bits. */
#if OP_LANES2
#define LANE op_lanes2
#define LANES 2
#define L(op) op2_##op
#else
#define LANE op_lanes1
#define LANES 1
#define L(op) op1_##op
#endif
#define LANES_NAME(name) name##_narrow
#define STREAMS 1
#include "kernels/substitute_lanes.h"

static void substitute(const op_sparse_factor *f, double *rhs, double *w, double *v)
{
    substitute_narrow(f, &rhs, &w, &v);
}

#if OP_SIMD_AVX
OP_SIMD_AVX_BEGIN
#define LANE op_lanes4
#define LANES 4
#define LANES_NAME(name) name##_lanes4
#define L(op) op4_##op
#define STREAMS 1
#include "kernels/substitute_lanes.h"

static void substitute_avx(const op_sparse_factor *f, double *rhs, double *w, double *v)
{
    substitute_lanes4(f, &rhs, &w, &v);
}

#define LANE op_lanes4
#define LANES 4
#define LANES_NAME(name) name##4_lanes4
#define L(op) op4_##op
#define STREAMS 4
#include "kernels/substitute_lanes.h"

static void substitute4_avx(const op_sparse_factor *f, double *const rhs[4], double *const w[4], double *const v[4])
{
    substitute4_lanes4(f, rhs, w, v);
}
OP_SIMD_AVX_END

OP_SIMD_AVX512_BEGIN
#define LANE op_lanes8
#define LANES 8
#define LANES_NAME(name) name##4_lanes8
#define L(op) op8_##op
#define STREAMS 2
#include "kernels/substitute_lanes.h"

static void substitute4_avx512(const op_sparse_factor *f, double *const rhs[4], double *const w[2], double *const v[2])
{
    substitute4_lanes8(f, rhs, w, v);
}
OP_SIMD_AVX_END
#endif

/* x = Pᵀ x' from v into rhs */
static void unpermute(const op_sparse_factor *f, const double *v, size_t stride, double *rhs)
{
    for (int k = 0; k < f->n; ++k)
        for (int c = 0; c < 3; ++c)
            rhs[3 * f->perm[k] + c] = v[stride * (size_t)k + c];
}

/* P A Pᵀ = L D Lᵀ: w = L⁻¹ P b, v = D⁻¹ w, then Lᵀ x' = v in place in v and x = Pᵀ x', the three
 * columns side by side (in SSE2 or AVX registers, or one by one). work holds w and v, [n][4]
 * each. */
static void ldl_solve3(const op_sparse_factor *f, double *work, double *rhs)
{
    int n = f->n;
    double *w = work, *v = work + 4 * (size_t)n;
#if OP_SIMD_AVX
    if (op_simd_use_avx)
        substitute_avx(f, rhs, w, v);
    else
#endif
        substitute(f, rhs, w, v);
    unpermute(f, v, 4, rhs);
}

/* The checks of a solve's arguments (which == "" for one solve, else which of several). */
static int check_solve(op_ctx *ctx, const op_sparse_factor *factor, const op_sparse_workspace *work,
                       const double *rhs, const char *which)
{
    if (!factor || !work || !rhs)
        return OP_FAIL(ctx, OP_ERR_INVALID, "sparse solve%s: %s is NULL", which,
                       !factor ? "factor" : !work ? "workspace" : "right-hand side");
    if (work->capacity < factor->n)
        return OP_FAIL(ctx, OP_ERR_INVALID, "sparse solve%s: workspace for %d rows, factor of %d", which,
                       work->capacity, factor->n);
    return OP_OK;
}

static int check_solution(op_ctx *ctx, const op_sparse_factor *factor, const double *rhs, const char *which)
{
    for (int i = 0; i < factor->n; ++i)
        if (!(isfinite(rhs[3 * i]) && isfinite(rhs[3 * i + 1]) && isfinite(rhs[3 * i + 2])))
            return OP_FAIL(ctx, OP_ERR_INVALID,
                           "sparse solve%s: solution row %d is not finite (a non-finite right-hand side?)", which, i);
    return OP_OK;
}

int op_sparse_solve3(op_ctx *ctx, const op_sparse_factor *factor, op_sparse_workspace *work, double *rhs)
{
    if (check_solve(ctx, factor, work, rhs, "") != OP_OK)
        return ctx->status;
    ldl_solve3(factor, work->data, rhs);
    return check_solution(ctx, factor, rhs, "");
}

int op_sparse_solve3_four(op_ctx *ctx, const op_sparse_factor *factor, op_sparse_workspace *const work[4],
                          double *const rhs[4], int *failed)
{
    static const char *const which[4] = { " 0 of 4", " 1 of 4", " 2 of 4", " 3 of 4" };
    for (int m = 0; m < 4; ++m)
        if (check_solve(ctx, factor, work[m], rhs[m], which[m]) != OP_OK) {
            *failed = m;
            return ctx->status;
        }
#if OP_SIMD_AVX
    if (op_simd_use_avx512) {
        /* each pair's w in its first workspace and v in its second: [n][2][4], the 8n doubles a
         * workspace holds (op_sparse_workspace_reserve) */
        double *w[2] = { work[0]->data, work[2]->data }, *v[2] = { work[1]->data, work[3]->data };
        substitute4_avx512(factor, rhs, w, v);
        for (int m = 0; m < 4; ++m)
            unpermute(factor, v[m / 2] + 4 * (m % 2), 8, rhs[m]);
    } else if (op_simd_use_avx) {
        int n = factor->n;
        double *w[4], *v[4];
        for (int m = 0; m < 4; ++m) {
            w[m] = work[m]->data;
            v[m] = work[m]->data + 4 * (size_t)n;
        }
        substitute4_avx(factor, rhs, w, v);
        for (int m = 0; m < 4; ++m)
            unpermute(factor, v[m], 4, rhs[m]);
    } else
#endif
        for (int m = 0; m < 4; ++m)
            ldl_solve3(factor, work[m]->data, rhs[m]);
    for (int m = 0; m < 4; ++m)
        if (check_solution(ctx, factor, rhs[m], which[m]) != OP_OK) {
            *failed = m;
            return ctx->status;
        }
    return OP_OK;
}

int op_sparse_factor_size(const op_sparse_factor *factor)
{
    return factor->n;
}

long op_sparse_factor_nonzeros(const op_sparse_factor *factor)
{
    return factor->nonzeros;
}

size_t op_sparse_factor_bytes(const op_sparse_factor *factor)
{
    size_t n = (size_t)factor->n, below = (size_t)factor->column_start[factor->n];
    /* perm, column_start, row_start, pivot; row, value, column, row_value */
    return n * sizeof(int) + 2 * (n + 1) * sizeof(int) + n * sizeof(double) +
           below * 2 * (sizeof(int) + sizeof(double));
}

size_t op_sparse_workspace_bytes(const op_sparse_workspace *work)
{
    return 8 * (size_t)work->capacity * sizeof(double);
}

int op_sparse_factor_holders(const op_sparse_factor *factor)
{
    return atomic_load_explicit(&((op_sparse_factor *)factor)->holders, memory_order_relaxed);
}
