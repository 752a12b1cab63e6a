/* Tests of core/kernels/sparse.c: solutions against LAPACK's dense Cholesky on random matrices built
 * like the global step's (mass diagonal plus weighted graph Laplacian), independence from the
 * triangle and order the triplets come in, rejection of singular, indefinite and malformed
 * matrices (without CHOLMOD printing anything), bitwise repeatability, a factor that keeps
 * nothing of CHOLMOD's, and one factor shared by several holders and solved with on two
 * threads at once. The tests that measure something print what they saw. */
#include <dlfcn.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cholmod.h>
#include <lapacke.h>

#include "base/rng.h"
#include "kernels/simd.h"
#include "kernels/sparse.h"
#include "base/timer.h"
#include "test_util.h"

/* Against LAPACK: max-norm relative error of x, and ‖Ax − b‖_F / ‖b‖_F. */
#define SOLUTION_TOL 1e-10
#define RESIDUAL_TOL 1e-12

/* The triangle each off-diagonal triplet is listed in. */
typedef enum triangle { UPPER, LOWER, MIXED } triangle;

/* A symmetric n×n matrix as a list of triplets. */
typedef struct triplets {
    int n, count, capacity;
    int *rows, *cols;
    double *values;
} triplets;

static void push(triplets *t, int row, int col, double value)
{
    if (t->count == t->capacity) {
        t->capacity = t->capacity ? 2 * t->capacity : 64;
        t->rows = realloc(t->rows, (size_t)t->capacity * sizeof *t->rows);
        t->cols = realloc(t->cols, (size_t)t->capacity * sizeof *t->cols);
        t->values = realloc(t->values, (size_t)t->capacity * sizeof *t->values);
        assert_non_null(t->rows);
        assert_non_null(t->cols);
        assert_non_null(t->values);
    }
    t->rows[t->count] = row;
    t->cols[t->count] = col;
    t->values[t->count++] = value;
}

static void free_triplets(triplets *t)
{
    free(t->rows);
    free(t->cols);
    free(t->values);
    *t = (triplets){ 0 };
}

/* Moves each off-diagonal entry to the chosen triangle (MIXED: a coin flip per entry). */
static void relist(triplets *t, triangle tri, op_rng *rng)
{
    for (int k = 0; k < t->count; ++k) {
        int lo = t->rows[k] < t->cols[k] ? t->rows[k] : t->cols[k];
        int hi = t->rows[k] < t->cols[k] ? t->cols[k] : t->rows[k];
        int upper = tri == UPPER || (tri == MIXED && op_rng_below(rng, 2));
        t->rows[k] = upper ? lo : hi;
        t->cols[k] = upper ? hi : lo;
    }
}

/* The global step's matrix on a random connected graph (a random recursive spanning tree plus
 * random chords, about 2.7–4.5 edges per node, no edge twice):
 *     A = diag(m v_i) + k Σ_edges (v_i + v_j)(e_i − e_j)(e_i − e_j)ᵀ
 * with m/k between 1e-2 and 1e2 (with_mass = 0: m = 0, the bare Laplacian, singular). Diagonal
 * entries are summed here; each edge's off-diagonal entry is listed once, in the triangle `tri`
 * chooses. */
static triplets make_matrix(op_rng *rng, int n, triangle tri, int with_mass)
{
    triplets t = { .n = n };
    double *v = calloc((size_t)n, sizeof *v), *diag = calloc((size_t)n, sizeof *diag);
    assert_non_null(v);
    assert_non_null(diag);
    double stiffness = pow(10.0, 4.0 * op_rng_uniform(rng) - 2.0);
    double mass = with_mass ? stiffness * pow(10.0, 4.0 * op_rng_uniform(rng) - 2.0) : 0.0;
    for (int i = 0; i < n; ++i)
        v[i] = 0.5 + op_rng_uniform(rng);
    char *linked = calloc((size_t)n * (size_t)n, 1);
    assert_non_null(linked);
    int chords = n > 2 ? (int)((1.7 + 1.8 * op_rng_uniform(rng)) * n) : 0;
    for (int e = 1; e < n + chords; ++e) {
        int i = e < n ? e : op_rng_below(rng, n), j = e < n ? op_rng_below(rng, e) : op_rng_below(rng, n);
        if (i == j || linked[(size_t)i * n + j])
            continue;
        linked[(size_t)i * n + j] = linked[(size_t)j * n + i] = 1;
        double w = stiffness * (v[i] + v[j]);
        diag[i] += w;
        diag[j] += w;
        push(&t, i, j, -w);
    }
    for (int i = 0; i < n; ++i)
        push(&t, i, i, diag[i] + mass * v[i]);
    relist(&t, tri, rng);
    free(linked);
    free(v);
    free(diag);
    return t;
}

/* The dense row-major symmetric matrix the triplets describe. */
static double *dense(const triplets *t)
{
    double *a = calloc((size_t)t->n * (size_t)t->n, sizeof *a);
    assert_non_null(a);
    for (int k = 0; k < t->count; ++k) {
        int i = t->rows[k], j = t->cols[k];
        a[(size_t)i * t->n + j] += t->values[k];
        if (i != j)
            a[(size_t)j * t->n + i] += t->values[k];
    }
    return a;
}

