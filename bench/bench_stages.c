/* Each stage of a frame on its own, in ns per particle, edge, L nonzero or vertex, against its floor
 * (docs/performance.md): the least time the stage's arithmetic or its memory traffic allows on
 * this machine, both measured here.
 *
 * The machine: peak double-precision arithmetic (independent AVX adds and multiplies side by
 * side, as the code may use them: no fused multiply-add, -ffp-contract=off), read bandwidth from
 * the L1 and L2 caches (a 24 KB and a 384 KB array read again and again) and the memory's stream
 * bandwidth (the STREAM triad a = b + s·c on three 32 MB arrays, 24 bytes an element as STREAM
 * counts them).
 * Each is the best of several runs: the floor is what the machine can do, not what it did while
 * others used it. With two threads or more, also what the threads' meeting costs, the least of
 * several runs too: an OpenMP parallel region's start and end (a fork), a barrier, and a cache
 * line handed from one thread to the other (op_team_handoff_ns, core/sim/team.h); a
 * parallel loop pays off only for work well above these (docs/performance.md; the world
 * chooses its teams by timing them, docs/timing.md).
 *
 * The stages, on a scene loaded from a config and stepped WARMUP frames so that its state is a
 * running one, each called CALLS times on that state and timed call by call; the median call is
 * reported, so that the calls another process interrupted do not count. The calls repeat a
 * stage on a state it has already seen, which is what a frame's iterations do too.
 *   predict   op_world_begin_substep (world.c's PREDICT and the solver's BEGIN), per particle
 *   local     the local step as a frame's iterations run it (op_world_iterate: each unit, a
 *             body alone or a group of four twins side by side, its local time from the
 *             iteration's stage times), per particle, and per edge from the fit below
 *   global    the global step likewise (right-hand side, solve, placement), from the same
 *             calls; and the triangular solves alone (op_sparse_solve3), per nonzero of L
 *   chebyshev op_chebyshev_apply on every body after an extrapolating iteration, per particle
 *   skinning  op_skin_apply on every body, per visual vertex
 *   broad     op_broad_phase_find on every particle's centre and bound, per particle
 *   narrow    op_collide_bodies reusing the broad phase's pairs (the state restored before each
 *             call), per particle: with the few pairs of a scene (tens to hundreds against
 *             thousands of particles) its cost is gathering and scattering every particle
 *
 * The floors: per item, the floating-point operations and bytes each stage's loops do, counted
 * from the code (the OPS table below, each entry with where it was counted), divided by the
 * measured peak and by the bandwidth of the level the stage's data lives in (the smallest cache
 * that holds what a call touches, else memory). The larger of the two is the floor; the
 * ratio measured / floor is what docs/performance.md reports. Each scene ends with a frame at
 * the floors: the stages' floors times the calls a frame makes (a prediction, a contact call and
 * a search a sub-step, a local and a global step an iteration), in bench_scenes' columns, on one
 * core and shared perfectly by the threads: Table 1's ratios measured against what the machine
 * allows (docs/performance.md, "What 12× on the piles needs").
 *
 * Local and global time grow with particles and edges both; the least-squares fit
 * t = a·particles + b·edges over the one-body scenes (the dinosaur's 2.6 edges a particle, the
 * lattice's 10.2) separates the two, so that costs carry over to graphs of another density.
 *
 * Options: -s CONFIG (repeatable; default the dinosaur of Fig. 4, experiments/perf-cube.ini's
 * lattice of 729 particles, bunny and sheet, and the 52 models), -x SECTION.KEY=VALUE (an
 * override for every scene, repeatable), -w WARMUP frames (60), -n CALLS per stage (101).
 * Threads: OpenMP's (OMP_NUM_THREADS); predict, the iterations and the contacts share them as in
 * a frame (on threads the iterations' wall time is apportioned to local and global as
 * op_world_iterate does), the other stages are called body after body on the calling thread.
 * Run from the project root. */
#include <getopt.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arap.h"
#include "bench_median.h"
#include "accel/chebyshev.h"
#include "contact/collide.h"
#include "opsim/ctx.h"
#include "base/math3.h"
#include "opsim/platform.h"
#include "opsim/scene.h"
#include "kernels/simd.h"
#include "sim/team.h"
#include "geometry/skin.h"
#include "kernels/sparse.h"
#include "base/timer.h"
#include "geometry/model.h"

enum { MAX_SCENES = 8, MAX_OVERRIDES = 16 };

/* ---- the machine ---- */

typedef struct machine {
    double peak_gflops;   /* double-precision adds and multiplies, per second, one core */
    double l1_gbs;        /* read bandwidth from L1, one core */
    double l2_gbs;        /* read bandwidth from L2, one core */
    double stream_gbs;    /* STREAM triad, one core */
    double l1_bytes, l2_bytes; /* the caches' sizes: which bandwidth a stage's floor uses */
    double fork_us, barrier_us, handoff_ns; /* the threads' meeting (two threads); NAN on one */
} machine;

enum { PEAK_CHAINS = 6, PEAK_STEPS = 1 << 18, MACHINE_RUNS = 9 };

