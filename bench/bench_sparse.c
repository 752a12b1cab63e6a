/* Timing of the global step's linear algebra: factoring the n×n matrix (mass term plus weighted
 * graph Laplacian) and the 3-right-hand-side solve, on random geometric graphs with the node and
 * edge counts of the paper's dinosaur (100 / 261), bunny-and-sheet (496 / 1,647) and 52-model
 * (4,120 / 18,574) scenes, the last both as one connected graph and as 52 separate bodies in one
 * matrix. opsim's wrapper (simplicial LDLᵀ, AMD; one solve, and four at once as a group of arap
 * instances solves them, op_sparse_solve3_four) is set against CHOLMOD called directly with
 * other settings (orderings AMD, METIS and the natural one; simplicial and supernodal, the
 * supernodal solve one cholmod_solve2 with the three columns as one dense B), and against
 * arap's global = pcg (core/kernels/sparse_cg.h: CG preconditioned by Jacobi or by IC(0), from
 * zero, to a relative residual of 1e-8, or by DIC with Eisenstat's trick; its nnz column is A's stored entries and the CSV gives
 * its iterations), so that the wrapper's choices stay measured.
 *
 * -n N (repeatable) adds one connected body of N nodes and 4.1 N edges (the dinosaur rebuilt
 * with 2,000 particles has 8,152 edges), the scaling study's sizes (docs/scaling.md, *The
 * global step at scale*): e.g. bench_sparse -n 1000 -n 16000 -n 100000. The natural order is
 * left out there (its fill at 16,000 nodes is that of a dense band). The graph maker is
 * quadratic in N: a 100,000-node body takes minutes to make, and its run some 25 minutes on a
 * shared 2-core machine.
 *
 * -c counts instead of timing (any machine, any load): per size, L's entries in opsim's factor,
 * A's, and for each preconditioner the CG iterations from zero to 1e-8, the matrix entries one
 * solve reads (the factor: L twice; CG: A's once a product, the preconditioner's once an
 * application, op_sparse_cg_entries_per_iteration) and the bytes each holds, per node.
 * -k K sets the stiffness (default 1e5, a mass-dominated matrix; Fig. 5's dinosaur is stiffer
 * relative to its mass). */
#include <cholmod.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "opsim/platform.h"
#include "kernels/sparse.h"
#include "kernels/sparse_cg.h"
#include "base/timer.h"

/* Each measurement is the median of up to MAX_RUNS runs, the solve's runs of up to MAX_SOLVES
 * solves, cut down for the slow variants so that one measurement takes about BUDGET_US. */
enum { MAX_RUNS = 31, MIN_RUNS = 5, MAX_SOLVES = 100, N_CANDIDATES = 12 };
static const double BUDGET_US = 1e5;

/* One scene's matrix: `bodies` connected graphs of about nodes/bodies nodes each, numbered one
 * after the other (a block-diagonal matrix). */
typedef struct graph_size {
    const char *scene;
    int nodes, edges, bodies;
} graph_size;

enum { N_PAPER_SIZES = 4, MAX_SIZES = 16 };
static graph_size SIZES[MAX_SIZES] = {
    { "dinosaur", 100, 261, 1 },
    { "bunny+sheet", 496, 1647, 1 },
    { "52-models", 4120, 18574, 1 },
    { "52-models", 4120, 18574, 52 },
};
static int size_count = N_PAPER_SIZES;
static const double BODY_EDGES_PER_NODE = 4.1;
static double stiffness = 1e5; /* -k */

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
     * an edge from each further component to a random earlier node connects it. */
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

/* A = diag(m_i / h²) + k Σ_edges (v_i + v_j)(e_i − e_j)(e_i − e_j)ᵀ, as in the global step;
 * each body's points fill their own unit cube. */