static double *random_rhs(op_rng *rng, int n)
{
    double *b = malloc(3 * (size_t)n * sizeof *b);
    assert_non_null(b);
    for (int k = 0; k < 3 * n; ++k)
        b[k] = 2.0 * op_rng_uniform(rng) - 1.0;
    return b;
}

static op_sparse_factor *factor_or_fail(const triplets *t)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_sparse_factor *f = NULL;
    if (op_sparse_factor_create(&ctx, t->n, t->count, t->rows, t->cols, t->values, &f) != OP_OK)
        fail_msg("factor of n = %d: %s", t->n, ctx.message);
    return f;
}

/* One solve with a workspace of its own. */
static void solve_or_fail(const op_sparse_factor *f, double *x)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_sparse_workspace work = { 0 };
    if (op_sparse_workspace_reserve(&ctx, &work, f) != OP_OK || op_sparse_solve3(&ctx, f, &work, x) != OP_OK)
        fail_msg("solve: %s", ctx.message);
    op_sparse_workspace_free(&work);
}

/* Factors and solves b, returning x (caller frees). */
static double *solve_copy(const triplets *t, const double *b)
{
    double *x = malloc(3 * (size_t)t->n * sizeof *x);
    assert_non_null(x);
    memcpy(x, b, 3 * (size_t)t->n * sizeof *x);
    op_sparse_factor *f = factor_or_fail(t);
    solve_or_fail(f, x);
    op_sparse_factor_free(&f);
    return x;
}

/* ---- CHOLMOD's global hooks, reached through the dynamic linker: the symbol lives in
 * libsuitesparseconfig, which the build does not link directly. ---- */

static struct SuiteSparse_config_struct *suitesparse_config(void)
{
    void *self = dlopen(NULL, RTLD_NOW);
    assert_non_null(self);
    struct SuiteSparse_config_struct *config = dlsym(self, "SuiteSparse_config");
    assert_non_null(config);
    dlclose(self);
    return config;
}

/* allocations: calls of CHOLMOD's allocators; live: blocks allocated and not yet freed */
static long allocations, live, prints;
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);

static void *counting_malloc(size_t size)
{
    ++allocations;
    void *p = real_malloc(size);
    live += p != NULL;
    return p;
}

static void *counting_calloc(size_t count, size_t size)
{
    ++allocations;
    void *p = real_calloc(count, size);
    live += p != NULL;
    return p;
}

static void *counting_realloc(void *p, size_t size)
{
    ++allocations;
    void *q = real_realloc(p, size);
    live += !p && q;
    return q;
}

static void counting_free(void *p)
{
    live -= p != NULL;
    real_free(p);
}

static int counting_printf(const char *format, ...)
{
    (void)format;
    ++prints;
    return 0;
}

/* ---- tests ---- */

static void test_random_spd_match_lapack(void **state)
{
    (void)state;
    op_rng rng = op_rng_seeded(1);
    double worst_solution = 0.0, worst_residual = 0.0;
    int sizes[40], count = 0;
    for (int n = 1; n <= 12; ++n)
        sizes[count++] = n;
    while (count < 39)
        sizes[count++] = 13 + op_rng_below(&rng, 488);
    sizes[count++] = 500;
    for (int s = 0; s < count; ++s) {
        int n = sizes[s];
        triplets t = make_matrix(&rng, n, MIXED, 1);
        double *b = random_rhs(&rng, n), *a = dense(&t), *ref = malloc(3 * (size_t)n * sizeof *ref);
        double *chol = malloc((size_t)n * (size_t)n * sizeof *chol);
        assert_non_null(ref);
        assert_non_null(chol);
        memcpy(ref, b, 3 * (size_t)n * sizeof *ref);
        memcpy(chol, a, (size_t)n * (size_t)n * sizeof *chol);
        assert_int_equal(LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', n, 3, chol, n, ref, 3), 0);
        double *x = solve_copy(&t, b);

        double err = 0.0, scale = 0.0, res2 = 0.0, b2 = 0.0;
        for (int k = 0; k < 3 * n; ++k) {
            err = fmax(err, fabs(x[k] - ref[k]));
            scale = fmax(scale, fabs(ref[k]));
            b2 += b[k] * b[k];
        }
        for (int i = 0; i < n; ++i)
            for (int c = 0; c < 3; ++c) {
                double r = -b[3 * i + c];
                for (int j = 0; j < n; ++j)
                    r += a[(size_t)i * n + j] * x[3 * j + c];
                res2 += r * r;
            }
        double solution = err / scale, residual = sqrt(res2 / b2);
        if (!(solution <= SOLUTION_TOL))
            fail_msg("n = %d: relative difference from LAPACK %.3g", n, solution);
        if (!(residual <= RESIDUAL_TOL))
            fail_msg("n = %d: relative residual %.3g", n, residual);
        worst_solution = fmax(worst_solution, solution);
        worst_residual = fmax(worst_residual, residual);
        free(x);
        free(chol);
        free(ref);
        free(a);
        free(b);
        free_triplets(&t);
    }
    print_message("  %-34s max |x - x_lapack|/|x_lapack| %.2e, max |Ax - b|/|b| %.2e\n",
                  "40 sizes in [1, 500]", worst_solution, worst_residual);
}

/* The same matrix listed in the upper triangle, the lower one, or a mix gives the same bits. */
static void test_triangle_choice_bitwise(void **state)
{
    (void)state;
    static const int sizes[] = { 2, 7, 60, 333 };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        op_rng rng = op_rng_seeded(100 + s);
        triplets t = make_matrix(&rng, sizes[s], UPPER, 1);
        double *b = random_rhs(&rng, sizes[s]), *x[3];
        for (int tri = UPPER; tri <= MIXED; ++tri) {
            relist(&t, (triangle)tri, &rng);
            x[tri] = solve_copy(&t, b);
        }
        free_triplets(&t);
        assert_memory_equal(x[UPPER], x[LOWER], 3 * (size_t)sizes[s] * sizeof(double));
        assert_memory_equal(x[UPPER], x[MIXED], 3 * (size_t)sizes[s] * sizeof(double));
        for (int tri = UPPER; tri <= MIXED; ++tri)
            free(x[tri]);
        free(b);
    }
}