#if OP_SIMD_AVX
OP_SIMD_AVX_BEGIN
/* PEAK_CHAINS independent adds and as many multiplies a step, four lanes each: the adds and the
 * multiplies go to separate pipes, six chains of each cover their latency (two pipes each, three
 * cycles), and the twelve accumulators with the two constants fit the sixteen AVX registers
 * (sixteen chains spilled and measured half the peak). */
static double peak_kernel(double *sink)
{
    __m256d add[PEAK_CHAINS], mul[PEAK_CHAINS], step = _mm256_set1_pd(1e-9), grow = _mm256_set1_pd(1.0 + 1e-12);
    for (int c = 0; c < PEAK_CHAINS; ++c)
        add[c] = mul[c] = _mm256_set1_pd(1.0 + c);
    double start = op_now();
    for (int s = 0; s < PEAK_STEPS; ++s)
        for (int c = 0; c < PEAK_CHAINS; ++c) {
            add[c] = _mm256_add_pd(add[c], step);
            mul[c] = _mm256_mul_pd(mul[c], grow);
        }
    double seconds = op_now() - start;
    __m256d total = _mm256_setzero_pd();
    for (int c = 0; c < PEAK_CHAINS; ++c)
        total = _mm256_add_pd(total, _mm256_add_pd(add[c], mul[c]));
    double lanes[4];
    _mm256_storeu_pd(lanes, total);
    *sink += lanes[0] + lanes[1] + lanes[2] + lanes[3];
    return 2.0 * PEAK_CHAINS * 4.0 * PEAK_STEPS / seconds;
}
OP_SIMD_AVX_END
#endif

/* The same with two lanes (SSE2), where AVX is not there. */
static double peak_kernel_sse2(double *sink)
{
    double add[2 * PEAK_CHAINS], mul[2 * PEAK_CHAINS];
    for (int c = 0; c < 2 * PEAK_CHAINS; ++c)
        add[c] = mul[c] = 1.0 + c;
    double start = op_now();
    for (int s = 0; s < PEAK_STEPS; ++s)
        for (int c = 0; c < 2 * PEAK_CHAINS; ++c) {
            add[c] += 1e-9;
            mul[c] *= 1.0 + 1e-12;
        }
    double seconds = op_now() - start;
    for (int c = 0; c < 2 * PEAK_CHAINS; ++c)
        *sink += add[c] + mul[c];
    return 4.0 * PEAK_CHAINS * PEAK_STEPS / seconds;
}

/* Bytes a second of reading `count` doubles (a multiple of 4 · READ_CHAINS, every one 1.0)
 * `passes` times into READ_CHAINS sums and as many products, so that the loads and not the adds
 * are what limits it. */
enum { READ_CHAINS = 6 };
#if OP_SIMD_AVX
OP_SIMD_AVX_BEGIN
static double read_bandwidth(const double *a, size_t count, int passes, double *sink)
{
    __m256d add[READ_CHAINS], mul[READ_CHAINS];
    for (int c = 0; c < READ_CHAINS; ++c)
        add[c] = mul[c] = _mm256_set1_pd(1.0);
    double start = op_now();
    for (int p = 0; p < passes; ++p)
        for (size_t i = 0; i < count; i += 8 * READ_CHAINS)
            for (int c = 0; c < READ_CHAINS; ++c) {
                add[c] = _mm256_add_pd(add[c], _mm256_loadu_pd(a + i + 8 * c));
                mul[c] = _mm256_mul_pd(mul[c], _mm256_loadu_pd(a + i + 8 * c + 4));
            }
    double seconds = op_now() - start, lanes[4];
    for (int c = 1; c < READ_CHAINS; ++c)
        add[0] = _mm256_add_pd(add[0], _mm256_add_pd(add[c], mul[c]));
    _mm256_storeu_pd(lanes, _mm256_add_pd(add[0], mul[0]));
    *sink += lanes[0] + lanes[1] + lanes[2] + lanes[3];
    return (double)passes * (double)count * sizeof(double) / seconds;
}
OP_SIMD_AVX_END
#else
static double read_bandwidth(const double *a, size_t count, int passes, double *sink)
{
    double s[2 * READ_CHAINS] = { 0 }, start = op_now();
    for (int p = 0; p < passes; ++p)
        for (size_t i = 0; i < count; i += 2 * READ_CHAINS)
            for (int c = 0; c < 2 * READ_CHAINS; ++c)
                s[c] += a[i + c];
    double seconds = op_now() - start;
    for (int c = 0; c < 2 * READ_CHAINS; ++c)
        *sink += s[c];
    return (double)passes * (double)count * sizeof(double) / seconds;
}
#endif

static double triad_bandwidth(double *a, const double *b, const double *c, size_t count)
{
    double start = op_now();
    for (size_t i = 0; i < count; ++i)
        a[i] = b[i] + 3.0 * c[i];
    return 3.0 * (double)count * sizeof(double) / (op_now() - start);
}

enum { FORKS = 2000, BARRIERS = 20000, HANDOFFS = 100000 };