static problem make_problem(const graph_size *size, uint64_t seed)
{
    op_rng rng = op_rng_seeded(seed);
    int n = size->nodes, max_edges = size->edges + n;
    double *p = checked_calloc(3 * (size_t)n, sizeof *p), *vol = checked_calloc((size_t)n, sizeof *vol);
    int *ea = checked_calloc((size_t)max_edges, sizeof *ea), *eb = checked_calloc((size_t)max_edges, sizeof *eb);
    int edges = 0;
    for (int body = 0, first = 0; body < size->bodies; ++body) {
        /* spread nodes and edges as evenly as the counts allow */
        int nb = n / size->bodies + (body < n % size->bodies);
        int mb = size->edges / size->bodies + (body < size->edges % size->bodies);
        double *q = &p[3 * (size_t)first];
        for (int k = 0; k < 3 * nb; ++k)
            q[k] = op_rng_uniform(&rng);
        qsort(q, (size_t)nb, 3 * sizeof *q, compare_point);
        int m = make_graph(&rng, nb, mb, q, &ea[edges], &eb[edges]);
        for (int e = edges; e < edges + m; ++e) {
            ea[e] += first;
            eb[e] += first;
        }
        edges += m;
        first += nb;
    }

    problem pr = { .n = n, .edges = edges, .count = n + 3 * edges };
    pr.rows = checked_calloc((size_t)pr.count, sizeof *pr.rows);
    pr.cols = checked_calloc((size_t)pr.count, sizeof *pr.cols);
    pr.values = checked_calloc((size_t)pr.count, sizeof *pr.values);
    pr.rhs = checked_calloc(3 * (size_t)n, sizeof *pr.rhs);
    const double density = 1000.0, h = 1.0 / 60.0;
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
    return 1e6 * op_now();
}

/* How many repetitions of something taking `estimate_us` fit in `budget_us`, within [lo, hi]. */
static int repetitions(double budget_us, double estimate_us, int lo, int hi)
{
    double r = budget_us / fmax(estimate_us, 1e-3);
    return r < lo ? lo : r > hi ? hi : (int)r;
}

static double median(double *x, int count)
{
    qsort(x, (size_t)count, sizeof *x, compare_double);
    return x[count / 2];
}

/* Something to time: `factor` builds a fresh factor, `solve` does one solve with it. */
typedef struct timed {
    void (*factor)(void *self);
    void (*solve)(void *self);
    void *self;
    /* filled by measure() */
    int factor_runs, solve_runs, solves_per_run;
    double factor_us, solve_us;
    double factor_times[MAX_RUNS], solve_times[MAX_RUNS];
} timed;

/* Medians of the factor time and of the per-solve time over runs of several solves. The
 * variants take turns run by run, so that a change in the machine's load (it is shared) falls on
 * all of them alike. A first factor and two solves warm each up; the second solve's time sizes
 * its runs. */
static void measure(timed *t, int count)
{
    for (int v = 0; v < count; ++v) {
        double t0 = now_us();
        t[v].factor(t[v].self);
        t[v].factor_runs = repetitions(BUDGET_US, now_us() - t0, MIN_RUNS, MAX_RUNS);
        t[v].solve(t[v].self);
        t0 = now_us();
        t[v].solve(t[v].self);
        double estimate = now_us() - t0;
        t[v].solves_per_run = repetitions(BUDGET_US / MAX_RUNS, estimate, 1, MAX_SOLVES);
        t[v].solve_runs = repetitions(BUDGET_US, estimate * t[v].solves_per_run, MIN_RUNS, MAX_RUNS);
    }
    for (int run = 0; run < MAX_RUNS; ++run)
        for (int v = 0; v < count; ++v)
            if (run < t[v].factor_runs) {
                double t0 = now_us();
                t[v].factor(t[v].self);
                t[v].factor_times[run] = now_us() - t0;
            }
    for (int run = 0; run < MAX_RUNS; ++run)
        for (int v = 0; v < count; ++v)
            if (run < t[v].solve_runs) {
                double t0 = now_us();
                for (int s = 0; s < t[v].solves_per_run; ++s)
                    t[v].solve(t[v].self);
                t[v].solve_times[run] = (now_us() - t0) / t[v].solves_per_run;
            }
    for (int v = 0; v < count; ++v) {
        t[v].factor_us = median(t[v].factor_times, t[v].factor_runs);
        t[v].solve_us = median(t[v].solve_times, t[v].solve_runs);
    }
}