/* Every entry split into two exact halves (listed apart, in opposite triangles for the
 * off-diagonal ones) sums back to the same matrix; the order of the triplets does not matter. */
static void test_duplicates_summed_order_free(void **state)
{
    (void)state;
    op_rng rng = op_rng_seeded(2);
    for (int trial = 0; trial < 8; ++trial) {
        int n = 1 + op_rng_below(&rng, 300);
        triplets t = make_matrix(&rng, n, UPPER, 1), halves = { .n = n }, shuffled = { .n = n };
        double *b = random_rhs(&rng, n);
        for (int k = 0; k < t.count; ++k)
            push(&halves, t.rows[k], t.cols[k], 0.5 * t.values[k]);
        for (int k = t.count - 1; k >= 0; --k)
            push(&halves, t.cols[k], t.rows[k], 0.5 * t.values[k]);
        int *order = malloc((size_t)t.count * sizeof *order);
        assert_non_null(order);
        for (int k = 0; k < t.count; ++k)
            order[k] = k;
        for (int k = t.count - 1; k > 0; --k) {
            int j = op_rng_below(&rng, k + 1), tmp = order[k];
            order[k] = order[j];
            order[j] = tmp;
        }
        for (int k = 0; k < t.count; ++k)
            push(&shuffled, t.rows[order[k]], t.cols[order[k]], t.values[order[k]]);

        double *x = solve_copy(&t, b), *xh = solve_copy(&halves, b), *xs = solve_copy(&shuffled, b);
        assert_memory_equal(x, xh, 3 * (size_t)n * sizeof *x);
        assert_memory_equal(x, xs, 3 * (size_t)n * sizeof *x);
        free(x);
        free(xh);
        free(xs);
        free(order);
        free(b);
        free_triplets(&t);
        free_triplets(&halves);
        free_triplets(&shuffled);
    }
}

/* The message of the last expect_rejected(). */
static char last_message[sizeof ((op_ctx *)0)->message];

/* Expects the factorisation to fail with OP_ERR_INVALID, a message containing `needle`, no
 * factor, and nothing printed by CHOLMOD. */
static void expect_rejected(int n, int count, const int *rows, const int *cols, const double *values,
                            const char *needle, const char *what)
{
    struct SuiteSparse_config_struct *config = suitesparse_config();
    int (*saved_printf)(const char *, ...) = config->printf_func;
    config->printf_func = counting_printf;
    prints = 0;
    op_ctx ctx;
    op_ctx_init(&ctx);
    static char sentinel;
    op_sparse_factor *f = (op_sparse_factor *)&sentinel; /* must come back NULL */
    int status = op_sparse_factor_create(&ctx, n, count, rows, cols, values, &f);
    config->printf_func = saved_printf;
    if (status != OP_ERR_INVALID || ctx.status != OP_ERR_INVALID)
        fail_msg("%s: status %d (%s), expected invalid", what, status, ctx.message);
    if (!strstr(ctx.message, needle))
        fail_msg("%s: message \"%s\" lacks \"%s\"", what, ctx.message, needle);
    assert_null(f);
    assert_int_equal(prints, 0);
    memcpy(last_message, ctx.message, sizeof last_message);
}

static void expect_rejected_matrix(const triplets *t, const char *what)
{
    expect_rejected(t->n, t->count, t->rows, t->cols, t->values, "matrix is not positive definite (column ", what);
}

/* A graph Laplacian without the mass term is singular: the last pivot is exactly zero (CHOLMOD
 * flags that) or rounding noise of either sign (only opsim's pivot check catches that); both
 * must occur here. Likewise a mass term on only one of two components. */