/* The threads' meeting on two threads, each cost the least of MACHINE_RUNS runs; NAN on one. */
static void measure_meeting(machine *m)
{
    m->fork_us = m->barrier_us = m->handoff_ns = NAN;
    if (omp_get_max_threads() < 2)
        return;
    for (int r = 0; r < MACHINE_RUNS; ++r) {
        int sink = 0;
        double start = op_now();
        for (int f = 0; f < FORKS; ++f) {
#pragma omp parallel num_threads(2) reduction(+ : sink)
            sink += omp_get_thread_num();
        }
        double fork = (op_now() - start) / FORKS;
        start = op_now();
#pragma omp parallel num_threads(2)
        for (int b = 0; b < BARRIERS; ++b) {
#pragma omp barrier
        }
        double barrier = (op_now() - start) / BARRIERS;
        double handoff = op_team_handoff_ns(HANDOFFS);
        if (sink != FORKS) /* each fork's second thread added 1 */
            return;
        m->fork_us = r == 0 ? 1e6 * fork : fmin(m->fork_us, 1e6 * fork);
        m->barrier_us = r == 0 ? 1e6 * barrier : fmin(m->barrier_us, 1e6 * barrier);
        m->handoff_ns = r == 0 ? handoff : fmin(m->handoff_ns, handoff);
    }
}

static int measure_machine(machine *m)
{
    enum { L1_DOUBLES = 24 * 1024 / 8, L1_PASSES = 4000, L2_DOUBLES = 384 * 1024 / 8, L2_PASSES = 200 };
    const size_t stream = 4u << 20; /* 32 MB an array */
    double *l2 = malloc(L2_DOUBLES * sizeof *l2), *a = malloc(stream * sizeof *a), *b = malloc(stream * sizeof *b),
           *c = malloc(stream * sizeof *c), sink = 0.0;
    if (!l2 || !a || !b || !c) {
        free(l2), free(a), free(b), free(c);
        return -1;
    }
    for (size_t i = 0; i < stream; ++i)
        a[i] = 0.0, b[i] = 1.0, c[i] = 2.0;
    for (int i = 0; i < L2_DOUBLES; ++i)
        l2[i] = 1.0;
    m->peak_gflops = m->l1_gbs = m->l2_gbs = m->stream_gbs = 0.0;
    for (int r = 0; r < MACHINE_RUNS; ++r) {
#if OP_SIMD_AVX
        double peak = op_simd_use_avx ? peak_kernel(&sink) : peak_kernel_sse2(&sink);
#else
        double peak = peak_kernel_sse2(&sink);
#endif
        m->peak_gflops = fmax(m->peak_gflops, 1e-9 * peak);
        m->l1_gbs = fmax(m->l1_gbs, 1e-9 * read_bandwidth(l2, L1_DOUBLES, L1_PASSES, &sink));
        m->l2_gbs = fmax(m->l2_gbs, 1e-9 * read_bandwidth(l2, L2_DOUBLES, L2_PASSES, &sink));
        m->stream_gbs = fmax(m->stream_gbs, 1e-9 * triad_bandwidth(a, b, c, stream));
    }
    long l1_size = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2_size = sysconf(_SC_LEVEL2_CACHE_SIZE);
    m->l1_bytes = l1_size > 0 ? (double)l1_size : 32 << 10;
    m->l2_bytes = l2_size > 0 ? (double)l2_size : 1 << 20;
    measure_meeting(m);
    free(l2), free(a), free(b), free(c);
    return isfinite(sink) ? 0 : -1;
}

/* ---- what each stage does per item, counted from the code ---- */

/* flops and bytes of one item, as a part per particle plus a part per undirected edge (both
 * directions: 2 CSR entries), or per the stage's own item where edges do not enter. */
typedef struct stage_ops {
    const char *name, *item;
    double flops, bytes;             /* per item */
    double edge_flops, edge_bytes;   /* and per edge (local, global), 0 elsewhere */
    double edge_array_bytes;         /* of edge_bytes, those of arrays one entry an edge: the rest
                                        re-reads particles' data, which the working set holds once */
} stage_ops;

/* Counted, rounded to the nearest ten, from:
 *  predict: world.c predict (y 12, Y 18, the rigid fit's sums m3_mul + m3_mul_bt + 30, the
 *    rigid turn m3_mul 45) and arap.c arap_begin_substep (Y Ā scaled plus S, 63; the record's
 *    R Ā, 45: after the rigid turn no record holds its R); bytes: the start copies of x and R
 *    (read and written), v, ṘR, y and Y written, Ā twice, the turned R read and written, the
 *    base written, S read, the record compared and written: ≈ 1,140.
 *  local, per particle: displacement 3, R Ā of Σ R_j 45, C 36, the warm polar rotation 330 (two
 *    Newton solves of polar.c's op_polar_rotation_warm: R(q) 40, Rᵀ C 45, setup 20, a solve 75,
 *    the product 28, the finish 40), the record R Ā 45; bytes: x, x_ref, u, the base, Ā, q
 *    read and written, R and the record written ≈ 520.
 *    Per edge, both directions: 2 × (the record sum 18, u_j − u_i 3, the outer product 18) and
 *    2 × (the record 144, u_j 24, w_ij 24, the index 4) bytes.
 *  global, per particle: R − P 9, inertia 6, the particle's pull 15 and its axpy 6, the place 3;
 *    bytes: R 72, the turn written and read 192, y, x_ref, ρ/h², the pull, u 112, x written 24.
 *    Per edge, both directions: 2 × 18 flops, 2 × (the turn 96, the pull 24, the index 4) bytes.
 *    The triangular solves (op_sparse_solve3), per nonzero of L: forward and back, three
 *    right-hand sides: 12 flops; the value and its row index twice: 24 bytes.
 *  chebyshev: chebyshev.c extrapolate, 3 coordinates × 6; x read and written, x^k, x^{k−1}
 *    read, x copied: 168 bytes.
 *  skinning, per vertex of K influences: K × (3 + 15 + 3 + 6) = 27 K flops; the rest vertex and
 *    the result 48, K × (weight 8, index 4) bytes (the particles' R and x stay in cache).
 *  broad: no arithmetic to speak of (a cell key, a sort, the 27 neighbouring cells' scans);
 *    bytes: centre, bound, group read 36, the sorted copy, key, order, run end written 52 ≈ 90.
 *  narrow, per particle (collide.c's gather and scatter): x, v, R and the radii read 144 bytes,
 *    the collider's position, start, bound and group written 60, x and v written back 48 ≈ 250;
 *    the support matrix of the particles in pairs only, so ≈ 0 flops a particle. */