typedef struct result {
    const char *variant, *id; /* for the table; for the CSV lines */
    long nonzeros;
    int factor_runs, solve_runs, solves_per_run;
    double factor_us, solve_us;
    double checksum; /* Σ of the solution: the variants agree to rounding, opsim and
                      * CHOLMOD's simplicial AMD exactly */
    int iterations;  /* pcg's; 0 for the direct solves */
} result;

static void take_timing(result *r, const timed *t)
{
    r->factor_runs = t->factor_runs;
    r->solve_runs = t->solve_runs;
    r->solves_per_run = t->solves_per_run;
    r->factor_us = t->factor_us;
    r->solve_us = t->solve_us;
}

/* ---- opsim's wrapper ---- */

typedef struct opsim_bench {
    const problem *pr;
    op_sparse_factor *f;
    op_sparse_workspace work;
    double *x;
} opsim_bench;

static void die_ctx(const op_ctx *ctx)
{
    fprintf(stderr, "bench_sparse: %s\n", ctx->message);
    exit(1);
}

static void opsim_factor(void *self)
{
    opsim_bench *b = self;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_sparse_factor_free(&b->f);
    if (op_sparse_factor_create(&ctx, b->pr->n, b->pr->count, b->pr->rows, b->pr->cols, b->pr->values, &b->f) ||
        op_sparse_workspace_reserve(&ctx, &b->work, b->f))
        die_ctx(&ctx);
}

/* The solve is in place: the right-hand side is restored each time (a copy of 3n doubles). */
static void opsim_solve(void *self)
{
    opsim_bench *b = self;
    op_ctx ctx;
    op_ctx_init(&ctx);
    memcpy(b->x, b->pr->rhs, 3 * (size_t)b->pr->n * sizeof *b->x);
    if (op_sparse_solve3(&ctx, b->f, &b->work, b->x))
        die_ctx(&ctx);
}

static void opsim_setup(opsim_bench *b, const problem *pr)
{
    *b = (opsim_bench){ .pr = pr, .x = checked_calloc(3 * (size_t)pr->n, sizeof *b->x) };
}

static result opsim_finish(opsim_bench *b, const timed *t)
{
    result r = { .variant = "opsim: simplicial LDL', AMD", .id = "opsim_simplicial_amd" };
    take_timing(&r, t);
    r.nonzeros = op_sparse_factor_nonzeros(b->f);
    for (int k = 0; k < 3 * b->pr->n; ++k)
        r.checksum += b->x[k];
    op_sparse_factor_free(&b->f);
    op_sparse_workspace_free(&b->work);
    free(b->x);
    return r;
}

/* ---- opsim's wrapper, four right-hand sides at once ---- */

/* The four solves of a group of arap instances (op_sparse_solve3_four: side by side in AVX lanes,
 * two a register where the CPU has AVX-512, one after another without AVX), each of the
 * problem's right-hand side; the solve time is the four's, the checksum the first's (the same
 * bits as the one-solve row's). */
typedef struct opsim_four_bench {
    const problem *pr;
    op_sparse_factor *f;
    op_sparse_workspace work[4];
    double *x[4];
} opsim_four_bench;

static void opsim_four_factor(void *self)
{
    opsim_four_bench *b = self;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_sparse_factor_free(&b->f);
    if (op_sparse_factor_create(&ctx, b->pr->n, b->pr->count, b->pr->rows, b->pr->cols, b->pr->values, &b->f))
        die_ctx(&ctx);
    for (int m = 0; m < 4; ++m)
        if (op_sparse_workspace_reserve(&ctx, &b->work[m], b->f))
            die_ctx(&ctx);
}

static void opsim_four_solve(void *self)
{
    opsim_four_bench *b = self;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_sparse_workspace *work[4] = { &b->work[0], &b->work[1], &b->work[2], &b->work[3] };
    for (int m = 0; m < 4; ++m)
        memcpy(b->x[m], b->pr->rhs, 3 * (size_t)b->pr->n * sizeof *b->x[m]);
    int failed;
    if (op_sparse_solve3_four(&ctx, b->f, work, b->x, &failed))
        die_ctx(&ctx);
}