static void test_singular_rejected(void **state)
{
    (void)state;
    op_rng rng = op_rng_seeded(3);
    char what[96];
    int zero_pivots = 0, small_pivots = 0;
    for (int trial = 0; trial < 200; ++trial) {
        int n = trial < 10 ? trial + 2 : 2 + op_rng_below(&rng, 499);
        triplets t = make_matrix(&rng, n, MIXED, 0);
        snprintf(what, sizeof what, "Laplacian, n = %d (trial %d)", n, trial);
        expect_rejected_matrix(&t, what);
        zero_pivots += strstr(last_message, "zero pivot") != NULL;
        small_pivots += strstr(last_message, ": pivot ") != NULL;
        free_triplets(&t);
    }
    assert_int_equal(zero_pivots + small_pivots, 200);
    assert_true(zero_pivots > 0 && small_pivots > 0);
    print_message("  %-34s %d as a zero pivot, %d as a rounding-size one\n", "200 singular Laplacians caught",
                  zero_pivots, small_pivots);
    /* two components, the second without mass */
    triplets a = make_matrix(&rng, 40, UPPER, 1), b = make_matrix(&rng, 30, UPPER, 0), both = { .n = 70 };
    for (int k = 0; k < a.count; ++k)
        push(&both, a.rows[k], a.cols[k], a.values[k]);
    for (int k = 0; k < b.count; ++k)
        push(&both, b.rows[k] + 40, b.cols[k] + 40, b.values[k]);
    expect_rejected_matrix(&both, "one massless component");
    free_triplets(&a);
    free_triplets(&b);
    free_triplets(&both);
    /* the zero matrix, given as one zero or as no entries at all */
    const int zero_index[1] = { 0 };
    const double zero[1] = { 0.0 };
    expect_rejected(1, 1, zero_index, zero_index, zero, "matrix is not positive definite (column 0", "[0]");
    expect_rejected(3, 0, NULL, NULL, NULL, "matrix is not positive definite (column ", "no entries");
}

/* LDLᵀ without pivoting goes through an indefinite matrix with a negative pivot: it has to be
 * caught all the same, including when only one eigenvalue is slightly negative. */