enum { STAGE_PREDICT, STAGE_LOCAL, STAGE_GLOBAL, STAGE_SOLVE, STAGE_CHEBYSHEV, STAGE_SKINNING, STAGE_BROAD,
       STAGE_NARROW, STAGE_COUNT };
static const stage_ops OPS[STAGE_COUNT] = {
    { "predict", "particle", 310, 1140, 0, 0, 0 },
    { "local", "particle", 460, 520, 2 * 39, 2 * 196, 2 * 28 },
    { "global", "particle", 40, 400, 2 * 18, 2 * 124, 2 * 28 },
    { "solve", "L nonzero", 12, 24, 0, 0, 0 },
    { "chebyshev", "particle", 18, 168, 0, 0, 0 },
    { "skinning", "vertex", 0, 48, 0, 0, 0 }, /* + K × (27 flops, 12 bytes) */
    { "broad", "particle", 0, 90, 0, 0, 0 },
    { "narrow", "particle", 0, 250, 0, 0, 0 },
};

/* ---- a scene's stages ---- */

typedef struct scene_result {
    const char *config;
    int bodies, particles, edges, vertices, skin_k;
    int substeps, iterations;
    int colours;   /* of the largest body's local step: its sweep's barriers with sweep_threads = team */
    long nonzeros;
    int pairs, passes;
    double ns[STAGE_COUNT];    /* median per call */
    double items[STAGE_COUNT]; /* items per call */
    double flops[STAGE_COUNT], bytes[STAGE_COUNT]; /* per call */
    double working_set[STAGE_COUNT];               /* bytes a call touches, each once, per body
                                                      (the bodies' stages run one after another;
                                                      the broad and narrow phases', in one) */
} scene_result;

static int calls = 101, warmup = 60;
static const char *overrides[MAX_OVERRIDES + 2] = { "world.log_energy=false" };
static int override_count = 1;

typedef int (*stage_call)(op_ctx *ctx, op_scene *scene, void *data);

/* Median ns of `calls` calls of fn. */
static double time_calls(op_ctx *ctx, op_scene *scene, stage_call fn, void *data, int *failed)
{
    double *ns = malloc((size_t)calls * sizeof *ns), median = NAN;
    if (!ns) {
        *failed = 1;
        return NAN;
    }
    for (int c = 0; c < calls && !*failed; ++c) {
        double start = op_now();
        if (fn(ctx, scene, data) != OP_OK)
            *failed = 1;
        ns[c] = 1e9 * (op_now() - start);
    }
    if (!*failed)
        median = bench_median(ns, calls);
    free(ns);
    return median;
}

static double substep_length(const op_scene *scene)
{
    return scene->world.def.frame_time / scene->world.def.substeps;
}

static int call_predict(op_ctx *ctx, op_scene *scene, void *data)
{
    (void)data;
    return op_world_begin_substep(ctx, &scene->world, substep_length(scene));
}

/* The local and global steps as the frame runs them: `calls` iterations (op_world_iterate, k = 0:
 * the groups of twins side by side, as the world formed its units), the median of each one's
 * local and of its global time into ns[0] and ns[1]. Unlike calling op_arap_local_step body by
 * body, this times the grouped bodies' own path (on the piles most bodies are grouped). */
static void time_iterations(op_ctx *ctx, op_scene *scene, double ns[2], int *failed)
{
    double *local = malloc((size_t)calls * sizeof *local), *global = malloc((size_t)calls * sizeof *global);
    ns[0] = ns[1] = NAN;
    if (!local || !global)
        *failed = 1;
    for (int c = 0; c < calls && !*failed; ++c) {
        op_stage_times times = { 0 };
        if (op_world_iterate(ctx, &scene->world, substep_length(scene), 0, &times) != OP_OK)
            *failed = 1;
        local[c] = 1e9 * times.local;
        global[c] = 1e9 * times.global;
    }
    if (!*failed) {
        ns[0] = bench_median(local, calls);
        ns[1] = bench_median(global, calls);
    }
    free(local);
    free(global);
}

/* the solves alone, on a right-hand side of the body's size */
typedef struct solve_data {
    op_sparse_workspace work;
    double *rhs, *saved;
} solve_data;