static void opsim_four_setup(opsim_four_bench *b, const problem *pr)
{
    *b = (opsim_four_bench){ .pr = pr };
    for (int m = 0; m < 4; ++m)
        b->x[m] = checked_calloc(3 * (size_t)pr->n, sizeof *b->x[m]);
}

static result opsim_four_finish(opsim_four_bench *b, const timed *t)
{
    result r = { .variant = "opsim: four solves at once", .id = "opsim_four_solves" };
    take_timing(&r, t);
    r.nonzeros = op_sparse_factor_nonzeros(b->f);
    for (int k = 0; k < 3 * b->pr->n; ++k)
        r.checksum += b->x[0][k];
    op_sparse_factor_free(&b->f);
    for (int m = 0; m < 4; ++m) {
        op_sparse_workspace_free(&b->work[m]);
        free(b->x[m]);
    }
    return r;
}

/* ---- arap's global = pcg ---- */

enum { PCG_MAX_ITERATIONS = 100000 };
static const double PCG_TOLERANCE = 1e-8;

typedef struct pcg_bench {
    const problem *pr;
    int preconditioner; /* PRECONDITIONER_NAMES' index */
    op_sparse_matrix *a;
    op_cg_workspace work;
    double *x;
    int iterations;
} pcg_bench;

static void pcg_factor(void *self)
{
    pcg_bench *b = self;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_sparse_matrix_free(&b->a);
    if (op_sparse_matrix_create(&ctx, b->pr->n, b->pr->count, b->pr->rows, b->pr->cols, b->pr->values, &b->a) ||
        (b->preconditioner == 1 && op_sparse_matrix_factor_ic0(&ctx, b->a)) ||
        (b->preconditioner == 2 && op_sparse_matrix_factor_dic(&ctx, b->a)) ||
        (b->preconditioner == 3 && op_sparse_matrix_factor_amg(&ctx, b->a)) ||
        op_cg_workspace_reserve(&ctx, &b->work, b->a))
        die_ctx(&ctx);
}

/* from zero each time: the global step warm-starts from the iterate, which this cannot mimic */
static void pcg_solve(void *self)
{
    pcg_bench *b = self;
    op_ctx ctx;
    op_ctx_init(&ctx);
    memset(b->x, 0, 3 * (size_t)b->pr->n * sizeof *b->x);
    if (op_sparse_cg3(&ctx, b->a, &b->work, b->pr->rhs, b->x, PCG_TOLERANCE, PCG_MAX_ITERATIONS, &b->iterations))
        die_ctx(&ctx);
}

static void pcg_setup(pcg_bench *b, const problem *pr, int preconditioner)
{
    *b = (pcg_bench){ .pr = pr, .preconditioner = preconditioner, .x = checked_calloc(3 * (size_t)pr->n, sizeof *b->x) };
}

enum { N_PRECONDITIONERS = 4 };
static const char *PRECONDITIONER_NAMES[N_PRECONDITIONERS][3] = {
    { "opsim: Jacobi PCG, 1e-8, from zero", "opsim_pcg_jacobi", "pcg jacobi" },
    { "opsim: IC(0) PCG, 1e-8, from zero", "opsim_pcg_ic0", "pcg ic0" },
    { "opsim: DIC PCG, 1e-8, from zero", "opsim_pcg_dic", "pcg dic" },
    { "opsim: AMG PCG, 1e-8, from zero", "opsim_pcg_amg", "pcg amg" },
};

static result pcg_finish(pcg_bench *b, const timed *t)
{
    result r = { .variant = PRECONDITIONER_NAMES[b->preconditioner][0], .id = PRECONDITIONER_NAMES[b->preconditioner][1] };
    take_timing(&r, t);
    r.nonzeros = op_sparse_matrix_nonzeros(b->a);
    r.iterations = b->iterations;
    for (int k = 0; k < 3 * b->pr->n; ++k)
        r.checksum += b->x[k];
    op_sparse_matrix_free(&b->a);
    op_cg_workspace_free(&b->work);
    free(b->x);
    return r;
}

