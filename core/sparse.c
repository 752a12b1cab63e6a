/* The CHOLMOD wrapper behind sparse.h: triplet assembly, a simplicial LDLᵀ factor with its own
 * cholmod_common, the positive-definiteness check CHOLMOD's LDLᵀ does not make, and the
 * three-column solve with workspace kept from one call to the next. */
#include "sparse.h"

#include <cholmod.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

/* A pivot D(k) of the LDLᵀ factor must exceed this times n times the matrix's own diagonal entry
 * A(k, k). CHOLMOD's LDLᵀ stops only at an exactly zero pivot, so a singular matrix (a graph
 * Laplacian with no mass term) comes through with a last pivot of rounding size, about
 * 1e-16 A(k, k) and of either sign. For an SPD matrix D(k) ≥ A(k, k)/cond(A), so the check rejects
 * only matrices whose condition number exceeds about 1/(PIVOT_TOL n), where a solve has no
 * correct digit left anyway. */
#define PIVOT_TOL (32.0 * DBL_EPSILON)

struct op_sparse_factor {
    /* One per factor, not one per process: CHOLMOD keeps workspace and status in it, so two
     * factors can be used from two threads; one factor must not be used by two at once. */
    cholmod_common common;
    cholmod_factor *L;
    cholmod_dense *B;          /* n×3 column-major: the row-major right-hand side transposed */
    cholmod_dense *X, *Y, *E;  /* cholmod_solve2's solution and workspace, kept between calls */
    int n;
    long nonzeros;
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

static int validate_triplets(op_ctx *ctx, int n, int count, const int *rows, const int *cols,
                             const double *values)
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

/* The upper triangle of A as a packed, sorted CHOLMOD matrix with duplicates summed; diag[i]
 * receives A(i, i). */
static cholmod_sparse *assemble(op_ctx *ctx, cholmod_common *c, int n, int count, const int *rows,
                                const int *cols, const double *values, double *diag)
{
    cholmod_triplet *t = cholmod_allocate_triplet((size_t)n, (size_t)n, (size_t)count, 1, CHOLMOD_REAL, c);
    if (!t) {
        cholmod_failure(ctx, c, "cholmod_allocate_triplet");
        return NULL;
    }
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
    cholmod_sparse *a = cholmod_triplet_to_sparse(t, (size_t)count, c);
    cholmod_free_triplet(&t, c);
    if (!a)
        cholmod_failure(ctx, c, "cholmod_triplet_to_sparse");
    return a;
}

/* CHOLMOD flags only a zero pivot (L->minor); a negative or rounding-size one has to be found
 * in D, the diagonal of the simplicial LDLᵀ factor. Columns are reported in the caller's
 * numbering, not the fill-reducing order's. */
static int check_positive_definite(op_ctx *ctx, const cholmod_factor *L, const double *diag)
{
    const int *perm = L->Perm, *lp = L->p;
    const double *lx = L->x;
    int n = (int)L->n;
    if (L->minor < L->n) {
        int k = perm[L->minor];
        return OP_FAIL(ctx, OP_ERR_INVALID, "matrix is not positive definite (column %d: zero pivot)", k);
    }
    double tol = PIVOT_TOL * n;
    for (int k = 0; k < n; ++k) {
        int j = perm[k];
        double d = lx[lp[k]];
        if (!(diag[j] > 0.0))
            return OP_FAIL(ctx, OP_ERR_INVALID,
                           "matrix is not positive definite (column %d: diagonal entry %g)", j, diag[j]);
        if (!(d > tol * diag[j]))
            return OP_FAIL(ctx, OP_ERR_INVALID,
                           "matrix is not positive definite (column %d: pivot %g for diagonal entry %g)",
                           j, d, diag[j]);
    }
    return OP_OK;
}

int op_sparse_factor_create(op_ctx *ctx, int n, int count, const int *rows, const int *cols, const double *values,
                            op_sparse_factor **factor)
{
    *factor = NULL;
    if (validate_triplets(ctx, n, count, rows, cols, values) != OP_OK)
        return ctx->status;
    op_sparse_factor *f = op_calloc(ctx, 1, sizeof *f);
    double *diag = op_calloc(ctx, (size_t)n, sizeof *diag);
    if (!f || !diag) {
        free(f);
        free(diag);
        return ctx->status;
    }
    f->n = n;
    cholmod_start(&f->common);
    cholmod_common *c = &f->common;
    /* Core never prints; every failure is read from c->status instead. */
    c->print = 0;
    /* Simplicial LDLᵀ: 4–5× faster solves than supernodal on graphs of this size. */
    c->supernodal = CHOLMOD_SIMPLICIAL;
    c->final_ll = 0;
    /* AMD only: the default would also try METIS when AMD's fill is high, which costs analysis
     * time and on these 3-D graphs did not give a cheaper factor. */
    c->nmethods = 1;
    c->method[0].ordering = CHOLMOD_AMD;
    c->postorder = 1;

    cholmod_sparse *a = assemble(ctx, c, n, count, rows, cols, values, diag);
    if (a) {
        f->L = cholmod_analyze(a, c);
        if (!f->L || c->status < CHOLMOD_OK)
            cholmod_failure(ctx, c, "cholmod_analyze");
        /* Returns TRUE for a matrix that is not positive definite: the status says. */
        else if (!cholmod_factorize(a, f->L, c) || (c->status < CHOLMOD_OK))
            cholmod_failure(ctx, c, "cholmod_factorize");
        else
            check_positive_definite(ctx, f->L, diag);
        cholmod_free_sparse(&a, c);
    }
    if (ctx->status == OP_OK) {
        f->nonzeros = (long)c->lnz;
        f->B = cholmod_zeros((size_t)n, 3, CHOLMOD_REAL, c);
        /* One solve of B = 0 allocates X, Y and E, so that op_sparse_solve3 never does. */
        if (!f->B)
            cholmod_failure(ctx, c, "cholmod_zeros");
        else if (!cholmod_solve2(CHOLMOD_A, f->L, f->B, NULL, &f->X, NULL, &f->Y, &f->E, c))
            cholmod_failure(ctx, c, "cholmod_solve2");
    }
    free(diag);
    if (ctx->status != OP_OK) {
        op_sparse_factor_free(&f);
        return ctx->status;
    }
    *factor = f;
    return OP_OK;
}

void op_sparse_factor_free(op_sparse_factor **factor)
{
    op_sparse_factor *f = *factor;
    if (!f)
        return;
    cholmod_common *c = &f->common;
    cholmod_free_factor(&f->L, c);
    cholmod_free_dense(&f->B, c);
    cholmod_free_dense(&f->X, c);
    cholmod_free_dense(&f->Y, c);
    cholmod_free_dense(&f->E, c);
    cholmod_finish(c);
    OP_FREE(*factor);
}

int op_sparse_solve3(op_ctx *ctx, op_sparse_factor *factor, double *rhs)
{
    if (!factor || !rhs)
        return OP_FAIL(ctx, OP_ERR_INVALID, "sparse solve: %s is NULL", factor ? "right-hand side" : "factor");
    int n = factor->n;
    double *b = factor->B->x;
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k)
            b[(size_t)k * n + i] = rhs[3 * (size_t)i + k];
    if (!cholmod_solve2(CHOLMOD_A, factor->L, factor->B, NULL, &factor->X, NULL, &factor->Y, &factor->E,
                        &factor->common))
        return cholmod_failure(ctx, &factor->common, "cholmod_solve2");
    /* Checked before anything is written back, so that a failed solve leaves rhs unchanged. */
    const double *x = factor->X->x;
    for (size_t k = 0; k < 3 * (size_t)n; ++k)
        if (!isfinite(x[k]))
            return OP_FAIL(ctx, OP_ERR_INVALID,
                           "sparse solve: solution (%d, %d) is not finite (a non-finite right-hand side?)",
                           (int)(k % (size_t)n), (int)(k / (size_t)n));
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k)
            rhs[3 * (size_t)i + k] = x[(size_t)k * n + i];
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