static int call_solve(op_ctx *ctx, op_scene *scene, void *data)
{
    solve_data *d = data;
    op_world *w = &scene->world;
    for (int b = 0; b < w->body_count; ++b) {
        const op_sparse_factor *factor = op_arap_factor(w->solver_state[b]);
        if (!factor)
            continue;
        int n = op_sparse_factor_size(factor);
        memcpy(d->rhs, d->saved, 3 * (size_t)n * sizeof(double));
        if (op_sparse_solve3(ctx, factor, &d->work, d->rhs) != OP_OK)
            return ctx->status;
    }
    return OP_OK;
}

typedef struct chebyshev_data {
    op_chebyshev_def def;
    op_chebyshev *state; /* [bodies] */
} chebyshev_data;

static int call_chebyshev(op_ctx *ctx, op_scene *scene, void *data)
{
    (void)ctx;
    chebyshev_data *d = data;
    op_world *w = &scene->world;
    /* iteration k = delay: the first that extrapolates */
    for (int b = 0; b < w->body_count; ++b)
        op_chebyshev_apply(&d->state[b], &d->def, &w->bodies[b], d->def.delay);
    return OP_OK;
}

static int call_skinning(op_ctx *ctx, op_scene *scene, void *data)
{
    (void)ctx;
    double **skinned = data;
    op_world *w = &scene->world;
    for (int b = 0; b < w->body_count; ++b) {
        const op_body *body = &w->bodies[b];
        op_skin_apply(&body->model->skin, body->graph, &body->state, body->model->mesh.vertices, skinned[b]);
    }
    return OP_OK;
}

typedef struct contact_data {
    int n;
    double *position, *bound, *saved; /* saved: every body's x then v */
    int *group;
    op_broad_phase broad;
    op_collider collider;
    op_contact_def def;
    op_contact_stats stats;
} contact_data;

static int call_broad(op_ctx *ctx, op_scene *scene, void *data)
{
    (void)scene;
    contact_data *d = data;
    return op_broad_phase_find(ctx, &d->broad, d->n, d->position, d->bound, d->group, d->def.margin);
}

static void contact_state(op_world *w, double *saved, int save)
{
    for (int b = 0, g = 0; b < w->body_count; ++b) {
        op_state *s = &w->bodies[b].state;
        size_t bytes = 3 * (size_t)s->particle_count * sizeof(double);
        double *x = &saved[6 * (size_t)g], *v = x + 3 * s->particle_count;
        if (save) {
            memcpy(x, s->position, bytes);
            memcpy(v, s->velocity, bytes);
        } else {
            memcpy(s->position, x, bytes);
            memcpy(s->velocity, v, bytes);
        }
        g += s->particle_count;
    }
}

static int call_narrow(op_ctx *ctx, op_scene *scene, void *data)
{
    contact_data *d = data;
    op_world *w = &scene->world;
    contact_state(w, d->saved, 0);
    return op_collide_bodies(ctx, &d->collider, w->bodies, w->body_count, &d->def, &d->stats);
}

static int prepare_contacts(op_world *w, contact_data *d)
{
    d->n = op_world_particle_count(w);
    d->position = calloc(3 * (size_t)d->n, sizeof(double));
    d->bound = calloc((size_t)d->n, sizeof(double));
    d->group = calloc((size_t)d->n, sizeof(int));
    d->saved = calloc(6 * (size_t)d->n, sizeof(double));
    if (!d->position || !d->bound || !d->group || !d->saved)
        return -1;
    for (int b = 0, g = 0; b < w->body_count; ++b) {
        const op_body *body = &w->bodies[b];
        for (int i = 0; i < body->graph->particle_count; ++i, ++g) {
            const double *r = &body->graph->radii[3 * i];
            v3_copy(&d->position[3 * g], &body->state.position[3 * i]);
            d->bound[g] = fmax(r[0], fmax(r[1], r[2]));
            d->group[g] = b;
        }
    }
    /* auto's timed choice needs frames to time: one call here takes the team unless told one */
    d->def = op_world_contact_def(w, w->def.collision_threads == OP_CONTACT_THREADS_ONE ? OP_CONTACT_THREADS_ONE
                                                                                         : OP_CONTACT_THREADS_ALL);
    contact_state(w, d->saved, 1);
    return 0;
}

static void free_contacts(contact_data *d)
{
    free(d->position);
    free(d->bound);
    free(d->group);
    free(d->saved);
    op_broad_phase_free(&d->broad);
    op_collider_free(&d->collider);
}