/* ---- CHOLMOD called directly ---- */

typedef enum direct_variant {
    SIMPLICIAL_AMD,
    SIMPLICIAL_NATURAL,
    SIMPLICIAL_METIS,
    SUPERNODAL_AMD,
    SUPERNODAL_METIS,
    N_CHOLMOD
} direct_variant;

static const char *VARIANT_NAMES[N_CHOLMOD][2] = {
    { "cholmod: simplicial LDL', AMD", "cholmod_simplicial_amd" },
    { "cholmod: simplicial LDL', natural", "cholmod_simplicial_natural" },
    { "cholmod: simplicial LDL', METIS", "cholmod_simplicial_metis" },
    { "cholmod: supernodal LL', AMD", "cholmod_supernodal_amd" },
    { "cholmod: supernodal LL', METIS", "cholmod_supernodal_metis" },
};

typedef struct direct_bench {
    direct_variant variant;
    int n;
    cholmod_common c;
    cholmod_sparse *a;
    cholmod_factor *L;
    cholmod_dense *b, *x, *y, *e;
} direct_bench;

static void die_cholmod(const cholmod_common *c, const char *call)
{
    fprintf(stderr, "bench_sparse: %s failed with CHOLMOD status %d\n", call, c->status);
    exit(1);
}

static void direct_factor(void *self)
{
    direct_bench *b = self;
    cholmod_free_factor(&b->L, &b->c);
    b->L = cholmod_analyze(b->a, &b->c);
    if (!b->L || !cholmod_factorize(b->a, b->L, &b->c) || b->c.status != CHOLMOD_OK)
        die_cholmod(&b->c, "cholmod_analyze/cholmod_factorize");
}

static void direct_solve(void *self)
{
    direct_bench *b = self;
    if (!cholmod_solve2(CHOLMOD_A, b->L, b->b, NULL, &b->x, NULL, &b->y, &b->e, &b->c))
        die_cholmod(&b->c, "cholmod_solve2");
}

/* The factor time covers analysis and numerical factorisation (no assembly); the solve takes
 * the column-major right-hand side as it is (no transposes) and passes cholmod_solve2 its
 * workspace back (which, for three columns, it reallocates on each call: at most about 1% of a
 * solve). */
static void direct_setup(direct_bench *b, const problem *pr, direct_variant v)
{
    *b = (direct_bench){ .variant = v, .n = pr->n };
    cholmod_common *c = &b->c;
    cholmod_start(c);
    c->print = 0;
    int supernodal = v == SUPERNODAL_AMD || v == SUPERNODAL_METIS;
    c->supernodal = supernodal ? CHOLMOD_SUPERNODAL : CHOLMOD_SIMPLICIAL;
    c->final_ll = supernodal;
    c->nmethods = 1;
    c->method[0].ordering = v == SIMPLICIAL_NATURAL                          ? CHOLMOD_NATURAL
                            : v == SIMPLICIAL_METIS || v == SUPERNODAL_METIS ? CHOLMOD_METIS
                                                                             : CHOLMOD_AMD;
    cholmod_triplet *t = cholmod_allocate_triplet((size_t)pr->n, (size_t)pr->n, (size_t)pr->count, 1,
                                                  CHOLMOD_REAL, c);
    if (!t)
        die_cholmod(c, "cholmod_allocate_triplet");
    memcpy(t->i, pr->rows, (size_t)pr->count * sizeof *pr->rows);
    memcpy(t->j, pr->cols, (size_t)pr->count * sizeof *pr->cols);
    memcpy(t->x, pr->values, (size_t)pr->count * sizeof *pr->values);
    t->nnz = (size_t)pr->count;
    b->a = cholmod_triplet_to_sparse(t, (size_t)pr->count, c);
    cholmod_free_triplet(&t, c);
    b->b = cholmod_zeros((size_t)pr->n, 3, CHOLMOD_REAL, c);
    if (!b->a || !b->b)
        die_cholmod(c, "cholmod_triplet_to_sparse/cholmod_zeros");
    double *bx = b->b->x;
    for (int i = 0; i < pr->n; ++i)
        for (int k = 0; k < 3; ++k)
            bx[(size_t)k * pr->n + i] = pr->rhs[3 * i + k];
}

