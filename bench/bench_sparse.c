/* Timing of the global step's linear algebra: factoring the n×n matrix (mass term plus weighted
 * graph Laplacian) and the 3-right-hand-side solve, on random geometric graphs with the node and
 * edge counts of the paper's dinosaur (100 / 261), bunny-and-sheet (496 / 1,647) and 52-model
 * (4,120 / 18,574) scenes. opsim's wrapper (simplicial LDLᵀ, AMD) is set against CHOLMOD called
 * directly with other settings, so that the wrapper's choices stay measured. */
#include <cholmod.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rng.h"
#include "sparse.h"

enum { N_RUNS = 31, N_SOLVES = 100, N_CANDIDATES = 12 };

typedef struct graph_size {
    const char *scene;
    int nodes, edges;
} graph_size;

static const graph_size SIZES[] = {
    { "dinosaur", 100, 261 },
    { "bunny+sheet", 496, 1647 },
    { "52 models", 4120, 18574 },
};

/* The matrix in triplet form (upper triangle) and a fixed row-major right-hand side. */
typedef struct problem {
    int n, edges, count;
    int *rows, *cols;
    double *values, *rhs;
} problem;

typedef struct edge {
    double length;
    int a, b;
} edge;

static int compare_edge(const void *x, const void *y)
{
    const edge *e = x, *f = y;
    if (e->length != f->length)
        return (e->length > f->length) - (e->length < f->length);
    if (e->a != f->a)
        return e->a - f->a;
    return e->b - f->b;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int find_root(int *parent, int i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

static double distance2(const double *p, int a, int b)
{
    double dx = p[3 * a] - p[3 * b], dy = p[3 * a + 1] - p[3 * b + 1], dz = p[3 * a + 2] - p[3 * b + 2];
    return dx * dx + dy * dy + dz * dz;
}

static int compare_point(const void *x, const void *y)
{
    const double *p = x, *q = y;
    for (int k = 2; k >= 0; --k) {
        /* voxel-like scan order (z slab, then y row, then x) on a 16³ grid */
        int cp = (int)(p[k] * 16.0), cq = (int)(q[k] * 16.0);
        if (cp != cq)
            return cp - cq;
    }
    return compare_double(&p[0], &q[0]);
}

static void *checked_calloc(size_t count, size_t size)
{
    void *p = calloc(count, size);
    if (!p) {
        fprintf(stderr, "bench_sparse: out of memory\n");
        exit(1);
    }
    return p;
}

/* A connected random geometric graph: points uniform in the unit cube numbered in voxel scan
 * order (as the solid builder numbers its particles), the minimum spanning tree of the
 * N_CANDIDATES-nearest-neighbour graph, then its shortest other edges up to `edges`. */
static int make_graph(op_rng *rng, int n, int edges, const double *p, int *ea, int *eb)
{
    edge *cand = checked_calloc((size_t)n * N_CANDIDATES, sizeof *cand);
    int ncand = 0;
    for (int i = 0; i < n; ++i) {
        edge best[N_CANDIDATES];
        int nbest = 0;
        for (int j = 0; j < n; ++j) {
            if (j == i)
                continue;
            double d = distance2(p, i, j);
            if (nbest == N_CANDIDATES && d >= best[nbest - 1].length)
                continue;
            int k = nbest < N_CANDIDATES ? nbest++ : nbest - 1;
            while (k > 0 && best[k - 1].length > d) {
                best[k] = best[k - 1];
                --k;
            }
            best[k] = (edge){ d, i < j ? i : j, i < j ? j : i };
        }
        for (int k = 0; k < nbest; ++k)
            cand[ncand++] = best[k];
    }
    qsort(cand, (size_t)ncand, sizeof *cand, compare_edge);
    int unique = 0;
    for (int k = 0; k < ncand; ++k)
        if (unique == 0 || cand[k].a != cand[unique - 1].a || cand[k].b != cand[unique - 1].b)
            cand[unique++] = cand[k];

    int *parent = checked_calloc((size_t)n, sizeof *parent);
    char *used = checked_calloc((size_t)unique, 1);
    for (int i = 0; i < n; ++i)
        parent[i] = i;
    int m = 0;
    for (int k = 0; k < unique; ++k) {
        int ra = find_root(parent, cand[k].a), rb = find_root(parent, cand[k].b);
        if (ra != rb) {
            parent[ra] = rb;
            ea[m] = cand[k].a;
            eb[m++] = cand[k].b;
            used[k] = 1;
        }
    }
    /* The nearest-neighbour graph of uniform points is connected in practice; should it not be,
     * a random bridge per extra component keeps the matrix positive definite all the same. */
    for (int i = 1; i < n; ++i) {
        int ri = find_root(parent, i), r0 = find_root(parent, 0);
        if (ri != r0) {
            parent[ri] = r0;
            ea[m] = op_rng_below(rng, i);
            eb[m++] = i;
        }
    }
    for (int k = 0; k < unique && m < edges; ++k)
        if (!used[k]) {
            ea[m] = cand[k].a;
            eb[m++] = cand[k].b;
        }
    free(used);
    free(parent);
    free(cand);
    return m;
}

/* A = diag(m_i / h²) + k Σ_edges (v_i + v_j)(e_i − e_j)(e_i − e_j)ᵀ, as in the global step. */
static problem make_problem(const graph_size *size, uint64_t seed)
{
    op_rng rng = op_rng_seeded(seed);
    int n = size->nodes;
    double *p = checked_calloc(3 * (size_t)n, sizeof *p), *vol = checked_calloc((size_t)n, sizeof *vol);
    for (int k = 0; k < 3 * n; ++k)
        p[k] = op_rng_uniform(&rng);
    qsort(p, (size_t)n, 3 * sizeof *p, compare_point);
    int *ea = checked_calloc((size_t)size->edges + (size_t)n, sizeof *ea);
    int *eb = checked_calloc((size_t)size->edges + (size_t)n, sizeof *eb);
    int edges = make_graph(&rng, n, size->edges, p, ea, eb);

    problem pr = { .n = n, .edges = edges, .count = n + 3 * edges };
    pr.rows = checked_calloc((size_t)pr.count, sizeof *pr.rows);
    pr.cols = checked_calloc((size_t)pr.count, sizeof *pr.cols);
    pr.values = checked_calloc((size_t)pr.count, sizeof *pr.values);
    pr.rhs = checked_calloc(3 * (size_t)n, sizeof *pr.rhs);
    const double density = 1000.0, h = 1.0 / 60.0, stiffness = 1e5;
    int t = 0;
    for (int i = 0; i < n; ++i) {
        vol[i] = 1e-4 * (0.5 + op_rng_uniform(&rng));
        pr.rows[t] = pr.cols[t] = i;
        pr.values[t++] = density * vol[i] / (h * h);
    }
    for (int e = 0; e < edges; ++e) {
        double w = stiffness * (vol[ea[e]] + vol[eb[e]]);
        pr.rows[t] = pr.cols[t] = ea[e];
        pr.values[t++] = w;
        pr.rows[t] = pr.cols[t] = eb[e];
        pr.values[t++] = w;
        pr.rows[t] = ea[e];
        pr.cols[t] = eb[e];
        pr.values[t++] = -w;
    }
    for (int k = 0; k < 3 * n; ++k)
        pr.rhs[k] = 2.0 * op_rng_uniform(&rng) - 1.0;
    free(ea);
    free(eb);
    free(vol);
    free(p);
    return pr;
}

static void free_problem(problem *pr)
{
    free(pr->rows);
    free(pr->cols);
    free(pr->values);
    free(pr->rhs);
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e6 * (double)t.tv_sec + 1e-3 * (double)t.tv_nsec;
}

static double median(double *x, int count)
{
    qsort(x, (size_t)count, sizeof *x, compare_double);
    return x[count / 2];
}

typedef struct result {
    const char *variant;
    long nonzeros;
    double factor_us, solve_us, checksum;
} result;

static void die_ctx(const op_ctx *ctx)
{
    fprintf(stderr, "bench_sparse: %s\n", ctx->message);
    exit(1);
}

static result bench_opsim(const problem *pr)
{
    result r = { .variant = "opsim: simplicial LDL', AMD" };
    double t[N_RUNS];
    double *x = checked_calloc(3 * (size_t)pr->n, sizeof *x);
    op_sparse_factor *f = NULL;
    for (int run = 0; run < N_RUNS; ++run) {
        op_ctx ctx;
        op_ctx_init(&ctx);
        op_sparse_factor_free(&f);
        double t0 = now_us();
        if (op_sparse_factor_create(&ctx, pr->n, pr->count, pr->rows, pr->cols, pr->values, &f) != OP_OK)
            die_ctx(&ctx);
        t[run] = now_us() - t0;
    }
    r.factor_us = median(t, N_RUNS);
    r.nonzeros = op_sparse_factor_nonzeros(f);
    for (int run = 0; run < N_RUNS; ++run) {
        op_ctx ctx;
        op_ctx_init(&ctx);
        double t0 = now_us();
        for (int s = 0; s < N_SOLVES; ++s) {
            memcpy(x, pr->rhs, 3 * (size_t)pr->n * sizeof *x);
            if (op_sparse_solve3(&ctx, f, x) != OP_OK)
                die_ctx(&ctx);
        }
        t[run] = (now_us() - t0) / N_SOLVES;
    }
    r.solve_us = median(t, N_RUNS);
    for (int k = 0; k < 3 * pr->n; ++k)
        r.checksum += x[k];
    op_sparse_factor_free(&f);
    free(x);
    return r;
}

typedef enum cholmod_variant { SIMPLICIAL_AMD, SIMPLICIAL_NATURAL, SUPERNODAL_AMD, CHOLMOD_DEFAULTS } cholmod_variant;

static const char *VARIANT_NAMES[] = {
    "cholmod: simplicial LDL', AMD",
    "cholmod: simplicial LDL', natural",
    "cholmod: supernodal LL', AMD",
    "cholmod: defaults",
};

static void die_cholmod(const cholmod_common *c, const char *call)
{
    fprintf(stderr, "bench_sparse: %s failed with CHOLMOD status %d\n", call, c->status);
    exit(1);
}

/* CHOLMOD called directly on the same matrix: the factor time covers analysis and numerical
 * factorisation only (no triplet assembly), the solve uses the column-major right-hand side
 * as it is (no transposes) and cholmod_solve2's reused workspace. */
static result bench_cholmod(const problem *pr, cholmod_variant v)
{
    result r = { .variant = VARIANT_NAMES[v] };
    cholmod_common c;
    cholmod_start(&c);
    c.print = 0;
    if (v != CHOLMOD_DEFAULTS) {
        c.supernodal = v == SUPERNODAL_AMD ? CHOLMOD_SUPERNODAL : CHOLMOD_SIMPLICIAL;
        c.final_ll = v == SUPERNODAL_AMD;
        c.nmethods = 1;
        c.method[0].ordering = v == SIMPLICIAL_NATURAL ? CHOLMOD_NATURAL : CHOLMOD_AMD;
    }
    cholmod_triplet *t = cholmod_allocate_triplet((size_t)pr->n, (size_t)pr->n, (size_t)pr->count, 1,
                                                  CHOLMOD_REAL, &c);
    if (!t)
        die_cholmod(&c, "cholmod_allocate_triplet");
    memcpy(t->i, pr->rows, (size_t)pr->count * sizeof *pr->rows);
    memcpy(t->j, pr->cols, (size_t)pr->count * sizeof *pr->cols);
    memcpy(t->x, pr->values, (size_t)pr->count * sizeof *pr->values);
    t->nnz = (size_t)pr->count;
    cholmod_sparse *a = cholmod_triplet_to_sparse(t, (size_t)pr->count, &c);
    if (!a)
        die_cholmod(&c, "cholmod_triplet_to_sparse");
    double times[N_RUNS];
    cholmod_factor *L = NULL;
    for (int run = 0; run < N_RUNS; ++run) {
        cholmod_free_factor(&L, &c);
        double t0 = now_us();
        L = cholmod_analyze(a, &c);
        if (!L || !cholmod_factorize(a, L, &c) || c.status != CHOLMOD_OK)
            die_cholmod(&c, "cholmod_analyze/cholmod_factorize");
        times[run] = now_us() - t0;
    }
    r.factor_us = median(times, N_RUNS);
    r.nonzeros = (long)c.lnz;
    cholmod_dense *b = cholmod_zeros((size_t)pr->n, 3, CHOLMOD_REAL, &c), *x = NULL, *y = NULL, *e = NULL;
    if (!b)
        die_cholmod(&c, "cholmod_zeros");
    double *bx = b->x;
    for (int i = 0; i < pr->n; ++i)
        for (int k = 0; k < 3; ++k)
            bx[(size_t)k * pr->n + i] = pr->rhs[3 * i + k];
    for (int run = 0; run < N_RUNS; ++run) {
        double t0 = now_us();
        for (int s = 0; s < N_SOLVES; ++s)
            if (!cholmod_solve2(CHOLMOD_A, L, b, NULL, &x, NULL, &y, &e, &c))
                die_cholmod(&c, "cholmod_solve2");
        times[run] = (now_us() - t0) / N_SOLVES;
    }
    r.solve_us = median(times, N_RUNS);
    const double *xx = x->x;
    for (int k = 0; k < 3 * pr->n; ++k)
        r.checksum += xx[k];
    cholmod_free_dense(&b, &c);
    cholmod_free_dense(&x, &c);
    cholmod_free_dense(&y, &c);
    cholmod_free_dense(&e, &c);
    cholmod_free_factor(&L, &c);
    cholmod_free_sparse(&a, &c);
    cholmod_free_triplet(&t, &c);
    cholmod_finish(&c);
    return r;
}

int main(void)
{
    enum { N_SIZES = sizeof SIZES / sizeof SIZES[0], N_VARIANTS = 5 };
    result results[N_SIZES][N_VARIANTS];
    problem problems[N_SIZES];
    for (int s = 0; s < N_SIZES; ++s) {
        problems[s] = make_problem(&SIZES[s], 0x5fa75e + (uint64_t)s);
        results[s][0] = bench_opsim(&problems[s]);
        for (int v = 0; v < N_VARIANTS - 1; ++v)
            results[s][v + 1] = bench_cholmod(&problems[s], (cholmod_variant)v);
    }

    printf("sparse factor and 3-RHS solve, random geometric graphs; median of %d runs (solve: of %d solves)\n",
           N_RUNS, N_SOLVES);
    printf("  %-12s %6s %6s  %-34s %9s %11s %10s\n", "scene", "nodes", "edges", "variant", "nnz(L)",
           "factor us", "solve us");
    for (int s = 0; s < N_SIZES; ++s)
        for (int v = 0; v < N_VARIANTS; ++v) {
            const result *r = &results[s][v];
            printf("  %-12s %6d %6d  %-34s %9ld %11.1f %10.2f\n", v == 0 ? SIZES[s].scene : "",
                   problems[s].n, problems[s].edges, r->variant, r->nonzeros, r->factor_us, r->solve_us);
        }
    printf("  (opsim's factor time includes validation, triplet assembly and the first solve)\n");
    for (int s = 0; s < N_SIZES; ++s)
        for (int v = 0; v < N_VARIANTS; ++v) {
            const result *r = &results[s][v];
            printf("csv,sparse,scene=%s,nodes=%d,edges=%d,variant=%s,nnz_L=%ld,factor_us=%.1f,solve_us=%.2f,"
                   "checksum=%.17g\n",
                   SIZES[s].scene, problems[s].n, problems[s].edges, r->variant, r->nonzeros, r->factor_us,
                   r->solve_us, r->checksum);
        }
    for (int s = 0; s < N_SIZES; ++s)
        free_problem(&problems[s]);
    return 0;
}