/* One scene's stages into *out; 0, or −1 after printing why. */
static int run_scene(const char *config, scene_result *out)
{
    memset(out, 0, sizeof *out);
    for (int s = 0; s < STAGE_COUNT; ++s)
        out->ns[s] = NAN;
    out->config = config;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_scene scene;
    if (op_scene_load(&ctx, config, override_count, overrides, &scene) != OP_OK) {
        fprintf(stderr, "bench_stages: %s\n", ctx.message);
        return -1;
    }
    op_world *w = &scene.world;
    if (w->solver != &op_solver_arap) {
        fprintf(stderr, "bench_stages: %s: the stages are arap's; this scene runs %s\n", config, w->solver->name);
        op_scene_free(&scene);
        return -1;
    }
    op_frame_stats stats = { .energy = NULL };
    int failed = 0;
    for (int f = 0; f < warmup && !failed; ++f)
        failed = op_world_step(&ctx, w, &stats) != OP_OK;
    out->bodies = w->body_count;
    out->substeps = w->def.substeps;
    out->iterations = w->def.iterations;
    int largest = 0, largest_body = 0;
    for (int b = 0; b < w->body_count; ++b) {
        const op_body *body = &w->bodies[b];
        if (body->graph->particle_count > w->bodies[largest_body].graph->particle_count)
            largest_body = b;
        out->particles += body->graph->particle_count;
        out->edges += body->graph->edge_count;
        out->vertices += body->model->skin.vertex_count;
        out->skin_k = body->model->skin.k;
        const op_sparse_factor *factor = op_arap_factor(w->solver_state[b]);
        if (factor) {
            out->nonzeros += op_sparse_factor_nonzeros(factor);
            largest = largest > op_sparse_factor_size(factor) ? largest : op_sparse_factor_size(factor);
        }
    }
    const int *colour_start;
    out->colours = op_arap_sweep_colours(w->solver_state[largest_body], &colour_start);
    double n = out->particles, edges = out->edges;
    out->items[STAGE_PREDICT] = out->items[STAGE_LOCAL] = out->items[STAGE_GLOBAL] = n;
    out->items[STAGE_CHEBYSHEV] = out->items[STAGE_BROAD] = n;
    out->items[STAGE_SOLVE] = (double)out->nonzeros;
    out->items[STAGE_SKINNING] = out->vertices;

    if (!failed)
        out->ns[STAGE_PREDICT] = time_calls(&ctx, &scene, call_predict, NULL, &failed);
    if (!failed) {
        double ns[2];
        time_iterations(&ctx, &scene, ns, &failed);
        out->ns[STAGE_LOCAL] = ns[0];
        out->ns[STAGE_GLOBAL] = ns[1];
    }

    solve_data solve = { .work = { 0 } };
    solve.rhs = calloc(3 * (size_t)(largest + 1), sizeof(double));
    solve.saved = calloc(3 * (size_t)(largest + 1), sizeof(double));
    if (!solve.rhs || !solve.saved)
        failed = 1;
    for (int k = 0; k < 3 * largest && !failed; ++k)
        solve.saved[k] = sin(0.1 * k);
    for (int b = 0; b < w->body_count && !failed; ++b) {
        const op_sparse_factor *factor = op_arap_factor(w->solver_state[b]);
        if (factor && op_sparse_workspace_reserve(&ctx, &solve.work, factor) != OP_OK)
            failed = 1;
    }
    if (!failed && largest > 0)
        out->ns[STAGE_SOLVE] = time_calls(&ctx, &scene, call_solve, &solve, &failed);
    op_sparse_workspace_free(&solve.work);
    free(solve.rhs);
    free(solve.saved);

    chebyshev_data cheb = { .def = { .enabled = 1, .rho = 0.9, .rho_given = 1, .delay = 2, .gamma = 1.0 } };
    cheb.state = calloc((size_t)w->body_count, sizeof *cheb.state);
    failed |= !cheb.state;
    for (int b = 0; b < w->body_count && !failed; ++b) {
        if (op_chebyshev_init(&ctx, &cheb.state[b], &cheb.def, w->bodies[b].graph->particle_count) != OP_OK)
            failed = 1;
        else
            op_chebyshev_reset(&cheb.state[b], &w->bodies[b]);
    }
    if (!failed)
        out->ns[STAGE_CHEBYSHEV] = time_calls(&ctx, &scene, call_chebyshev, &cheb, &failed);
    for (int b = 0; cheb.state && b < w->body_count; ++b)
        op_chebyshev_free(&cheb.state[b]);
    free(cheb.state);

    double **skinned = calloc((size_t)w->body_count, sizeof *skinned);
    failed |= !skinned;
    for (int b = 0; b < w->body_count && !failed; ++b)
        failed |= !(skinned[b] = malloc(3 * (size_t)w->bodies[b].model->skin.vertex_count * sizeof(double) + 1));
    if (!failed)
        out->ns[STAGE_SKINNING] = time_calls(&ctx, &scene, call_skinning, skinned, &failed);
    for (int b = 0; skinned && b < w->body_count; ++b)
        free(skinned[b]);
    free(skinned);

    if (op_world_collides(w) && !failed) {
        contact_data contacts = { .n = 0 };
        if (prepare_contacts(w, &contacts) != 0)
            failed = 1;
        if (!failed)
            out->ns[STAGE_BROAD] = time_calls(&ctx, &scene, call_broad, &contacts, &failed);
        /* one call to make the pairs, then the timed ones reuse them */
        if (!failed && call_narrow(&ctx, &scene, &contacts) != OP_OK)
            failed = 1;
        if (!failed)
            out->ns[STAGE_NARROW] = time_calls(&ctx, &scene, call_narrow, &contacts, &failed);
        out->pairs = contacts.stats.pairs;
        out->passes = contacts.def.passes;
        out->items[STAGE_NARROW] = n;
        if (contacts.stats.searched)
            fprintf(stderr, "bench_stages: %s: the narrow phase's calls searched again; its time holds a search\n",
                    config);
        free_contacts(&contacts);
    }
    if (failed)
        fprintf(stderr, "bench_stages: %s: %s\n", config, ctx.status ? ctx.message : "out of memory");
    for (int s = 0; s < STAGE_COUNT; ++s) {
        double per_edge = s == STAGE_LOCAL || s == STAGE_GLOBAL ? edges : 0.0;
        double k = s == STAGE_SKINNING ? out->skin_k : 0.0;
        out->flops[s] = out->items[s] * (OPS[s].flops + 27.0 * k) + per_edge * OPS[s].edge_flops;
        out->bytes[s] = out->items[s] * (OPS[s].bytes + 12.0 * k) + per_edge * OPS[s].edge_bytes;
        out->working_set[s] = out->items[s] * (OPS[s].bytes + 12.0 * k) + per_edge * OPS[s].edge_array_bytes;
        if (s != STAGE_BROAD && s != STAGE_NARROW)
            out->working_set[s] /= out->bodies;
        if (s == STAGE_SOLVE) /* L is read twice (forward, back) */
            out->working_set[s] /= 2;
    }
    op_scene_free(&scene);
    return failed ? -1 : 0;
}