static result direct_finish(direct_bench *b, const timed *t)
{
    cholmod_common *c = &b->c;
    result r = { .variant = VARIANT_NAMES[b->variant][0], .id = VARIANT_NAMES[b->variant][1] };
    take_timing(&r, t);
    r.nonzeros = (long)c->lnz;
    const double *x = b->x->x;
    for (int i = 0; i < b->n; ++i) /* in opsim's row-major order, so that equal solutions match */
        for (int k = 0; k < 3; ++k)
            r.checksum += x[(size_t)k * b->n + i];
    cholmod_free_dense(&b->b, c);
    cholmod_free_dense(&b->x, c);
    cholmod_free_dense(&b->y, c);
    cholmod_free_dense(&b->e, c);
    cholmod_free_factor(&b->L, c);
    cholmod_free_sparse(&b->a, c);
    cholmod_finish(c);
    return r;
}

/* ---- -c: counts, no timing ---- */

/* One solve's counts: matrix entries read, iterations, bytes held. */
typedef struct counts {
    long entries_read;
    int iterations;
    size_t bytes;
} counts;

static counts count_factor(const problem *pr)
{
    opsim_bench b;
    opsim_setup(&b, pr);
    opsim_factor(&b);
    long below = op_sparse_factor_nonzeros(b.f) - pr->n;
    /* the factor's rows as test_arap_pcg counts them: 24 bytes an entry below the diagonal, 20
     * a row, 8, and the 64-byte-a-row workspace */
    counts c = { .entries_read = 2 * below + pr->n, .iterations = 0,
                 .bytes = (size_t)below * 24 + (size_t)pr->n * 84 + 8 };
    opsim_finish(&b, &(timed){ 0 });
    return c;
}

static counts count_pcg(const problem *pr, int preconditioner)
{
    pcg_bench b;
    pcg_setup(&b, pr, preconditioner);
    pcg_factor(&b);
    pcg_solve(&b);
    long per_iteration = op_sparse_cg_entries_per_iteration(b.a);
    /* the start's product and preconditioning, then one of each an iteration */
    counts c = { .entries_read = (b.iterations + 1) * per_iteration, .iterations = b.iterations,
                 .bytes = op_sparse_matrix_bytes(b.a) + op_cg_workspace_bytes(&b.work) };
    int rows[16];
    long entries[16];
    int levels = op_sparse_matrix_amg_levels(b.a, rows, entries, 16);
    if (levels > 0) { /* AMG's hierarchy: each level's rows and entries */
        printf("  amg levels (rows/entries):");
        for (int l = 0; l < levels && l < 16; ++l)
            printf(" %d/%ld", rows[l], entries[l]);
        printf("\n");
    }
    pcg_finish(&b, &(timed){ 0 });
    return c;
}