static void test_indefinite_rejected(void **state)
{
    (void)state;
    const int r2[3] = { 0, 0, 1 }, c2[3] = { 0, 1, 1 };
    const double v2[3] = { 1.0, 2.0, 1.0 }; /* eigenvalues 3 and -1 */
    expect_rejected(2, 3, r2, c2, v2, "matrix is not positive definite (column ", "[[1 2] [2 1]]");
    const int r4[4] = { 0, 1, 2, 3 };
    const double v4[4] = { 1.0, 2.0, -3.0, 4.0 };
    expect_rejected(4, 4, r4, r4, v4, "matrix is not positive definite (column 2: diagonal entry -3)",
                    "diag(1, 2, -3, 4)");

    op_rng rng = op_rng_seeded(4);
    char what[96];
    for (int trial = 0; trial < 20; ++trial) {
        int n = 2 + op_rng_below(&rng, 199);
        triplets t = make_matrix(&rng, n, MIXED, 1);
        double *a = dense(&t), *w = malloc((size_t)n * sizeof *w);
        assert_non_null(w);
        assert_int_equal(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', n, a, n, w), 0);
        /* A − sI with s between the two smallest eigenvalues: exactly one negative eigenvalue */
        double s = 0.5 * (w[0] + w[1]);
        for (int i = 0; i < n; ++i)
            push(&t, i, i, -s);
        snprintf(what, sizeof what, "one negative eigenvalue, n = %d", n);
        expect_rejected_matrix(&t, what);
        free(w);
        free(a);
        free_triplets(&t);
    }
}

static void test_malformed_rejected(void **state)
{
    (void)state;
    const int r[3] = { 0, 1, 1 }, c[3] = { 0, 0, 1 };
    const double v[3] = { 2.0, -1.0, 2.0 };
    expect_rejected(0, 3, r, c, v, "size 0", "n = 0");
    expect_rejected(-5, 3, r, c, v, "size -5", "n = -5");
    expect_rejected(2, -1, r, c, v, "count -1", "count = -1");
    expect_rejected(2, 3, NULL, c, v, "no arrays", "rows NULL");
    expect_rejected(2, 3, r, c, NULL, "no arrays", "values NULL");
    const int r_low[3] = { 0, -1, 1 }, c_high[3] = { 0, 0, 2 };
    expect_rejected(2, 3, r_low, c, v, "entry 1 at (-1, 0): index out of range", "row -1");
    expect_rejected(2, 3, r, c_high, v, "entry 2 at (1, 2): index out of range", "column n");
    const double nan_value[3] = { 2.0, NAN, 2.0 }, inf_value[3] = { INFINITY, -1.0, 2.0 };
    expect_rejected(2, 3, r, c, nan_value, "entry 1 at (1, 0): value nan is not finite", "NaN");
    expect_rejected(2, 3, r, c, inf_value, "entry 0 at (0, 0): value inf is not finite", "Inf");

    /* the well-formed matrix the bad ones were made from is accepted */
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_sparse_factor *f = NULL;
    assert_int_equal(op_sparse_factor_create(&ctx, 2, 3, r, c, v, &f), OP_OK);
    assert_int_equal(op_sparse_factor_size(f), 2);
    op_sparse_factor_free(&f);
}

/* 10,000 solves with one factor and one workspace: every solve of the same right-hand side
 * gives the same bits, whatever was solved in between. The factor keeps nothing of CHOLMOD's
 * (every block CHOLMOD allocated while factoring is freed when create returns) and solving calls
 * none of its allocators: the solve is opsim's own. */
static void test_repeated_solves_bitwise_no_cholmod(void **state)
{
    (void)state;
    enum { N = 300, SOLVES = 10000 };
    op_rng rng = op_rng_seeded(5);
    triplets t = make_matrix(&rng, N, MIXED, 1);
    double *b = random_rhs(&rng, N), *other = random_rhs(&rng, N);
    double x0[3 * N], x[3 * N];

    struct SuiteSparse_config_struct *config = suitesparse_config();
    real_malloc = config->malloc_func;
    real_calloc = config->calloc_func;
    real_realloc = config->realloc_func;
    real_free = config->free_func;
    config->malloc_func = counting_malloc;
    config->calloc_func = counting_calloc;
    config->realloc_func = counting_realloc;
    config->free_func = counting_free;

    allocations = live = 0;
    op_sparse_factor *f = factor_or_fail(&t);
    long factor_allocations = allocations, kept = live;
    memcpy(x0, b, sizeof x0);
    solve_or_fail(f, x0);

    allocations = 0;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_sparse_workspace work = { 0 };
    assert_int_equal(op_sparse_workspace_reserve(&ctx, &work, f), OP_OK);
    int failures = 0, differences = 0;
    double t0 = op_now();
    for (int s = 0; s < SOLVES; ++s) {
        memcpy(x, s % 3 ? other : b, sizeof x);
        failures += op_sparse_solve3(&ctx, f, &work, x) != OP_OK;
        if (s % 3 == 0)
            differences += memcmp(x, x0, sizeof x) != 0;
    }
    double t1 = op_now();
    long solve_allocations = allocations;
    config->malloc_func = real_malloc;
    config->calloc_func = real_calloc;
    config->realloc_func = real_realloc;
    config->free_func = real_free;

    assert_int_equal(failures, 0);
    assert_int_equal(differences, 0);
    if (factor_allocations == 0)
        fail_msg("the allocation counter saw nothing even while factoring: the hook is not in use");
    assert_int_equal(kept, 0);
    assert_int_equal(solve_allocations, 0);
    double us = 1e6 * (t1 - t0) / SOLVES;
    print_message("  %-34s %.2f us per solve, %ld CHOLMOD allocations while factoring (%ld kept), %ld while "
                  "solving\n", "10000 solves, n = 300", us, factor_allocations, kept, solve_allocations);
    op_sparse_workspace_free(&work);
    op_sparse_factor_free(&f);
    free(other);
    free(b);
    free_triplets(&t);
}

/* A non-finite right-hand side fails the solve, and the factor is unharmed. */
static void test_nonfinite_rhs_rejected(void **state)
{
    (void)state;
    op_rng rng = op_rng_seeded(6);
    triplets t = make_matrix(&rng, 50, UPPER, 1);
    double *b = random_rhs(&rng, 50), x0[150], x[150];
    op_sparse_factor *f = factor_or_fail(&t);
    memcpy(x0, b, sizeof x0);
    solve_or_fail(f, x0);
    const double bad[2] = { NAN, -INFINITY };
    for (int k = 0; k < 2; ++k) {
        memcpy(x, b, sizeof x);
        x[3 * 17 + 1] = bad[k];
        op_ctx ctx;
        op_ctx_init(&ctx);
        op_sparse_workspace work = { 0 };
        assert_int_equal(op_sparse_workspace_reserve(&ctx, &work, f), OP_OK);
        assert_int_equal(op_sparse_solve3(&ctx, f, &work, x), OP_ERR_INVALID);
        assert_non_null(strstr(ctx.message, "is not finite"));
        op_sparse_workspace_free(&work);
        memcpy(x, b, sizeof x);
        solve_or_fail(f, x);
        assert_memory_equal(x, x0, sizeof x);
    }
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_sparse_workspace work = { 0 };
    assert_int_equal(op_sparse_solve3(&ctx, NULL, &work, x), OP_ERR_INVALID);
    op_sparse_factor_free(&f);
    free(b);
    free_triplets(&t);
}

/* op_sparse_solve3_four gives each right-hand side bitwise what op_sparse_solve3 gives it alone,
 * with the AVX paths (the four substitutions side by side), with the AVX-512 ones besides (two
 * a register) and without either; a non-finite one is named and the others are still solved. */
static void test_four_solves_bitwise_one_at_a_time(void **state)
{
    (void)state;
    enum { N = 120 };
    op_rng rng = op_rng_seeded(11);
    triplets t = make_matrix(&rng, N, UPPER, 1);
    op_sparse_factor *f = factor_or_fail(&t);
    double *b[4], alone[4][3 * N], together[4][3 * N];
    op_sparse_workspace works[4] = { { 0 } };
    op_sparse_workspace *work[4];
    double *rhs[4];
    op_ctx ctx;
    op_ctx_init(&ctx);
    for (int m = 0; m < 4; ++m) {
        b[m] = random_rhs(&rng, N);
        memcpy(alone[m], b[m], sizeof alone[m]);
        solve_or_fail(f, alone[m]);
        assert_int_equal(op_sparse_workspace_reserve(&ctx, &works[m], f), OP_OK);
        work[m] = &works[m];
        rhs[m] = together[m];
    }
    int widest = op_simd_avx(1) + op_simd_avx512(1);
    for (int width = 0; width <= widest; ++width) {
        op_simd_avx(width > 0);
        op_simd_avx512(width > 1);
        print_message("%s\n", width == 0 ? "SSE2" : width == 1 ? "AVX" : "AVX-512");
        for (int m = 0; m < 4; ++m)
            memcpy(together[m], b[m], sizeof together[m]);
        int failed = -1;
        assert_int_equal(op_sparse_solve3_four(&ctx, f, work, rhs, &failed), OP_OK);
        for (int m = 0; m < 4; ++m)
            assert_memory_equal(together[m], alone[m], sizeof alone[m]);
        for (int m = 0; m < 4; ++m)
            memcpy(together[m], b[m], sizeof together[m]);
        together[2][3 * 40 + 1] = NAN;
        assert_int_equal(op_sparse_solve3_four(&ctx, f, work, rhs, &failed), OP_ERR_INVALID);
        assert_int_equal(failed, 2);
        assert_non_null(strstr(ctx.message, "2 of 4"));
        assert_memory_equal(together[3], alone[3], sizeof alone[3]);
        op_ctx_init(&ctx);
    }
    op_simd_avx(1);
    for (int m = 0; m < 4; ++m) {
        op_sparse_workspace_free(&works[m]);
        free(b[m]);
    }
    op_sparse_factor_free(&f);
    free_triplets(&t);
}

/* n = 1: x = b / a, exactly for these numbers, whether a comes as one entry or two. */
static void test_one_by_one(void **state)
{
    (void)state;
    const int zero[2] = { 0, 0 };
    const double one[1] = { 4.0 }, two[2] = { 1.5, 2.5 };
    const double expected[3] = { 0.25, -0.5, 2.0 };
    for (int count = 1; count <= 2; ++count) {
        op_ctx ctx;
        op_ctx_init(&ctx);
        op_sparse_factor *f = NULL;
        assert_int_equal(op_sparse_factor_create(&ctx, 1, count, zero, zero, count == 1 ? one : two, &f), OP_OK);
        assert_int_equal(op_sparse_factor_size(f), 1);
        assert_int_equal(op_sparse_factor_nonzeros(f), 1);
        double x[3] = { 1.0, -2.0, 8.0 };
        solve_or_fail(f, x);
        assert_memory_equal(x, expected, sizeof x);
        op_sparse_factor_free(&f);
    }
}

/* Scaling A by a power of two scales x by its inverse, bit for bit: nothing in the factor or
 * the positive-definiteness check depends on the matrix's absolute size. */
static void test_power_of_two_scaling_exact(void **state)
{
    (void)state;
    static const int exponents[] = { -300, -40, 40, 300 };
    op_rng rng = op_rng_seeded(7);
    triplets t = make_matrix(&rng, 120, MIXED, 1);
    double *b = random_rhs(&rng, 120), *x = solve_copy(&t, b);
    for (size_t e = 0; e < sizeof exponents / sizeof exponents[0]; ++e) {
        triplets s = t;
        s.values = malloc((size_t)t.count * sizeof *s.values);
        assert_non_null(s.values);
        for (int k = 0; k < t.count; ++k)
            s.values[k] = ldexp(t.values[k], exponents[e]);
        double *xs = solve_copy(&s, b);
        for (int k = 0; k < 3 * 120; ++k)
            xs[k] = ldexp(xs[k], exponents[e]);
        assert_memory_equal(x, xs, 3 * 120 * sizeof *x);
        free(xs);
        free(s.values);
    }
    free(x);
    free(b);
    free_triplets(&t);
}

/* Nonzeros of L count its diagonal: n for a diagonal matrix, 2n − 1 for a path (AMD finds the
 * no-fill order however the path is numbered). */
static void test_factor_nonzeros(void **state)
{
    (void)state;
    enum { N = 200 };
    op_rng rng = op_rng_seeded(8);
    int perm[N];
    for (int i = 0; i < N; ++i)
        perm[i] = i;
    for (int i = N - 1; i > 0; --i) {
        int j = op_rng_below(&rng, i + 1), tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
    triplets diagonal = { .n = N }, path = { .n = N };
    for (int i = 0; i < N; ++i) {
        push(&diagonal, i, i, 1.0 + i);
        push(&path, perm[i], perm[i], 3.0);
        if (i > 0)
            push(&path, perm[i - 1], perm[i], -1.0);
    }
    op_sparse_factor *f = factor_or_fail(&diagonal);
    assert_int_equal(op_sparse_factor_size(f), N);
    assert_int_equal(op_sparse_factor_nonzeros(f), N);
    op_sparse_factor_free(&f);
    f = factor_or_fail(&path);
    assert_int_equal(op_sparse_factor_nonzeros(f), 2 * N - 1);
    op_sparse_factor_free(&f);
    free_triplets(&diagonal);
    free_triplets(&path);
}

/* One factor, three holders (create, then two retains): two threads solve with it at once, each
 * with its own workspace and its own right-hand sides, and get bitwise what one thread gets
 * solving them one after another; the factor outlives every holder but the last. */
static void test_shared_factor_on_two_threads(void **state)
{
    (void)state;
    enum { N = 400, RHS = 8, ROUNDS = 200 };
    op_rng rng = op_rng_seeded(9);
    triplets t = make_matrix(&rng, N, MIXED, 1);
    double *b[RHS], *serial[RHS];
    op_sparse_factor *f = factor_or_fail(&t), *holder[2];
    holder[0] = op_sparse_factor_retain(f);
    holder[1] = op_sparse_factor_retain(f);
    assert_ptr_equal(holder[0], f);
    assert_ptr_equal(holder[1], f);
    for (int r = 0; r < RHS; ++r) {
        b[r] = random_rhs(&rng, N);
        serial[r] = malloc(3 * N * sizeof(double));
        assert_non_null(serial[r]);
        memcpy(serial[r], b[r], 3 * N * sizeof(double));
        solve_or_fail(f, serial[r]);
    }
    op_sparse_factor_free(&f); /* the creator's hold: the two others keep it */
    assert_null(f);
    int differences[2] = { 0, 0 }, failures[2] = { 0, 0 }, threads_seen = 0;
    omp_set_num_threads(2);
#pragma omp parallel num_threads(2) reduction(max : threads_seen)
    {
        int me = omp_get_thread_num();
        threads_seen = omp_get_num_threads();
        op_ctx ctx;
        op_ctx_init(&ctx);
        op_sparse_workspace work = { 0 };
        double x[3 * N];
        failures[me] += op_sparse_workspace_reserve(&ctx, &work, holder[me]) != OP_OK;
        /* the two threads go through the right-hand sides in opposite orders */
        for (int round = 0; round < ROUNDS && failures[me] == 0; ++round) {
            int r = me == 0 ? round % RHS : RHS - 1 - round % RHS;
            memcpy(x, b[r], sizeof x);
            failures[me] += op_sparse_solve3(&ctx, holder[me], &work, x) != OP_OK;
            differences[me] += memcmp(x, serial[r], sizeof x) != 0;
        }
        op_sparse_workspace_free(&work);
    }
    print_message("  %-34s %d threads, %d solves each\n", "one factor, two threads", threads_seen, ROUNDS);
    assert_int_equal(threads_seen, 2);
    assert_int_equal(failures[0] + failures[1], 0);
    assert_int_equal(differences[0] + differences[1], 0);
    op_sparse_factor_free(&holder[0]);
    /* the last holder still solves */
    double x[3 * N];
    memcpy(x, b[3], sizeof x);
    solve_or_fail(holder[1], x);
    assert_memory_equal(x, serial[3], sizeof x);
    op_sparse_factor_free(&holder[1]);
    assert_null(holder[1]);
    for (int r = 0; r < RHS; ++r) {
        free(b[r]);
        free(serial[r]);
    }
    free_triplets(&t);
}

/* A workspace sized for a smaller factor is refused and the right-hand side left alone; reserving
 * again for the larger factor makes room, and a workspace big enough for a larger factor serves
 * a smaller one. */
static void test_workspace_too_small_rejected(void **state)
{
    (void)state;
    op_rng rng = op_rng_seeded(10);
    triplets small = make_matrix(&rng, 20, UPPER, 1), large = make_matrix(&rng, 60, UPPER, 1);
    op_sparse_factor *fs = factor_or_fail(&small), *fl = factor_or_fail(&large);
    double *b = random_rhs(&rng, 60), x[180], expected[180];
    memcpy(expected, b, sizeof expected);
    solve_or_fail(fl, expected);
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_sparse_workspace work = { 0 };
    assert_int_equal(op_sparse_workspace_reserve(&ctx, &work, fs), OP_OK);
    assert_int_equal(work.capacity, 20);
    memcpy(x, b, sizeof x);
    assert_int_equal(op_sparse_solve3(&ctx, fl, &work, x), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "workspace for 20 rows, factor of 60"));
    assert_memory_equal(x, b, sizeof x);
    op_ctx_init(&ctx);
    assert_int_equal(op_sparse_workspace_reserve(&ctx, &work, fl), OP_OK);
    assert_int_equal(work.capacity, 60);
    assert_int_equal(op_sparse_solve3(&ctx, fl, &work, x), OP_OK);
    assert_memory_equal(x, expected, sizeof x);
    assert_int_equal(op_sparse_workspace_reserve(&ctx, &work, fs), OP_OK);
    assert_int_equal(work.capacity, 60);
    memcpy(expected, b, 60 * sizeof(double));
    solve_or_fail(fs, expected);
    memcpy(x, b, 60 * sizeof(double));
    assert_int_equal(op_sparse_solve3(&ctx, fs, &work, x), OP_OK);
    assert_memory_equal(x, expected, 60 * sizeof(double));
    op_sparse_workspace_free(&work);
    assert_null(work.data);
    assert_int_equal(work.capacity, 0);
    op_sparse_factor_free(&fs);
    op_sparse_factor_free(&fl);
    free(b);
    free_triplets(&small);
    free_triplets(&large);
}

static void test_free_null_safe(void **state)
{
    (void)state;
    op_sparse_factor_free(NULL);
    op_sparse_factor *f = NULL;
    op_sparse_factor_free(&f);
    assert_null(f);
    const int i[1] = { 0 };
    const double v[1] = { 1.0 };
    f = NULL;
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_sparse_factor_create(&ctx, 1, 1, i, i, v, &f), OP_OK);
    assert_non_null(f);
    op_sparse_factor_free(&f);
    assert_null(f);
}