/* The floor of a stage's call in ns: its flops at peak, or its bytes at the bandwidth of the
 * level its working set fits in, whichever is longer; *bound names which. */
static double floor_ns(const machine *m, const scene_result *r, int s, const char **bound)
{
    double arithmetic = r->flops[s] / m->peak_gflops;
    int level = r->working_set[s] <= m->l1_bytes ? 1 : r->working_set[s] <= m->l2_bytes ? 2 : 3;
    double memory = r->bytes[s] / (level == 1 ? m->l1_gbs : level == 2 ? m->l2_gbs : m->stream_gbs);
    *bound = arithmetic >= memory ? "flops" : level == 1 ? "L1" : level == 2 ? "L2" : "memory";
    return fmax(arithmetic, memory);
}

/* A frame's stages at their floors, ms, in the columns of bench_scenes' frames: [0] predict, a
 * sub-step's; [1] local and [2] global (with its solves), an iteration's; [3] the contacts, a
 * sub-step's call and search (a frame searches at most once a sub-step; on the piles that bound's
 * floor is a few µs); [4] the sum. Skinning is left out as Table 1's total leaves it out, Chebyshev
 * as no Table 1 scene extrapolates; stages a scene does not run (contacts on one body) count
 * nothing. A frame of these stages at their floors is the least time any code could do the
 * frame's work in on this machine: what Table 1's ratios can be held against. */
static void frame_floor_ms(const machine *m, const scene_result *r, double out[5])
{
    static const struct {
        int stage, column, per_iteration;
    } PARTS[] = { { STAGE_PREDICT, 0, 0 }, { STAGE_LOCAL, 1, 1 }, { STAGE_GLOBAL, 2, 1 },
                  { STAGE_SOLVE, 2, 1 },   { STAGE_NARROW, 3, 0 }, { STAGE_BROAD, 3, 0 } };
    for (int k = 0; k < 5; ++k)
        out[k] = 0.0;
    for (size_t k = 0; k < sizeof PARTS / sizeof *PARTS; ++k) {
        int s = PARTS[k].stage;
        if (isnan(r->ns[s]) || r->items[s] <= 0)
            continue;
        const char *bound;
        double ms = 1e-6 * floor_ns(m, r, s, &bound) * r->substeps * (PARTS[k].per_iteration ? r->iterations : 1);
        out[PARTS[k].column] += ms;
        out[4] += ms;
    }
}

/* t = a·n + b·e through the one-body scenes' (n_k, e_k, t_k) by least squares (many bodies add
 * costs of their own: each body's arrays, its own factor); 0 when they do not determine it. */
static int fit_two(const scene_result *r, int count, int stage, double *a, double *b)
{
    double nn = 0, ne = 0, ee = 0, nt = 0, et = 0;
    int used = 0;
    for (int k = 0; k < count; ++k) {
        if (r[k].bodies != 1)
            continue;
        ++used;
        double n = r[k].particles, e = r[k].edges, t = r[k].ns[stage];
        nn += n * n, ne += n * e, ee += e * e, nt += n * t, et += e * t;
    }
    double det = nn * ee - ne * ne;
    if (used < 2 || !(fabs(det) > 1e-9 * nn * ee))
        return 0;
    *a = (nt * ee - et * ne) / det;
    *b = (et * nn - nt * ne) / det;
    return 1;
}

static int usage(void)
{
    fprintf(stderr, "usage: bench_stages [-s CONFIG]... [-x SECTION.KEY=VALUE]... [-w WARMUP] [-n CALLS]\n");
    return 64;
}