static void print_counts(void)
{
    printf("counts per solve of A X = B (3 columns), stiffness k = %g; CG from zero to 1e-8\n", stiffness);
    printf("  %-12s %7s %7s  %-14s %10s %6s %14s %10s %10s\n", "scene", "nodes", "edges", "solve", "nnz",
           "iter", "entries read", "per node", "bytes/node");
    for (int s = 0; s < size_count; ++s) {
        problem pr = make_problem(&SIZES[s], 0x5fa75e + (uint64_t)s);
        counts c[1 + N_PRECONDITIONERS] = { count_factor(&pr) };
        const char *names[1 + N_PRECONDITIONERS] = { "factor (L)" }, *ids[1 + N_PRECONDITIONERS] = { "factor" };
        long nnz[1 + N_PRECONDITIONERS] = { (c[0].entries_read - pr.n) / 2 + pr.n };
        for (int v = 1; v <= N_PRECONDITIONERS; ++v) {
            c[v] = count_pcg(&pr, v - 1);
            names[v] = PRECONDITIONER_NAMES[v - 1][2];
            ids[v] = PRECONDITIONER_NAMES[v - 1][1] + strlen("opsim_");
            nnz[v] = (long)pr.n + 2L * pr.edges;
        }
        for (int v = 0; v <= N_PRECONDITIONERS; ++v) {
            printf("  %-12s %7d %7d  %-14s %10ld %6d %14ld %10.0f %10.0f\n", v == 0 ? SIZES[s].scene : "", pr.n,
                   pr.edges, names[v], nnz[v], c[v].iterations, c[v].entries_read,
                   (double)c[v].entries_read / pr.n, (double)c[v].bytes / pr.n);
            printf("csv,sparse_counts,scene=%s,nodes=%d,edges=%d,stiffness=%g,solve=%s,nnz=%ld,iterations=%d,"
                   "entries_read=%ld,bytes=%zu\n", SIZES[s].scene, pr.n, pr.edges, stiffness,
                   ids[v], nnz[v], c[v].iterations,
                   c[v].entries_read, c[v].bytes);
        }
        free_problem(&pr);
    }
    printf("  nnz: L's entries (the diagonal included) for the factor, A's (both triangles) for pcg; the\n"
           "  factor's solve reads L below the diagonal twice and the diagonal once; a CG iteration reads\n"
           "  A once and the preconditioner once (Jacobi: n, IC(0): L's n + edges entries twice); DIC's\n"
           "  (Eisenstat's trick) reads A's off-diagonal entries once and four n-vectors of its diagonals;\n"
           "  AMG's V-cycle reads each level's matrix three times and prolongator twice, the coarsest\n"
           "  factor's L twice (amg levels: each level's rows and entries).\n");
}

static void usage_exit(void)
{
    fprintf(stderr, "usage: bench_sparse [-c] [-k STIFFNESS] [-n NODES]... (at most %d sizes, each 2 to "
            "10,000,000 nodes)\n", MAX_SIZES - N_PAPER_SIZES);
    exit(64);
}

/* -n N: a body of N nodes added to the sizes; -c: counts only; -k K: the stiffness */
static int parse_arguments(int argc, char **argv)
{
    int counting = 0;
    for (int a = 1; a < argc; ++a) {
        char *end = NULL;
        if (strcmp(argv[a], "-c") == 0) {
            counting = 1;
            continue;
        }
        if (a + 1 < argc && strcmp(argv[a], "-k") == 0) {
            stiffness = strtod(argv[++a], &end);
            if (*end || !(stiffness > 0.0 && stiffness < 1e300))
                usage_exit();
            continue;
        }
        long n = a + 1 < argc && strcmp(argv[a], "-n") == 0 ? strtol(argv[++a], &end, 10) : 0;
        if (n < 2 || n > 10000000 || *end || size_count == MAX_SIZES)
            usage_exit();
        SIZES[size_count++] = (graph_size){ "body", (int)n, (int)lround(BODY_EDGES_PER_NODE * (double)n), 1 };
    }
    return counting;
}