/* A body of 10,648 rows (a 22³ grid's Laplacian with a mass term), past the size from which the
 * wrapper tries METIS beside AMD: its factor has fewer nonzeros than AMD's alone (CHOLMOD
 * asked directly), it solves to the residual tolerance, and two factorisations solve bitwise
 * alike. */
static void test_large_body_ordering(void **state)
{
    (void)state;
    enum { SIDE = 22, N = SIDE * SIDE * SIDE };
    triplets t = { .n = N };
    for (int z = 0; z < SIDE; ++z)
        for (int y = 0; y < SIDE; ++y)
            for (int x = 0; x < SIDE; ++x) {
                int i = (z * SIDE + y) * SIDE + x, degree = 0;
                int neighbour[3] = { x + 1 < SIDE ? i + 1 : -1, y + 1 < SIDE ? i + SIDE : -1,
                                     z + 1 < SIDE ? i + SIDE * SIDE : -1 };
                for (int k = 0; k < 3; ++k)
                    if (neighbour[k] >= 0)
                        push(&t, i, neighbour[k], -1.0);
                degree += (x > 0) + (x + 1 < SIDE) + (y > 0) + (y + 1 < SIDE) + (z > 0) + (z + 1 < SIDE);
                push(&t, i, i, degree + 0.01);
            }
    cholmod_common common;
    cholmod_start(&common);
    common.print = 0;
    common.supernodal = CHOLMOD_SIMPLICIAL;
    common.nmethods = 1;
    common.method[0].ordering = CHOLMOD_AMD;
    cholmod_triplet *ct = cholmod_allocate_triplet(N, N, (size_t)t.count, 1, CHOLMOD_REAL, &common);
    assert_non_null(ct);
    memcpy(ct->i, t.rows, (size_t)t.count * sizeof(int));
    memcpy(ct->j, t.cols, (size_t)t.count * sizeof(int));
    memcpy(ct->x, t.values, (size_t)t.count * sizeof(double));
    ct->nnz = (size_t)t.count;
    cholmod_sparse *a = cholmod_triplet_to_sparse(ct, (size_t)t.count, &common);
    cholmod_factor *L = a ? cholmod_analyze(a, &common) : NULL;
    assert_non_null(L);
    long amd_nonzeros = (long)common.lnz;
    cholmod_free_factor(&L, &common);
    cholmod_free_sparse(&a, &common);
    cholmod_free_triplet(&ct, &common);
    cholmod_finish(&common);

    op_rng rng = op_rng_seeded(43);
    double *b = random_rhs(&rng, N), *x = solve_copy(&t, b), *again = solve_copy(&t, b);
    op_sparse_factor *f = factor_or_fail(&t);
    print_message("22^3 grid: nnz(L) %ld (AMD alone %ld)\n", op_sparse_factor_nonzeros(f), amd_nonzeros);
    assert_true(op_sparse_factor_nonzeros(f) < amd_nonzeros); /* METIS wins on a grid */
    op_sparse_factor_free(&f);
    assert_memory_equal(x, again, 3 * (size_t)N * sizeof *x);
    double *residual = calloc(3 * (size_t)N, sizeof *residual);
    assert_non_null(residual);
    for (int k = 0; k < t.count; ++k)
        for (int c = 0; c < 3; ++c) {
            residual[3 * t.rows[k] + c] += t.values[k] * x[3 * t.cols[k] + c];
            if (t.rows[k] != t.cols[k])
                residual[3 * t.cols[k] + c] += t.values[k] * x[3 * t.rows[k] + c];
        }
    double r2 = 0.0, b2 = 0.0;
    for (int k = 0; k < 3 * N; ++k) {
        r2 += (residual[k] - b[k]) * (residual[k] - b[k]);
        b2 += b[k] * b[k];
    }
    assert_true(sqrt(r2 / b2) <= RESIDUAL_TOL);
    free(residual);
    free(b);
    free(x);
    free(again);
    free_triplets(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_spd_match_lapack),
        cmocka_unit_test(test_triangle_choice_bitwise),
        cmocka_unit_test(test_duplicates_summed_order_free),
        cmocka_unit_test(test_singular_rejected),
        cmocka_unit_test(test_indefinite_rejected),
        cmocka_unit_test(test_malformed_rejected),
        cmocka_unit_test(test_repeated_solves_bitwise_no_cholmod),
        cmocka_unit_test(test_shared_factor_on_two_threads),
        cmocka_unit_test(test_workspace_too_small_rejected),
        cmocka_unit_test(test_nonfinite_rhs_rejected),
        cmocka_unit_test(test_four_solves_bitwise_one_at_a_time),
        cmocka_unit_test(test_one_by_one),
        cmocka_unit_test(test_power_of_two_scaling_exact),
        cmocka_unit_test(test_factor_nonzeros),
        cmocka_unit_test(test_large_body_ordering),
        cmocka_unit_test(test_free_null_safe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