int main(int argc, char **argv)
{
    op_platform_init();
    const char *configs[MAX_SCENES];
    int config_count = 0, opt;
    while ((opt = getopt(argc, argv, "s:x:w:n:h")) != -1) {
        switch (opt) {
        case 's':
            if (config_count == MAX_SCENES)
                return usage();
            configs[config_count++] = optarg;
            break;
        case 'x':
            if (override_count == MAX_OVERRIDES + 1)
                return usage();
            overrides[override_count++] = optarg;
            break;
        case 'w': warmup = atoi(optarg); break;
        case 'n': calls = atoi(optarg); break;
        default: return usage();
        }
    }
    if (optind != argc || warmup < 0 || calls < 1)
        return usage();
    static const char *const DEFAULT_CONFIGS[] = { "experiments/fig4.ini", "experiments/perf-cube.ini",
                                                   "experiments/fig6-bunny.ini", "experiments/fig7-52.ini" };
    if (config_count == 0)
        for (; config_count < 4; ++config_count)
            configs[config_count] = DEFAULT_CONFIGS[config_count];
    machine m;
    if (measure_machine(&m) != 0) {
        fprintf(stderr, "bench_stages: out of memory\n");
        return 1;
    }
    printf("machine, best of %d: peak %.1f Gflop/s (%s adds and multiplies), read from L1 (%.0f KB) %.1f GB/s, "
           "from L2 (%.0f KB) %.1f GB/s, stream triad %.1f GB/s; %d thread(s)\n",
           MACHINE_RUNS, m.peak_gflops, op_simd_use_avx ? "AVX" : "SSE2", m.l1_bytes / 1024, m.l1_gbs,
           m.l2_bytes / 1024, m.l2_gbs, m.stream_gbs, omp_get_max_threads());
    if (!isnan(m.fork_us))
        printf("threads meeting, two threads, least of %d: a parallel region %.2f us, a barrier %.2f us, a cache line "
               "handed over %.0f ns\n",
               MACHINE_RUNS, m.fork_us, m.barrier_us, m.handoff_ns);
    printf("csv,machine,peak_gflops=%.2f,l1_gbs=%.2f,l1_bytes=%.0f,l2_gbs=%.2f,l2_bytes=%.0f,stream_gbs=%.2f,"
           "threads=%d,simd=%s,fork_us=%.3f,barrier_us=%.3f,handoff_ns=%.1f\n",
           m.peak_gflops, m.l1_gbs, m.l1_bytes, m.l2_gbs, m.l2_bytes, m.stream_gbs, omp_get_max_threads(),
           op_simd_use_avx ? "avx" : "sse2", m.fork_us, m.barrier_us, m.handoff_ns);
    scene_result results[MAX_SCENES];
    int status = 0;
    for (int k = 0; k < config_count; ++k) {
        scene_result *r = &results[k];
        if (run_scene(configs[k], r) != 0) {
            status = 1;
            break;
        }
        printf("\n%s: %d bodies, %d particles, %d edges, %ld nonzeros in L, %d vertices (K %d), %d pairs x %d "
               "passes, %d colours (largest body); median of %d calls\n",
               r->config, r->bodies, r->particles, r->edges, r->nonzeros, r->vertices, r->skin_k, r->pairs, r->passes,
               r->colours, calls);
        printf("  %-10s %-10s %10s %10s %10s %10s %8s %7s\n", "stage", "item", "us/call", "ns/item", "flops/item",
               "bytes/item", "floor ns", "ratio");
        for (int s = 0; s < STAGE_COUNT; ++s) {
            if (isnan(r->ns[s]) || r->items[s] <= 0)
                continue;
            const char *bound;
            double floor = floor_ns(&m, r, s, &bound);
            printf("  %-10s %-10s %10.2f %10.2f %10.1f %10.1f %8.2f %6.1fx (%s)\n", OPS[s].name, OPS[s].item,
                   1e-3 * r->ns[s], r->ns[s] / r->items[s], r->flops[s] / r->items[s], r->bytes[s] / r->items[s],
                   floor / r->items[s], r->ns[s] / floor, bound);
            printf("csv,stage,config=%s,stage=%s,item=%s,items=%.0f,ns_per_call=%.1f,ns_per_item=%.3f,"
                   "flops_per_item=%.1f,bytes_per_item=%.1f,floor_ns_per_item=%.3f,ratio=%.2f,bound=%s\n",
                   r->config, OPS[s].name, OPS[s].item, r->items[s], r->ns[s], r->ns[s] / r->items[s],
                   r->flops[s] / r->items[s], r->bytes[s] / r->items[s], floor / r->items[s], r->ns[s] / floor,
                   bound);
        }
        double frame[5];
        frame_floor_ms(&m, r, frame);
        int threads = omp_get_max_threads();
        printf("  a frame at the floors (n_s x n_i = %d x %d, skinning apart), ms on one core: predict %.3f, "
               "local %.3f, global %.3f, contacts %.3f; in all %.3f, on %d core(s) sharing it perfectly %.3f\n",
               r->substeps, r->iterations, frame[0], frame[1], frame[2], frame[3], frame[4], threads,
               frame[4] / threads);
        printf("csv,frame_floor,config=%s,substeps=%d,iterations=%d,predict_ms=%.4f,local_ms=%.4f,global_ms=%.4f,"
               "contacts_ms=%.4f,total_ms=%.4f,threads=%d,total_ms_shared=%.4f\n",
               r->config, r->substeps, r->iterations, frame[0], frame[1], frame[2], frame[3], frame[4], threads,
               frame[4] / threads);
    }
    if (status == 0 && config_count >= 2) {
        printf("\nfit over the one-body scenes, t = a·particles + b·edges:\n");
        for (int s = STAGE_LOCAL; s <= STAGE_GLOBAL; ++s) {
            double a, b;
            if (fit_two(results, config_count, s, &a, &b))
                printf("  %-8s %.2f ns a particle + %.2f ns an edge\ncsv,fit,stage=%s,ns_per_particle=%.3f,"
                       "ns_per_edge=%.3f\n",
                       OPS[s].name, a, b, OPS[s].name, a, b);
        }
    }
    return status;
}