int main(int argc, char **argv)
{
    op_platform_init();
    if (parse_arguments(argc, argv)) {
        print_counts();
        return 0;
    }
    enum { OPSIM_VARIANTS = 2, N_VARIANTS = OPSIM_VARIANTS + N_PRECONDITIONERS + N_CHOLMOD };
    static result results[MAX_SIZES][N_VARIANTS];
    static problem problems[MAX_SIZES];
    for (int s = 0; s < size_count; ++s) {
        problems[s] = make_problem(&SIZES[s], 0x5fa75e + (uint64_t)s);
        opsim_bench ob;
        opsim_four_bench ofb;
        pcg_bench pb[N_PRECONDITIONERS];
        direct_bench cb[N_CHOLMOD];
        timed t[N_VARIANTS] = { { .factor = opsim_factor, .solve = opsim_solve, .self = &ob },
                                { .factor = opsim_four_factor, .solve = opsim_four_solve, .self = &ofb } };
        opsim_setup(&ob, &problems[s]);
        opsim_four_setup(&ofb, &problems[s]);
        for (int v = 0; v < N_PRECONDITIONERS; ++v) {
            pcg_setup(&pb[v], &problems[s], v);
            t[OPSIM_VARIANTS + v] = (timed){ .factor = pcg_factor, .solve = pcg_solve, .self = &pb[v] };
        }
        /* the natural order only at the paper's sizes (see the file comment) */
        int direct = 0, timed_count = OPSIM_VARIANTS + N_PRECONDITIONERS, large = s >= N_PAPER_SIZES;
        for (int v = 0; v < N_CHOLMOD; ++v) {
            if (large && v == SIMPLICIAL_NATURAL)
                continue;
            direct_setup(&cb[direct], &problems[s], (direct_variant)v);
            t[timed_count++] = (timed){ .factor = direct_factor, .solve = direct_solve, .self = &cb[direct++] };
        }
        measure(t, timed_count);
        results[s][0] = opsim_finish(&ob, &t[0]);
        results[s][1] = opsim_four_finish(&ofb, &t[1]);
        for (int v = 0; v < N_PRECONDITIONERS; ++v)
            results[s][OPSIM_VARIANTS + v] = pcg_finish(&pb[v], &t[OPSIM_VARIANTS + v]);
        for (int v = 0; v < N_CHOLMOD; ++v)
            results[s][v + OPSIM_VARIANTS + N_PRECONDITIONERS] = (result){ .variant = NULL };
        for (int d = 0; d < direct; ++d)
            results[s][d + OPSIM_VARIANTS + N_PRECONDITIONERS] =
                direct_finish(&cb[d], &t[d + OPSIM_VARIANTS + N_PRECONDITIONERS]);
    }

    printf("sparse factor and 3-RHS solve on random geometric graphs (medians; up to %d runs of up to %d solves)\n",
           MAX_RUNS, MAX_SOLVES);
    printf("  %-12s %6s %6s %6s  %-34s %9s %11s %10s %5s\n", "scene", "bodies", "nodes", "edges", "variant",
           "nnz(L)", "factor us", "solve us", "iter");
    for (int s = 0; s < size_count; ++s)
        for (int v = 0; v < N_VARIANTS; ++v) {
            const result *r = &results[s][v];
            if (!r->variant)
                continue;
            printf("  %-12s %6d %6d %6d  %-34s %9ld %11.1f %10.2f %5d\n", v == 0 ? SIZES[s].scene : "",
                   SIZES[s].bodies, problems[s].n, problems[s].edges, r->variant, r->nonzeros,
                   r->factor_us, r->solve_us, r->iterations);
        }
    printf("  opsim's factor time includes validation, assembly and copying L out of CHOLMOD (the first\n"
           "  run also sizes the workspace); its solve time, the finiteness check and restoring the\n"
           "  right-hand side; the four-solve row's, op_sparse_solve3_four's for all four (a group's\n"
           "  instances, in AVX or AVX-512 lanes where the CPU has them). The 52-model scene is timed\n"
           "  as one connected graph and as its 52 bodies in one block-diagonal matrix. The PCG rows' nnz\n"
           "  is A's (both triangles), their factor time the matrix's assembly (and IC(0)'s or DIC's\n"
           "  factor), their solve from zero to a relative residual of 1e-8 (iter: the CG iterations); DIC\n"
           "  is applied by Eisenstat's trick.\n");
    for (int s = 0; s < size_count; ++s)
        for (int v = 0; v < N_VARIANTS; ++v) {
            const result *r = &results[s][v];
            if (!r->variant)
                continue;
            printf("csv,sparse,scene=%s,bodies=%d,nodes=%d,edges=%d,variant=%s,nnz_L=%ld,factor_us=%.1f,"
                   "factor_runs=%d,solve_us=%.3f,solve_runs=%d,solves_per_run=%d,iterations=%d,checksum=%.17g\n",
                   SIZES[s].scene, SIZES[s].bodies, problems[s].n, problems[s].edges, r->id, r->nonzeros,
                   r->factor_us, r->factor_runs, r->solve_us, r->solve_runs, r->solves_per_run, r->iterations,
                   r->checksum);
        }
    for (int s = 0; s < size_count; ++s)
        free_problem(&problems[s]);
    return 0;
}
