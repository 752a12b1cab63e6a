/* arap: the local/global solver of Choi & Lee 2017 on the oriented-particle graph.
 *
 * Local step (positions fixed): R_i = polar(C_i) with
 *   C_i = ρ/h² Y_i Ā_i + k Σ_j [R_j (Ā_j + Ā_i) + v_j d_ij d̄_ijᵀ] + C^p_i + C^d_i     (Eq. 5, 11, 13, 15)
 * in Gauss–Seidel order (each R_j its newest value: the paper's default, a descent step) or
 * Jacobi order (every C_i from the previous iteration's rotations).
 *
 * Global step (rotations fixed): the free positions solve the n×n system of Eq. 7 + 12 + 14,
 *   (m_i/h²) x_i + k Σ_j (v_i + v_j)(x_i − x_j) + Σ_c w w_i Σ_l w_l x_l
 *     = (m_i/h²) y_i + k Σ_j (v_j R_i + v_i R_j)(x̄_i − x̄_j) + Σ_c w w_i (v_c − Σ_l w_l R_l (v̄ − x̄_l)),
 * one scalar matrix for x, y and z, factored once with CHOLMOD and refactored only when h
 * changes (the constraint set is fixed for a run). Pinned positions are eliminated. With
 * [solver] global = pcg the matrix is solved by conjugate gradients instead, warm-started from
 * the iterate (solvers/arap_pcg.h, shared with arap-reference).
 *
 * The matrix depends on the graph (masses, volumes, adjacency), k, h, the position-pinned set
 * and the position constraints' couplings, nothing else: bodies instancing one model share one
 * factor (reference counted, core/kernels/sparse.h) when create can prove their matrices identical
 * (matching_twin), each solving with a workspace of its own, so that they can run on different
 * threads. A body whose h changes later refactors into a factor of its own. The per-edge rest
 * quantities depend on the graph alone and are likewise shared by all its bodies (arap_edges).
 *
 * Both steps are written relative to the body's placed rest state x_ref = P x̄ + t, R_ref = P:
 * the unknown is u = x − x_ref and every right-hand side is a sum of differences (R − P),
 * (y − x_ref), (u_j − u_i). A body at rest therefore has exactly symmetric C_i, exactly zero
 * right-hand sides, and stays exactly at rest; small deformations lose no digits to
 * cancellation against the rest positions.
 *
 * Gauss–Seidel order is colour order (op_arap_colour_sweep, solvers/arap_terms.c): a greedy colouring, made once, of the
 * particles coupled in E (graph neighbours, influences of one constraint); the sweep takes the
 * colours in turn, ascending indices within each. The particles of one colour do not read one
 * another's rotations, so they are assembled and decomposed eight at a time, side by side in
 * vector lanes (the neighbour sums in AVX registers where the CPU has AVX, the eight polar
 * decompositions as two independent groups of four lanes, whose latency chains overlap; a
 * colour's last one to seven as a four, a pair and alone), and written back before the next
 * colour: still an exact Gauss–Seidel sweep (each R_i
 * from its neighbours' newest rotations; E never rises), and bitwise what one particle at a
 * time in the same order gives (the plain C path, built with -DOPSIM_NO_SIMD or without SSE2,
 * produces the same bits). op_arap_sweep_order exposes the order.
 *
 * Groups (arap_group_bodies, solver.h): where the AVX paths run, the world hands over four
 * instances of one model that sweep alike (Gauss–Seidel, one stiffness, the same pins, no
 * constraints) to be iterated together. Their sweep data is kept interleaved, each entry of each
 * particle as one AVX register of the four bodies' values, and the local step goes through the
 * sweep order one particle at a time in all four: the neighbour sums take one load and add per
 * entry for four particles, the polar decompositions fill all four lanes, and a colour's last
 * one to three particles no longer fall back to pairs and singles. Each body gets exactly its
 * solo bits (tests/test_arap.c). On the 180-model scene (42 instances of each model) this took
 * the local step from 1.96 to 1.31 ms a frame on two threads. With AVX-512 a group's colour goes
 * four particles at a time, their sixteen polar decompositions in two groups of eight lanes
 * (latency chains side by side, as the solo sweep's sixteens), and the record sums take two
 * entries of the four lanes a register, the neighbours read once (group_colour_avx512).
 *
 * Cost (bench/bench_scenes.c; the dinosaur: 100 particles, 264 edges, 10 iterations a frame,
 * about 10 µs an iteration). The polar decompositions are warm-started from each R_i's previous
 * quaternion, which the solver keeps (op_polar_rotation_warm: a certified Newton iteration, the
 * closed form where the certificate fails); four at a time they cost ≈ 25 ns a particle instead
 * of ≈ 50, and sixteen at a time in two groups of AVX-512 lanes (local_lanes) took another tenth
 * off the dinosaur's and the sheet's frames (docs/performance.md). Everything fixed for the run is computed once: x_ref, both steps' per-edge offsets,
 * the couplings to pinned particles; R_j − P once per global step rather than once per edge.
 * Each particle keeps one record (R_j Ā_j, R_j) so a neighbour's terms are one contiguous sum. */
#include "arap.h"

#include <math.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/math3.h"
#include "kernels/polar.h"
#include "kernels/lanes.h"
#include "kernels/simd.h"
#include "opsim/solver.h"
#include "kernels/sparse.h"
#include "base/timer.h"
#include "arap_energy.h"
#include "arap_terms.h"
#include "arap_floor.h"
#include "arap_pcg.h"

enum { ARAP_GAUSS_SEIDEL = 0, ARAP_JACOBI = 1 };

/* sweep_threads: a body's local step called outside a thread team shares its colours with a
 * team (sweep_shared, `team`), stays on one thread (`one`), or does as the world's timed choice
 * says (`auto`, the default: op_body.sweep_team, include/opsim/world.h). Whether the team pays
 * is the machine's to say, not a size's: on the shared 2-core machine (load 10-15) a barrier
 * whose other thread had lost its core waited for the scheduler, and a 1,000-particle
 * dinosaur's local step went from 0.76 ms a frame on one thread to 67-250 ms on two, while on a
 * quiet one the team gained ×1.13 (docs/performance.md). With global = pcg the global step's
 * conjugate gradients go with the sweep, their rows shared with the team when the sweep is
 * (core/kernels/sparse_cg.h), so that `auto`'s timed sub-steps weigh both. */
enum { ARAP_SWEEP_ONE = 0, ARAP_SWEEP_TEAM = 1, ARAP_SWEEP_AUTO = 2 };

/* Four twin bodies whose local steps run side by side (arap_group): their sweep data
 * interleaved, [particle][entry][lane], so that one AVX register holds the same entry of the
 * same particle of all four. */
enum { GROUP_LANES = 4 };
typedef struct arap_group {
    int references;       /* the members still alive */
    double *record;       /* [n][18][GROUP_LANES] */
    double *displacement; /* [n][3][GROUP_LANES] */
    double *base;         /* [n][9][GROUP_LANES] */
    double *quaternion;   /* [n][4][GROUP_LANES] */
    double *turn;         /* [n][3 columns][2 pairs of members][2][4 rows]: the members' R_j − P for
                             rhs_inertia_and_pulls4_avx512, two members a 512-bit register */
} arap_group;

/* The rest-state quantities that depend on the graph alone (positions, volumes, adjacency), not
 * on the body's placement or stiffness: one copy for all the bodies of one graph (arap_create
 * takes a twin's), so that on the piles the bodies of one model read the same lines, where each
 * had its own (52 models: 42 KB a 100-particle body, 0.8 MB in all, read every sub-step). */
typedef struct arap_edges {
    atomic_int holders;  /* the bodies sharing it */
    double *offset;      /* [directed edge][3] w_e = v_j (x̄_j − x̄_i), CSR order (local step) */
    double *pull;        /* [directed edge][3] v_i (x̄_i − x̄_j), CSR order (global step) */
    double *rest_pull;   /* [n][3] Σ_j v_j (x̄_i − x̄_j) */
    double *spread;      /* [n][9] Σ_j v_j d̄ d̄ᵀ (d̄ = x̄_j − x̄_i), exactly symmetric: the body's
                            k P S_i is formed from it at each sub-step's start (begin_particle) */
} arap_edges;

/* Where a body's sweep data lives: its own arrays (lanes 1, lane 0), or its lane of a group's
 * (lanes GROUP_LANES). Entry k of particle i in an array of `width` entries a particle is at
 * ((width·i + k)·lanes + lane): sweep_at. */
typedef struct sweep_data {
    double *record;       /* width 18: sweep_state's records */
    double *displacement; /* width 3 */
    double *base;         /* width 9: local_base */
    double *quaternion;   /* width 4 */
    int lanes, lane;
} sweep_data;

static inline double *sweep_at(const sweep_data *d, double *array, int width, int i, int k)
{
    return &array[((size_t)width * (size_t)i + (size_t)k) * (size_t)d->lanes + (size_t)d->lane];
}

typedef struct arap_solver {
    int order;             /* ARAP_GAUSS_SEIDEL or ARAP_JACOBI */
    int sweep_threads;     /* ARAP_SWEEP_ONE, _TEAM or _AUTO (above) */
    int n, free_count;
    int *row_of;           /* [n] row in the global system, −1 where the position is pinned */
    const op_graph *graph; /* what the global matrix is made from (matching_twin compares them) */
    double stiffness;
    double factored_h;     /* h of the current factor */
    op_sparse_factor *factor; /* possibly shared with other bodies: read-only; NULL with pcg */
    op_sparse_workspace work; /* this body's own, for solves with the factor */
    op_arap_pcg pcg;       /* [solver] global = pcg: the matrix solved by CG instead (arap_pcg.h),
                              warm-started from the iterate, for bodies where the factor's fill
                              costs more than the iterations (docs/scaling.md) */
    double *rhs;           /* [free_count][3] */
    /* rest-state quantities, fixed for the run */
    double *reference;     /* [n][3] x_ref = P x̄ + t, the placed rest positions */
    arap_edges *edges;     /* possibly shared with twins of one graph: read-only */
    const double *edge_offset; /* edges->offset */
    const double *edge_pull;   /* edges->pull */
    const double *rest_pull; /* edges->rest_pull */
    op_arap_terms terms;   /* constraints and pinned couplings (solvers/arap_terms.h) */
    op_arap_floor floor;   /* floor_contact = solve: the floor held in the global step (arap_floor.h) */
    double *inertia;       /* [n] m_i / h² for the factored h */
    /* per sub-step and per iteration */
    double *local_base;    /* [n][9] ρ/h² Y_i Ā_i + k P S_i, per sub-step */
    double *sweep_state;   /* [n][18] R_j Ā_j and R_j as C_i reads them: made at create, kept
                              current through a Gauss–Seidel sweep, refreshed after a Jacobi one
                              and, at a sub-step's start, where the state's R_j is not the
                              record's; one record per particle, so that a neighbour's terms are
                              one contiguous sum */
    double *displacement;  /* [n][3] u = x − x_ref, refreshed by each local step */
    double *rotation_sweep; /* [n][9] the rotations C_i reads: the live ones (GS) or a copy (Jacobi) */
    double *quaternion;    /* [n][4] unit quaternion of each R_i as the local step left it: the warm
                              start of its next polar decomposition */
    double *turn;          /* [n][12] R_i − P by columns, each padded to four (column c at 4c,
                              the pad zero), formed once per global step */
    /* the local step's order: the free rotations by colour, by index within a colour */
    op_arap_sweep sweep;
    sweep_data data;       /* the four arrays above or, in a group, this body's lane of its own */
    arap_group *group;     /* NULL unless grouped (arap_group_bodies); then the arrays above are
                              unused and the local step runs only through arap_iterate_group */
    op_arap_energy *energy; /* the energy hook's edge data, made on its first call (arap_energy.h) */
} arap_solver;

/* Whether this sub-step's sweep (and CG) may take a team: sweep_threads = team, or auto and the
 * world's timed choice says so. */
static int sweep_team(const arap_solver *s, const op_body *body)
{
    return s->sweep_threads == ARAP_SWEEP_TEAM || (s->sweep_threads == ARAP_SWEEP_AUTO && body->sweep_team);
}

static const op_solver_option arap_options[] = {
    { "rotations", "gs", "local-step order: gs (Gauss-Seidel, the paper's default) or jacobi" },
    { "sweep_threads", "auto",
      ("local step (and, with global = pcg, the conjugate gradients) of a body iterated outside a thread team "
       "(alone in its world): one thread, team (OpenMP's threads, each colour shared, a barrier between colours; "
       "the CG's rows shared in fixed blocks; the same bits), or auto (the world times both)") },
    OP_ARAP_PCG_OPTIONS,
    { NULL, NULL, NULL },
};

/* The statistics arap publishes (solver.h); LINEAR_ITERATIONS is linear_iterations' slot */
enum { LINEAR_ITERATIONS = 0 };
static const op_solver_counter arap_counters[] = {
    { "linear_iterations", OP_LINEAR_ITERATIONS_DESCRIPTION },
    { NULL, NULL },
};

static void group_free(arap_group *group)
{
    free(group->record);
    free(group->displacement);
    free(group->base);
    free(group->quaternion);
    free(group->turn);
    free(group);
}

static void edges_release(arap_edges *edges)
{
    /* acquire-release: the last holder sees every other holder done with them */
    if (!edges || atomic_fetch_sub_explicit(&edges->holders, 1, memory_order_acq_rel) != 1)
        return;
    free(edges->offset);
    free(edges->pull);
    free(edges->rest_pull);
    free(edges->spread);
    free(edges);
}

static void arap_destroy(void *self)
{
    arap_solver *s = self;
    if (!s)
        return;
    op_sparse_factor_free(&s->factor);
    op_sparse_workspace_free(&s->work);
    op_arap_pcg_free(&s->pcg);
    free(s->row_of);
    free(s->rhs);
    free(s->reference);
    edges_release(s->edges);
    free(s->inertia);
    free(s->local_base);
    free(s->sweep_state);
    free(s->displacement);
    free(s->rotation_sweep);
    free(s->quaternion);
    free(s->turn);
    op_arap_terms_free(&s->terms);
    op_arap_floor_free(&s->floor);
    op_arap_sweep_free(&s->sweep);
    op_arap_energy_release(&s->energy);
    if (s->group && --s->group->references == 0)
        group_free(s->group);
    free(s);
}

/* The graph's arap_edges: a twin's of the same graph (twins are earlier arap states, solver.h),
 * else made here. */
static int share_edges(op_ctx *ctx, arap_solver *s, const op_graph *g, void *const *twins, int twin_count)
{
    for (int t = 0; t < twin_count; ++t) {
        const arap_solver *twin = twins[t];
        if (twin->graph == g) {
            s->edges = twin->edges;
            atomic_fetch_add_explicit(&s->edges->holders, 1, memory_order_relaxed);
            break;
        }
    }
    if (!s->edges) {
        int n = g->particle_count, directed = g->adjacency_start[n];
        arap_edges *edges = op_calloc(ctx, 1, sizeof *edges);
        if (!edges)
            return ctx->status;
        atomic_init(&edges->holders, 1);
        s->edges = edges;
        edges->offset = op_calloc(ctx, 3 * (size_t)directed + 1, sizeof(double));
        edges->pull = op_calloc(ctx, 3 * (size_t)directed + 1, sizeof(double));
        edges->rest_pull = op_calloc(ctx, 3 * (size_t)n + 1, sizeof(double));
        edges->spread = op_calloc(ctx, 9 * (size_t)n + 1, sizeof(double));
        if (ctx->status != OP_OK)
            return ctx->status;
        for (int i = 0; i < n; ++i) {
            double *spread = &edges->spread[9 * i];
            for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
                int j = g->adjacency[e];
                double d[3];
                v3_sub(d, &g->rest_position[3 * j], &g->rest_position[3 * i]);
                v3_scale(&edges->offset[3 * e], d, g->volume[j]);
                v3_scale(&edges->pull[3 * e], d, -g->volume[i]);
                v3_axpy(&edges->rest_pull[3 * i], -g->volume[j], d);
                /* upper triangle only, mirrored below: exactly symmetric */
                for (int r = 0; r < 3; ++r)
                    for (int c = r; c < 3; ++c)
                        spread[3 * r + c] += g->volume[j] * d[r] * d[c];
            }
            spread[3] = spread[1];
            spread[6] = spread[2];
            spread[7] = spread[5];
        }
    }
    s->edge_offset = s->edges->offset;
    s->edge_pull = s->edges->pull;
    s->rest_pull = s->edges->rest_pull;
    return OP_OK;
}

static int precompute_rest(op_ctx *ctx, arap_solver *s, const op_body *body, void *const *twins, int twin_count)
{
    const op_graph *g = body->graph;
    int n = g->particle_count;
    s->reference = op_calloc(ctx, 3 * (size_t)n, sizeof(double));
    if (ctx->status != OP_OK || share_edges(ctx, s, g, twins, twin_count) != OP_OK)
        return ctx->status;
    for (int i = 0; i < n; ++i) {
        m3_mul_v(&s->reference[3 * i], body->placement_rotation, &g->rest_position[3 * i]);
        v3_add(&s->reference[3 * i], &s->reference[3 * i], body->placement_translation);
    }
    return OP_OK;
}

/* The earlier body whose global matrix is provably this one's, or NULL: the same graph (one
 * model's), the same k and h, the same particles position-pinned, and no position constraint on
 * either (their couplings are not compared: a body with one factors its own). Twins are other
 * arap states (solver.h). */
static const arap_solver *matching_twin(const arap_solver *s, void *const *twins, int twin_count, double h)
{
    if (s->terms.position_constraints > 0)
        return NULL;
    for (int t = 0; t < twin_count; ++t) {
        const arap_solver *twin = twins[t];
        if (twin->graph == s->graph && twin->stiffness == s->stiffness && twin->factored_h == h &&
            twin->terms.position_constraints == 0 && twin->free_count == s->free_count &&
            memcmp(twin->row_of, s->row_of, (size_t)s->n * sizeof(int)) == 0)
            return twin;
    }
    return NULL;
}

/* The global step for sub-steps of length h: m_i/h², and the factor, a twin's where one matches
 * (matching_twin), else this body's own. */
static int prepare_global(op_ctx *ctx, arap_solver *s, const op_body *body, double h, void *const *twins,
                          int twin_count)
{
    const op_graph *g = body->graph;
    for (int i = 0; i < s->n; ++i)
        s->inertia[i] = g->mass[i] * (1.0 / (h * h));
    if (s->pcg.on) { /* the body's own matrix: a twin's would do, but CG is for large bodies */
        s->factored_h = h;
        return op_arap_pcg_prepare(ctx, &s->pcg, body, s->row_of, s->free_count, h);
    }
    op_sparse_factor_free(&s->factor);
    const arap_solver *twin = matching_twin(s, twins, twin_count, h);
    if (twin)
        s->factor = twin->factor ? op_sparse_factor_retain(twin->factor) : NULL;
    else if (op_arap_factor_matrix(ctx, body, s->row_of, s->free_count, h, &s->factor) != OP_OK)
        return ctx->status;
    s->factored_h = h;
    return s->factor ? op_sparse_workspace_reserve(ctx, &s->work, s->factor) : OP_OK;
}

/* Particle i's record (R_i Ā_i, R_i) from its rotation R_i. */
static inline void refresh_sweep_state(arap_solver *s, const op_graph *g, const double *rotation, int i)
{
    double moment[9];
    m3_mul(moment, &rotation[9 * i], &g->rest_moment[9 * i]);
    for (int k = 0; k < 9; ++k) {
        *sweep_at(&s->data, s->data.record, 18, i, k) = moment[k];
        *sweep_at(&s->data, s->data.record, 18, i, 9 + k) = rotation[9 * i + k];
    }
}

/* Whether particle i's record holds R_i bit for bit. */
static inline int record_holds(const arap_solver *s, const double *rotation, int i)
{
    uint64_t differ = 0;
    for (int k = 0; k < 9; ++k) {
        uint64_t held, now;
        memcpy(&held, sweep_at(&s->data, s->data.record, 18, i, 9 + k), sizeof held);
        memcpy(&now, &rotation[9 * i + k], sizeof now);
        differ |= held ^ now;
    }
    return differ == 0;
}

static int arap_create(op_ctx *ctx, const op_solver_settings *settings, op_body *body, double h, void *const *twins,
                       int twin_count, void **out)
{
    *out = NULL;
    arap_solver *s = op_calloc(ctx, 1, sizeof *s);
    if (!s)
        return ctx->status;
    int n = body->graph->particle_count;
    s->n = n;
    s->graph = body->graph;
    s->stiffness = body->stiffness;
    if (op_solver_setting_choice(ctx, settings, "rotations", "gs|jacobi", &s->order) != OP_OK ||
        op_solver_setting_choice(ctx, settings, "sweep_threads", "one|team|auto", &s->sweep_threads) != OP_OK ||
        op_arap_pcg_settings(ctx, settings, body, &s->pcg) != OP_OK) {
        arap_destroy(s);
        return ctx->status;
    }
    s->row_of = op_calloc(ctx, (size_t)n, sizeof(int));
    s->local_base = op_calloc(ctx, 9 * (size_t)n, sizeof(double));
    s->sweep_state = op_calloc(ctx, 18 * (size_t)n, sizeof(double));
    s->displacement = op_calloc(ctx, 3 * (size_t)n, sizeof(double));
    s->rotation_sweep = s->order == ARAP_JACOBI ? op_calloc(ctx, 9 * (size_t)n, sizeof(double)) : NULL;
    s->quaternion = op_calloc(ctx, 4 * (size_t)n, sizeof(double));
    s->turn = op_calloc(ctx, 12 * (size_t)n, sizeof(double));
    s->inertia = op_calloc(ctx, (size_t)n, sizeof(double));
    if (ctx->status != OP_OK || precompute_rest(ctx, s, body, twins, twin_count) != OP_OK) {
        arap_destroy(s);
        return ctx->status;
    }
    s->data = (sweep_data){ s->sweep_state, s->displacement, s->local_base, s->quaternion, 1, 0 };
    for (int i = 0; i < n; ++i) {
        s->row_of[i] = body->position_pinned[i] ? -1 : s->free_count++;
        op_rotation_quaternion(&body->state.rotation[9 * i], &s->quaternion[4 * i]);
        refresh_sweep_state(s, body->graph, body->state.rotation, i);
    }
    s->rhs = op_calloc(ctx, 3 * (size_t)(s->free_count ? s->free_count : 1), sizeof(double));
    if (ctx->status != OP_OK || op_arap_terms_create(ctx, &s->terms, body, s->row_of) != OP_OK ||
        op_arap_colour_sweep(ctx, &s->terms, body, &s->sweep) != OP_OK ||
        prepare_global(ctx, s, body, h, twins, twin_count) != OP_OK) {
        arap_destroy(s);
        return ctx->status;
    }
    *out = s;
    return OP_OK;
}

/* Particle i's sub-step start: its local_base, ρ/h² Y_i Ā_i + k P S_i (inertia = ρ/h²), entry by
 * entry in m3_mul's, m3_scale's and m3_add's order; and its record refreshed where it does not
 * hold R_i. k P S_i is formed here from the graph's S_i (arap_edges), as m3_mul(P, S_i) scaled
 * by k, rather than read from an array of its own a body: on the piles that array's first read
 * each sub-step was a third of this stage's samples in begin_particles_avx. */
static inline void begin_particle(arap_solver *s, const op_body *body, int i, double inertia)
{
    const op_graph *g = body->graph;
    const double *Y = &body->inertial_rotation[9 * i], *A = &g->rest_moment[9 * i];
    const double *P = body->placement_rotation, *S = &s->edges->spread[9 * i];
    double base[9]; /* formed apart from its stores, which might alias Y, Ā or S as far as the
                       compiler knows: so it can keep the sums in vector registers */
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            base[3 * r + c] = (Y[3 * r] * A[c] + Y[3 * r + 1] * A[3 + c] + Y[3 * r + 2] * A[6 + c]) * inertia +
                              (P[3 * r] * S[c] + P[3 * r + 1] * S[3 + c] + P[3 * r + 2] * S[6 + c]) * s->stiffness;
    for (int e = 0; e < 9; ++e)
        *sweep_at(&s->data, s->data.base, 9, i, e) = base[e];
    /* A record always holds m3_mul(R, Ā) for the R it holds, so one whose R is R_i bit for
     * bit is current (the sweep keeps them so); only rotations set from outside the sweep
     * (pins, Chebyshev, a state written by the caller) are refreshed. Refreshing them all
     * wrote 18 numbers a particle into lines that had left the cache since the last
     * sub-step. */
    if (!record_holds(s, body->state.rotation, i))
        refresh_sweep_state(s, g, body->state.rotation, i);
}

#if OP_SIMD_AVX
OP_SIMD_AVX_BEGIN
/* begin_particle's base in four lanes: ρ/h² Y Ā + k P S, entry by entry in its order */
static inline void base_lanes_avx(op_lanes4 base[9], const op_lanes4 Y[9], const op_lanes4 A[9], const op_lanes4 P[9],
                                  const op_lanes4 S[9], op_lanes4 inertia, op_lanes4 stiffness)
{
    op_lanes4 YA[9], PS[9];
    op4_m3_mul(YA, Y, A);
    op4_m3_mul(PS, P, S);
    for (int e = 0; e < 9; ++e)
        base[e] = op4_add(op4_mul(YA[e], inertia), op4_mul(PS[e], stiffness));
}

/* begin_particle for every particle, four at a time side by side in AVX lanes (one particle a
 * lane, core/kernels/simd.h), each lane's operations in begin_particle's order, so the same bits; the
 * last n mod 4 one at a time. The records are compared four at a time, and all four refreshed
 * when one does not hold. In a group's interleaved sweep data (a body's entries every
 * GROUP_LANES doubles) the bases and records are stored and read entry by entry. */
static void begin_particles_avx(arap_solver *s, const op_body *body, double inertia)
{
    const op_graph *g = body->graph;
    const op_lanes4 scale = op4_all(inertia), k = op4_all(s->stiffness);
    op_lanes4 P[9];
    for (int e = 0; e < 9; ++e)
        P[e] = op4_all(body->placement_rotation[e]);
    size_t base_stride = 9 * (size_t)s->data.lanes, record_stride = 18 * (size_t)s->data.lanes;
    int i = 0;
    for (; i + 4 <= s->n; i += 4) {
        op_lanes4 Y[9], A[9], S[9], base[9], R[9], held[9], differ = op4_zero();
        op4_load_consecutive(&body->inertial_rotation[9 * i], 9, 9, Y);
        op4_load_consecutive(&g->rest_moment[9 * i], 9, 9, A);
        op4_load_consecutive(&s->edges->spread[9 * i], 9, 9, S);
        base_lanes_avx(base, Y, A, P, S, scale, k);
        op4_load_consecutive(&body->state.rotation[9 * i], 9, 9, R);
        if (s->data.lanes == 1) {
            op4_store_consecutive(sweep_at(&s->data, s->data.base, 9, i, 0), 9, 9, base);
            op4_load_consecutive(sweep_at(&s->data, s->data.record, 18, i, 9), 18, 9, held);
        } else {
            /* entry k of particle i + p at k·lanes + p·stride from entry 0 of particle i */
            double *base_at = sweep_at(&s->data, s->data.base, 9, i, 0);
            const double *held_at = sweep_at(&s->data, s->data.record, 18, i, 9);
            for (int k = 0; k < 9; ++k, base_at += GROUP_LANES, held_at += GROUP_LANES) {
                op4_store_apart(base_at, base_stride, base[k]);
                held[k] = op4_load_apart(held_at, record_stride);
            }
        }
        for (int k = 0; k < 9; ++k)
            differ = op4_or_mask(differ, op4_differ(R[k], held[k]));
        if (op4_none(differ))
            continue;
        /* refresh_sweep_state of all four: a record that holds R_i is rewritten with its own
         * bits. After a rigid turn of the rotations (world.c's predict) none holds. */
        op_lanes4 moment[9];
        op4_m3_mul(moment, R, A);
        if (s->data.lanes == 1) {
            op4_store_consecutive(sweep_at(&s->data, s->data.record, 18, i, 0), 18, 9, moment);
            op4_store_consecutive(sweep_at(&s->data, s->data.record, 18, i, 9), 18, 9, R);
        } else {
            double *record_at = sweep_at(&s->data, s->data.record, 18, i, 0);
            for (int k = 0; k < 18; ++k, record_at += GROUP_LANES)
                op4_store_apart(record_at, record_stride, k < 9 ? moment[k] : R[k - 9]);
        }
    }
    for (; i < s->n; ++i)
        begin_particle(s, body, i, inertia);
}
OP_SIMD_AVX_END
#endif

#if OP_SIMD_AVX
OP_SIMD_AVX_BEGIN
/* begin_particle for particle i of a group's four bodies at once, one body a lane (the rest
 * moment Ā_i and the spread S_i are the graph's, the same in every lane), each lane's
 * operations in begin_particle's order, so the same bits: the bases and the records go to the
 * group's interleaved arrays in whole registers, where begin_particles_avx's four particles of
 * one body stored them a number at a time. As begin_particles_avx, the four records are
 * refreshed when one does not hold. */
static void begin_group_avx(arap_solver *const *solvers, op_body *const *bodies, double inertia)
{
    const arap_solver *first = solvers[0];
    const op_graph *g = first->graph;
    const op_lanes4 scale = op4_all(inertia), k = op4_all(first->stiffness);
    op_lanes4 P[9];
    const double *placement[GROUP_LANES];
    for (int lane = 0; lane < GROUP_LANES; ++lane)
        placement[lane] = bodies[lane]->placement_rotation;
    op4_load_records(placement, 9, P);
    for (int i = 0; i < first->n; ++i) {
        const double *inertial[GROUP_LANES], *turned[GROUP_LANES];
        for (int lane = 0; lane < GROUP_LANES; ++lane) {
            inertial[lane] = &bodies[lane]->inertial_rotation[9 * i];
            turned[lane] = &bodies[lane]->state.rotation[9 * i];
        }
        op_lanes4 Y[9], R[9], A[9], S[9], base[9], differ = op4_zero();
        op4_load_records(inertial, 9, Y);
        for (int e = 0; e < 9; ++e) {
            A[e] = op4_broadcast(&g->rest_moment[9 * i + e]);
            S[e] = op4_broadcast(&first->edges->spread[9 * i + e]);
        }
        base_lanes_avx(base, Y, A, P, S, scale, k);
        double *base_at = &first->group->base[(size_t)9 * GROUP_LANES * i];
        for (int e = 0; e < 9; ++e)
            op4_store(base_at + GROUP_LANES * e, base[e]);
        op4_load_records(turned, 9, R);
        double *record = &first->group->record[(size_t)18 * GROUP_LANES * i];
        for (int e = 0; e < 9; ++e)
            differ = op4_or_mask(differ, op4_differ(R[e], op4_load(record + GROUP_LANES * (9 + e))));
        if (op4_none(differ))
            continue;
        op_lanes4 moment[9];
        op4_m3_mul(moment, R, A);
        for (int e = 0; e < 9; ++e) {
            op4_store(record + GROUP_LANES * e, moment[e]);
            op4_store(record + GROUP_LANES * (9 + e), R[e]);
        }
    }
}
OP_SIMD_AVX_END
#endif

static int arap_begin_substep(op_ctx *ctx, void *self, op_body *body, double h)
{
    arap_solver *s = self;
    if (h != s->factored_h && prepare_global(ctx, s, body, h, NULL, 0) != OP_OK)
        return ctx->status;
    double inertia = body->graph->density / (h * h);
#if OP_SIMD_AVX
    if (op_simd_use_avx)
        begin_particles_avx(s, body, inertia);
    else
#endif
        for (int i = 0; i < s->n; ++i)
            begin_particle(s, body, i, inertia);
    op_arap_terms_targets(&s->terms, body);
    return OP_OK;
}

/* C^p_i and C^d_i of every constraint influencing particle i */
static void add_constraint_terms(const arap_solver *s, const op_body *body, const double *rotations, int i,
                                 double C[9])
{
    if (op_arap_terms_involve(&s->terms, i))
        op_arap_terms_local(&s->terms, body, s->displacement, rotations, i, C);
}

void op_arap_constraint_terms(const void *solver, const op_body *body, const double *rotations, int i, double C[9])
{
    add_constraint_terms(solver, body, rotations, i, C);
}

/* C_i of Eq. 5 + 11 + 13 + 15 from the neighbours' records in sweep_state and, for the
 * constraint terms, the rotations the sweep reads:
 *   C_i = base_i + k ((Σ_j R_j Ā_j + (Σ_j R_j) Ā_i) + Σ_j (u_j − u_i) w_ijᵀ) + C^p_i + C^d_i,
 * k Σ_j R_j (Ā_j + Ā_i) summed as k (Σ_j R_j Ā_j + (Σ_j R_j) Ā_i). */
static void assemble_local(const arap_solver *s, const op_body *body, const double *rotations, int i, double C[9])
{
    const op_graph *g = body->graph;
    const int *adjacency = g->adjacency;
    int first = g->adjacency_start[i], last = g->adjacency_start[i + 1];
    const sweep_data *d = &s->data;
    double sum[18] = { 0 };
    for (int e = first; e < last; ++e)
        for (int k = 0; k < 18; ++k)
            sum[k] += *sweep_at(d, d->record, 18, adjacency[e], k);
    double spread[9] = { 0 }, u_i[3];
    for (int r = 0; r < 3; ++r)
        u_i[r] = *sweep_at(d, d->displacement, 3, i, r);
    for (int e = first; e < last; ++e) {
        const double *w = &s->edge_offset[3 * e];
        double du[3];
        for (int r = 0; r < 3; ++r)
            du[r] = *sweep_at(d, d->displacement, 3, adjacency[e], r) - u_i[r];
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
                spread[3 * r + c] += du[r] * w[c];
    }
    double rotations_moment[9];
    m3_mul(rotations_moment, &sum[9], &g->rest_moment[9 * i]);
    double k = body->stiffness;
    for (int e = 0; e < 9; ++e)
        C[e] = *sweep_at(d, d->base, 9, i, e) + k * ((sum[e] + rotations_moment[e]) + spread[e]);
    add_constraint_terms(s, body, rotations, i, C);
}

#if OP_LANES2
/* Particle i's neighbour sums, two entries to a register: out[0..8] the record sums
 * (Σ_j R_j Ā_j, then Σ_j R_j, entries 2k and 2k + 1 in out[k]); out[9..13] Σ_j (u_j − u_i) w_ijᵀ
 * as rows, entries (r, 0..1) in out[9 + r], (0..1, 2) in out[12] and (2, 2) low in out[13]. The
 * same sums in the same order as assemble_local's. */
static inline void neighbour_sums(const arap_solver *s, const op_graph *g, int i, op_lanes2 out[14])
{
    const int *adjacency = g->adjacency;
    int first = g->adjacency_start[i], last = g->adjacency_start[i + 1];
    op_lanes2 s0 = op2_zero(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0, s8 = s0;
    for (int e = first; e < last; ++e) {
        const double *record = &s->sweep_state[18 * adjacency[e]];
        s0 = op2_add(s0, op2_load(record));
        s1 = op2_add(s1, op2_load(record + 2));
        s2 = op2_add(s2, op2_load(record + 4));
        s3 = op2_add(s3, op2_load(record + 6));
        s4 = op2_add(s4, op2_load(record + 8));
        s5 = op2_add(s5, op2_load(record + 10));
        s6 = op2_add(s6, op2_load(record + 12));
        s7 = op2_add(s7, op2_load(record + 14));
        s8 = op2_add(s8, op2_load(record + 16));
    }
    out[0] = s0, out[1] = s1, out[2] = s2, out[3] = s3, out[4] = s4;
    out[5] = s5, out[6] = s6, out[7] = s7, out[8] = s8;
    const double *u_i = &s->displacement[3 * i];
    op_lanes2 ui01 = op2_load(u_i), ui2 = op2_load_low(u_i + 2);
    op_lanes2 r0 = op2_zero(), r1 = r0, r2 = r0, c2 = r0, d2 = r0;
    for (int e = first; e < last; ++e) {
        const double *u_j = &s->displacement[3 * adjacency[e]], *w = &s->edge_offset[3 * e];
        op_lanes2 du01 = op2_sub(op2_load(u_j), ui01), du2 = op2_sub_low(op2_load_low(u_j + 2), ui2);
        op_lanes2 w01 = op2_load(w), w2 = op2_load_all(w + 2);
        r0 = op2_add(r0, op2_mul(op2_interleave_low(du01, du01), w01));
        r1 = op2_add(r1, op2_mul(op2_interleave_high(du01, du01), w01));
        r2 = op2_add(r2, op2_mul(op2_interleave_low(du2, du2), w01));
        c2 = op2_add(c2, op2_mul(du01, w2));
        d2 = op2_add_low(d2, op2_mul_low(du2, w2));
    }
    out[9] = r0, out[10] = r1, out[11] = r2, out[12] = c2, out[13] = d2;
}

#if OP_SIMD_AVX
OP_SIMD_AVX_BEGIN
/* neighbour_sums with four entries to a register: each entry's sum in the same order, so the
 * same bits, in about half the loads and adds. The spread's columns (rows 0..2 and a zero pad)
 * are the AVX accumulators, rearranged into neighbour_sums' layout at the end. */
static void neighbour_sums_avx(const arap_solver *s, const op_graph *g, int i, op_lanes2 out[14])
{
    const int *adjacency = g->adjacency;
    int first = g->adjacency_start[i], last = g->adjacency_start[i + 1];
    op_lanes4 s0 = op4_zero(), s1 = s0, s2 = s0, s3 = s0;
    op_lanes2 s4 = op2_zero();
    for (int e = first; e < last; ++e) {
        const double *record = &s->sweep_state[18 * adjacency[e]];
        s0 = op4_add(s0, op4_load(record));
        s1 = op4_add(s1, op4_load(record + 4));
        s2 = op4_add(s2, op4_load(record + 8));
        s3 = op4_add(s3, op4_load(record + 12));
        s4 = op2_add(s4, op2_load(record + 16));
    }
    out[0] = op4_low(s0), out[1] = op4_high(s0);
    out[2] = op4_low(s1), out[3] = op4_high(s1);
    out[4] = op4_low(s2), out[5] = op4_high(s2);
    out[6] = op4_low(s3), out[7] = op4_high(s3);
    out[8] = s4;
    const double *u_i = &s->displacement[3 * i];
    op_lanes4 ui = op4_load3(u_i);
    op_lanes4 c0 = op4_zero(), c1 = c0, c2 = c0;
    for (int e = first; e < last; ++e) {
        const double *u_j = &s->displacement[3 * adjacency[e]], *w = &s->edge_offset[3 * e];
        op_lanes4 du = op4_sub(
            op4_load3(u_j), ui);
        c0 = op4_add(c0, op4_mul(du, op4_broadcast(w)));
        c1 = op4_add(c1, op4_mul(du, op4_broadcast(w + 1)));
        c2 = op4_add(c2, op4_mul(du, op4_broadcast(w + 2)));
    }
    op_lanes2 c0_01 = op4_low(c0), c1_01 = op4_low(c1);
    op_lanes2 c0_2 = op4_high(c0), c1_2 = op4_high(c1);
    out[9] = op2_interleave_low(c0_01, c1_01);
    out[10] = op2_interleave_high(c0_01, c1_01);
    out[11] = op2_interleave_low(c0_2, c1_2);
    out[12] = op4_low(c2);
    out[13] = op4_high(c2);
}
OP_SIMD_AVX_END
#endif

/* (a[k], b[k]) for k < 9 */
static inline void gather9(const double *a, const double *b, op_lanes2 out[9])
{
    for (int k = 0; k < 8; k += 2) {
        op_lanes2 x = op2_load(a + k), y = op2_load(b + k);
        out[k] = op2_interleave_low(x, y);
        out[k + 1] = op2_interleave_high(x, y);
    }
    out[8] = op2_interleave_low(op2_load_low(a + 8), op2_load_low(b + 8));
}

/* C_a and C_b side by side, particle a in the low lanes and b in the high ones: each lane goes
 * through assemble_local's operations in assemble_local's order (bitwise its result), with the
 * sums by particle and everything after them two particles at a time. moment: Ā_a, Ā_b. */
static inline void assemble_pair(const arap_solver *s, const op_body *body, const double *rotations, int a, int b,
                                 op_lanes2 C[9], op_lanes2 moment[9])
{
    const op_graph *g = body->graph;
    op_lanes2 A[14], B[14], sum[18], spread[9], base[9];
#if OP_SIMD_AVX
    if (op_simd_use_avx) {
        neighbour_sums_avx(s, g, a, A);
        neighbour_sums_avx(s, g, b, B);
    } else
#endif
    {
        neighbour_sums(s, g, a, A);
        neighbour_sums(s, g, b, B);
    }
    for (int k = 0; k < 9; ++k) {
        sum[2 * k] = op2_interleave_low(A[k], B[k]);
        sum[2 * k + 1] = op2_interleave_high(A[k], B[k]);
    }
    spread[0] = op2_interleave_low(A[9], B[9]), spread[1] = op2_interleave_high(A[9], B[9]);
    spread[3] = op2_interleave_low(A[10], B[10]), spread[4] = op2_interleave_high(A[10], B[10]);
    spread[6] = op2_interleave_low(A[11], B[11]), spread[7] = op2_interleave_high(A[11], B[11]);
    spread[2] = op2_interleave_low(A[12], B[12]), spread[5] = op2_interleave_high(A[12], B[12]);
    spread[8] = op2_interleave_low(A[13], B[13]);
    gather9(&g->rest_moment[9 * a], &g->rest_moment[9 * b], moment);
    gather9(&s->local_base[9 * a], &s->local_base[9 * b], base);
    op_lanes2 k = op2_all(body->stiffness);
    const op_lanes2 *n = &sum[9]; /* Σ_j R_j */
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            op_lanes2 t = op2_add(op2_add(op2_mul(n[3 * r], moment[c]), op2_mul(n[3 * r + 1], moment[3 + c])),
                              op2_mul(n[3 * r + 2], moment[6 + c]));
            int e = 3 * r + c;
            C[e] = op2_add(base[e], op2_mul(k, op2_add(op2_add(sum[e], t), spread[e])));
        }
    if (op_arap_terms_involve(&s->terms, a) || op_arap_terms_involve(&s->terms, b)) {
        double Ca[9], Cb[9];
        for (int e = 0; e < 9; ++e) {
            op2_store_low(&Ca[e], C[e]);
            op2_store_high(&Cb[e], C[e]);
        }
        add_constraint_terms(s, body, rotations, a, Ca);
        add_constraint_terms(s, body, rotations, b, Cb);
        for (int e = 0; e < 9; ++e)
            C[e] = op2_interleave_low(op2_load_low(&Ca[e]), op2_load_low(&Cb[e]));
    }
}

/* R_a and R_b from their lanes into the state, and (Gauss–Seidel) their records: R Ā as m3_mul
 * forms it, then R. */
static inline void store_pair(arap_solver *s, op_body *body, int a, int b, const op_lanes2 R[9],
                              const op_lanes2 moment[9], int gauss_seidel)
{
    double *Ra = &body->state.rotation[9 * a], *Rb = &body->state.rotation[9 * b];
    for (int e = 0; e < 8; e += 2) {
        op2_store(Ra + e, op2_interleave_low(R[e], R[e + 1]));
        op2_store(Rb + e, op2_interleave_high(R[e], R[e + 1]));
    }
    op2_store_low(Ra + 8, R[8]);
    op2_store_high(Rb + 8, R[8]);
    if (!gauss_seidel)
        return;
    op_lanes2 record[18];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            record[3 * r + c] = op2_add(op2_add(op2_mul(R[3 * r], moment[c]), op2_mul(R[3 * r + 1], moment[3 + c])),
                                           op2_mul(R[3 * r + 2], moment[6 + c]));
    for (int e = 0; e < 9; ++e)
        record[9 + e] = R[e];
    double *record_a = &s->sweep_state[18 * a], *record_b = &s->sweep_state[18 * b];
    for (int e = 0; e < 18; e += 2) {
        op2_store(record_a + e, op2_interleave_low(record[e], record[e + 1]));
        op2_store(record_b + e, op2_interleave_high(record[e], record[e + 1]));
    }
}

/* count (1 … 16) particles of one colour, order[0 … count), side by side: assembled in pairs,
 * their polar decompositions in one, two or four groups of four lanes (op_polar_rotation_warm4_lanes,
 * _warm8_lanes, _warm16_lanes: AVX, or AVX-512's eight; SSE2 pairs without AVX), whose latency
 * chains overlap. A run shorter than its lanes is padded with its last particle, whose C and warm
 * start the padding lanes repeat (the warm start copied): they compute its rotation bit for bit
 * again and are not stored.
 * A colour's last particles so cost one call instead of a four's, a pair's and a lone one's. */
static void local_lanes(arap_solver *s, op_body *body, const double *rotations, const int *order, int count,
                        int gauss_seidel)
{
    enum { MOST = 16 };
    op_lanes2 C[MOST / 2][9], moment[MOST / 2][9], R[MOST / 2][9];
    int pairs = (count + 1) / 2, lanes = count > 8 ? 16 : count > 4 ? 8 : 4, p[MOST];
    for (int m = 0; m < lanes; ++m)
        p[m] = order[m < count ? m : count - 1];
    for (int w = 0; w < pairs; ++w)
        assemble_pair(s, body, rotations, p[2 * w], p[2 * w + 1], C[w], moment[w]);
    for (int w = pairs; w < lanes / 2; ++w)
        for (int k = 0; k < 9; ++k) /* both lanes the last particle's */
            C[w][k] = count % 2 ? C[pairs - 1][k] : op2_interleave_high(C[pairs - 1][k], C[pairs - 1][k]);
    /* the padding lanes start from copies of the last particle's warm start and leave their
     * quaternions in the copies: a later call of the polar kernel (the eights and sixteens
     * without AVX-512 are several) must not see one already updated */
    double *q[MOST], padding[MOST][4];
    for (int m = 0; m < lanes; ++m)
        q[m] = m < count ? &s->quaternion[4 * p[m]] : memcpy(padding[m], &s->quaternion[4 * p[m]], sizeof padding[m]);
    if (lanes == 16)
        op_polar_rotation_warm16_lanes((const double *)C, q, (double *)R);
    else if (lanes == 8)
        op_polar_rotation_warm8_lanes((const double *)C, q, (double *)R);
    else
        op_polar_rotation_warm4_lanes((const double *)C, q, (double *)R);
    for (int w = 0; w < pairs; ++w)
        store_pair(s, body, p[2 * w], p[2 * w + 1], R[w], moment[w], gauss_seidel);
}
#else
/* One particle of the sweep: C_i, its rotation, its record. */
static void local_single(arap_solver *s, op_body *body, const double *rotations, int i, int gauss_seidel)
{
    double C[9];
    assemble_local(s, body, rotations, i, C);
    op_polar_rotation_warm(C, &s->quaternion[4 * i], &body->state.rotation[9 * i]);
    if (gauss_seidel)
        refresh_sweep_state(s, body->graph, body->state.rotation, i);
}

static void local_lanes(arap_solver *s, op_body *body, const double *rotations, const int *order, int count,
                        int gauss_seidel)
{
    for (int m = 0; m < count; ++m)
        local_single(s, body, rotations, order[m], gauss_seidel);
}
#endif

/* Particles order[first..last) of one colour: sixteen at a time, then the rest (local_lanes).
 * Eight rather than four took the dinosaur's local step (100 particles, 7 colours) from 5.2 to
 * 4.9 µs and the sheet's (256, 3 colours) from 12.9 to 11.7 µs (one thread, least of 200 blocks
 * of 20); sixteen (two groups of AVX-512 lanes) rather than eight the sheet's frame from 200 to
 * 196 µs (median of 440 frames). */
static void sweep_run(arap_solver *s, op_body *body, const double *sweep, const int *order, int first, int last,
                      int gauss_seidel)
{
    int p = first;
    for (; p + 15 < last; p += 16)
        local_lanes(s, body, sweep, &order[p], 16, gauss_seidel);
    if (p < last)
        local_lanes(s, body, sweep, &order[p], last - p, gauss_seidel);
}

/* The sweep shared by a thread team: each colour cut into one run a thread, each run a multiple
 * of four long (so that the quads are the serial sweep's), a barrier between colours. Within a
 * colour no particle reads another's rotation or record (op_arap_colour_sweep, solvers/arap_terms.c), and each particle's
 * arithmetic is the same alone, in a pair or in a quad, so every team size gives the serial
 * sweep's bits. */
static void sweep_shared(arap_solver *s, op_body *body, const double *sweep, int gauss_seidel, int threads)
{
    const int *order = s->sweep.order;
#pragma omp parallel num_threads(threads)
    {
        int thread = omp_get_thread_num(), team = omp_get_num_threads();
        for (int c = 0; c < s->sweep.colours; ++c) {
            int start = s->sweep.colour_start[c], end = s->sweep.colour_start[c + 1];
            int run = ((end - start + team - 1) / team + 3) / 4 * 4;
            int first = start + thread * run, last = first + run < end ? first + run : end;
            if (first < last)
                sweep_run(s, body, sweep, order, first, last, gauss_seidel);
#pragma omp barrier
        }
    }
}

void op_arap_local_step(void *self, op_body *body, double h)
{
    (void)h;
    arap_solver *s = self;
    const op_graph *g = body->graph;
    double *rotation = body->state.rotation;
    const double *sweep = rotation;
    for (int i = 0; i < s->n; ++i)
        v3_sub(&s->displacement[3 * i], &body->state.position[3 * i], &s->reference[3 * i]);
    if (s->order == ARAP_JACOBI) {
        memcpy(s->rotation_sweep, rotation, 9 * (size_t)s->n * sizeof(double));
        sweep = s->rotation_sweep;
    }
    /* The records R_j Ā_j, R_j: Gauss–Seidel refreshes particle i's as soon as R_i changes;
     * Jacobi keeps the previous iteration's until the sweep is over. The polar decompositions
     * are warm-started from R_i's previous value (core/kernels/polar.c), four at a time: the particles
     * of a colour do not read one another's rotations (op_arap_colour_sweep, solvers/arap_terms.c), so in either order the
     * result is what one at a time would give. With sweep_threads = team (or auto, the world
     * choosing the team), a body called outside a thread team (the world's only unit) shares
     * each colour with a team of its own. */
    int gauss_seidel = s->order == ARAP_GAUSS_SEIDEL;
    int threads = sweep_team(s, body) && !omp_in_parallel() ? omp_get_max_threads() : 1;
    if (threads > 1)
        sweep_shared(s, body, sweep, gauss_seidel, threads);
    else
        for (int c = 0; c < s->sweep.colours; ++c)
            sweep_run(s, body, sweep, s->sweep.order, s->sweep.colour_start[c], s->sweep.colour_start[c + 1], gauss_seidel);
    if (!gauss_seidel)
        for (int i = 0; i < s->n; ++i)
            refresh_sweep_state(s, g, rotation, i);
}

/* ---- groups: four twins' local steps side by side ---- */

/* Particle i of the four lanes, lane by lane through assemble_local and refresh_sweep_state
 * (the solo sweep's arithmetic), the four polar decompositions side by side: the path without
 * AVX. */
static void group_particle(arap_solver *const *solvers, op_body *const *bodies, int i)
{
    double C[9 * GROUP_LANES], R[9 * GROUP_LANES], lane_C[9];
    for (int lane = 0; lane < GROUP_LANES; ++lane) {
        assemble_local(solvers[lane], bodies[lane], bodies[lane]->state.rotation, i, lane_C);
        for (int e = 0; e < 9; ++e)
            C[GROUP_LANES * e + lane] = lane_C[e];
    }
    op_polar_rotation_warm4_interleaved(C, &solvers[0]->group->quaternion[4 * GROUP_LANES * i], R);
    for (int lane = 0; lane < GROUP_LANES; ++lane) {
        double *rotation = bodies[lane]->state.rotation;
        for (int e = 0; e < 9; ++e)
            rotation[9 * i + e] = R[GROUP_LANES * e + lane];
        refresh_sweep_state(solvers[lane], bodies[lane]->graph, rotation, i);
    }
}

#if OP_SIMD_AVX
OP_SIMD_AVX_BEGIN
/* Σ_j R_j Ā_j, then Σ_j R_j, over particle i's neighbours j in adjacency order, of the four
 * lanes: sum[k] entry k of the record. Nine accumulators at a time fit the registers, so the
 * neighbours are read twice. */
static inline void group_record_sums_avx(const arap_group *group, const op_graph *g, int i, op_lanes4 sum[18])
{
    const int *adjacency = g->adjacency;
    int first = g->adjacency_start[i], last = g->adjacency_start[i + 1];
    for (int half = 0; half < 18; half += 9) {
        op_lanes4 a[9];
        for (int k = 0; k < 9; ++k)
            a[k] = op4_zero();
        for (int e = first; e < last; ++e) {
            const double *record = &group->record[(size_t)18 * GROUP_LANES * adjacency[e] + GROUP_LANES * half];
            for (int k = 0; k < 9; ++k)
                a[k] = op4_add(a[k], op4_load(record + GROUP_LANES * k));
        }
        for (int k = 0; k < 9; ++k)
            sum[half + k] = a[k];
    }
}

/* C_i of the four lanes into C[4e + lane] in AVX registers, one lane a body, from the record
 * sums and the neighbour sums spread[e] = Σ_j (u_j − u_i)_r w_c (e = 3r + c): each lane through
 * assemble_local's operations in their order (bitwise its result). */
static inline void group_assemble_finish(const arap_solver *s, const op_graph *g, int i, const op_lanes4 sum[18],
                                         const op_lanes4 spread[9], double C[9 * GROUP_LANES])
{
    const arap_group *group = s->group;
    const double *moment = &g->rest_moment[9 * i];
    op_lanes4 M[9];
    for (int k = 0; k < 9; ++k)
        M[k] = op4_broadcast(moment + k);
    const op_lanes4 *n = &sum[9]; /* Σ_j R_j */
    op_lanes4 k = op4_all(s->stiffness);
    const double *base = &group->base[(size_t)9 * GROUP_LANES * i];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            op_lanes4 t =
                op4_add(op4_add(op4_mul(n[3 * r], M[c]), op4_mul(n[3 * r + 1], M[3 + c])),
                              op4_mul(n[3 * r + 2], M[6 + c]));
            int e = 3 * r + c;
            op_lanes4 sum_e = op4_add(op4_add(sum[e], t), spread[e]);
            op4_store(C + GROUP_LANES * e,
                             op4_add(op4_load(base + GROUP_LANES * e), op4_mul(k, sum_e)));
        }
}

/* Particle i's neighbours in a group's displacements: edges [first, last) of the graph's
 * adjacency, their offsets w_e, and where particle j's displacements of the four lanes start
 * (displacement + 3 GROUP_LANES j, row by row). */
typedef struct group_neighbours {
    int first, last;
    const int *adjacency;
    const double *offset, *displacement, *u_i;
} group_neighbours;

static inline group_neighbours group_neighbours_of(const arap_solver *s, const op_graph *g, int i)
{
    const double *displacement = s->group->displacement;
    return (group_neighbours){ g->adjacency_start[i], g->adjacency_start[i + 1], g->adjacency, s->edge_offset,
                               displacement, &displacement[(size_t)3 * GROUP_LANES * i] };
}

/* The neighbour sums spread[3r + c] = Σ_j (u_j − u_i)_r w_c of the four lanes, four particles
 * at a time where the solo sweep does one (two entries a register) */
static inline void group_spread_avx(const arap_solver *s, const op_graph *g, int i, op_lanes4 spread[9])
{
    group_neighbours n = group_neighbours_of(s, g, i);
    op_lanes4 ui[3];
    for (int r = 0; r < 3; ++r)
        ui[r] = op4_load(n.u_i + GROUP_LANES * r);
    for (int k = 0; k < 9; ++k)
        spread[k] = op4_zero();
    for (int e = n.first; e < n.last; ++e) {
        const double *u_j = &n.displacement[(size_t)3 * GROUP_LANES * n.adjacency[e]], *w = &n.offset[3 * e];
        op_lanes4 w0 = op4_broadcast(w), w1 = op4_broadcast(w + 1), w2 = op4_broadcast(w + 2);
        for (int r = 0; r < 3; ++r) {
            op_lanes4 du = op4_sub(op4_load(u_j + GROUP_LANES * r), ui[r]);
            spread[3 * r] = op4_add(spread[3 * r], op4_mul(du, w0));
            spread[3 * r + 1] = op4_add(spread[3 * r + 1], op4_mul(du, w1));
            spread[3 * r + 2] = op4_add(spread[3 * r + 2], op4_mul(du, w2));
        }
    }
}

/* R_i of the four lanes (R[4e + lane]) into the bodies and, as refresh_sweep_state forms it,
 * into the records */
static inline void group_store_avx(const arap_solver *s, const op_graph *g, op_body *const *bodies, int i,
                                   const double R[9 * GROUP_LANES])
{
    const double *moment = &g->rest_moment[9 * i];
    op_lanes4 M[9], rotation[9];
    for (int k = 0; k < 9; ++k) {
        M[k] = op4_broadcast(moment + k);
        rotation[k] = op4_load(R + GROUP_LANES * k);
    }
    double *record = &s->group->record[(size_t)18 * GROUP_LANES * i];
    op_lanes4 held[9];
    op4_m3_mul(held, rotation, M);
    for (int e = 0; e < 9; ++e) {
        op4_store(record + GROUP_LANES * e, held[e]);
        op4_store(record + GROUP_LANES * (9 + e), rotation[e]);
    }
    for (int lane = 0; lane < GROUP_LANES; ++lane) {
        double *out = &bodies[lane]->state.rotation[9 * i];
        for (int e = 0; e < 9; ++e)
            out[e] = R[GROUP_LANES * e + lane];
    }
}

typedef void group_sums_fn(const arap_group *group, const op_graph *g, int i, op_lanes4 sum[18]);
typedef void group_spread_fn(const arap_solver *s, const op_graph *g, int i, op_lanes4 spread[9]);

/* A colour's particles order[0 … count) in the four lanes, their record sums by record_sums and
 * their neighbour sums by spread_of:
 * four particles at a time, their sixteen polar decompositions in two groups of AVX-512
 * registers (op_polar_rotation_warm16_interleaved; two eights without AVX-512), then a pair
 * (op_polar_rotation_warm8_interleaved) and the last one of an odd count alone. With pad_three,
 * a last three go as a four instead of a pair and a single (one latency chain less), the fourth
 * particle's lanes repeating the third's C and a copy of its warm start, their results not
 * stored. Inlined into each instruction set's caller with its record_sums. */
static inline __attribute__((always_inline)) void group_colour(const arap_solver *s, op_body *const *bodies,
                                                               const int *order, int count, group_sums_fn *record_sums,
                                                               group_spread_fn *spread_of, int pad_three)
{
    enum { MOST = 4, ENTRIES = 9 * GROUP_LANES };
    const op_graph *g = bodies[0]->graph;
    double *quaternion = s->group->quaternion;
    double C[MOST * ENTRIES], R[MOST * ENTRIES], *q[MOST], padding[4 * GROUP_LANES];
    op_lanes4 sum[18], spread[9];
    for (int p = 0; p < count;) {
        int left = count - p, run = left >= 4 ? 4 : left == 3 && pad_three ? 3 : left >= 2 ? 2 : 1;
        for (int m = 0; m < run; ++m) {
            int i = order[p + m];
            record_sums(s->group, g, i, sum);
            spread_of(s, g, i, spread);
            group_assemble_finish(s, g, i, sum, spread, C + ENTRIES * m);
            q[m] = &quaternion[(size_t)4 * GROUP_LANES * i];
        }
        if (run == 3) {
            memcpy(C + ENTRIES * 3, C + ENTRIES * 2, ENTRIES * sizeof(double));
            q[3] = memcpy(padding, q[2], sizeof padding);
        }
        if (run >= 3)
            op_polar_rotation_warm16_interleaved(C, q, R);
        else if (run == 2)
            op_polar_rotation_warm8_interleaved(C, q, R);
        else
            op_polar_rotation_warm4_interleaved(C, q[0], R);
        for (int m = 0; m < run; ++m)
            group_store_avx(s, g, bodies, order[p + m], R + ENTRIES * m);
        p += run;
    }
}

static void group_colour_avx(const arap_solver *s, op_body *const *bodies, const int *order, int count)
{
    group_colour(s, bodies, order, count, group_record_sums_avx, group_spread_avx, 0);
}
OP_SIMD_AVX_END

OP_SIMD_AVX512_BEGIN
/* group_record_sums_avx with two entries of the four lanes a register: all eighteen sums in
 * nine AVX-512 accumulators, the neighbours read once; each lane's sum of each entry in the
 * same order, so the same bits */
static inline void group_record_sums_avx512(const arap_group *group, const op_graph *g, int i, op_lanes4 sum[18])
{
    const int *adjacency = g->adjacency;
    op_lanes8 a[9];
    for (int k = 0; k < 9; ++k)
        a[k] = op8_zero();
    for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
        const double *record = &group->record[(size_t)18 * GROUP_LANES * adjacency[e]];
        for (int k = 0; k < 9; ++k)
            a[k] = op8_add(a[k], op8_load(record + 2 * GROUP_LANES * k));
    }
    for (int k = 0; k < 9; ++k) {
        sum[2 * k] = op8_low(a[k]);
        sum[2 * k + 1] = op8_high(a[k]);
    }
}

/* group_spread_avx with the first two rows an AVX-512 register (the four lanes of row 0, then of
 * row 1, as the displacements lie), the third in AVX: each lane's operations in the same order,
 * so the same bits, for two thirds of the multiplies and adds an edge. */
static inline void group_spread_avx512(const arap_solver *s, const op_graph *g, int i, op_lanes4 spread[9])
{
    group_neighbours n = group_neighbours_of(s, g, i);
    op_lanes8 ui01 = op8_load(n.u_i), spread01[3];
    op_lanes4 ui2 = op4_load(n.u_i + 2 * GROUP_LANES), spread2[3];
    for (int c = 0; c < 3; ++c) {
        spread01[c] = op8_zero();
        spread2[c] = op4_zero();
    }
    for (int e = n.first; e < n.last; ++e) {
        const double *u_j = &n.displacement[(size_t)3 * GROUP_LANES * n.adjacency[e]], *w = &n.offset[3 * e];
        op_lanes8 du01 = op8_sub(op8_load(u_j), ui01);
        op_lanes4 du2 = op4_sub(op4_load(u_j + 2 * GROUP_LANES), ui2);
        for (int c = 0; c < 3; ++c) {
            spread01[c] = op8_add(spread01[c], op8_mul(du01, op8_all(w[c])));
            spread2[c] = op4_add(spread2[c], op4_mul(du2, op4_broadcast(w + c)));
        }
    }
    for (int c = 0; c < 3; ++c) {
        spread[c] = op8_low(spread01[c]);
        spread[3 + c] = op8_high(spread01[c]);
        spread[6 + c] = spread2[c];
    }
}

static void group_colour_avx512(const arap_solver *s, op_body *const *bodies, const int *order, int count)
{
    group_colour(s, bodies, order, count, group_record_sums_avx512, group_spread_avx512, 1);
}
OP_SIMD_AVX_END

OP_SIMD_AVX_BEGIN
/* The four lanes' displacements u = x − x_ref into the group's interleaved array, a particle's
 * three rows a register each, where one number at a time each took a store of its own */
static void group_displacements_avx(arap_solver *const *solvers, op_body *const *bodies)
{
    const arap_solver *s = solvers[0];
    double *displacement = s->group->displacement;
    for (int i = 0; i < s->n; ++i) {
        const double *x[GROUP_LANES], *reference[GROUP_LANES];
        for (int lane = 0; lane < GROUP_LANES; ++lane) {
            x[lane] = &bodies[lane]->state.position[3 * i];
            reference[lane] = &solvers[lane]->reference[3 * i];
        }
        op_lanes4 position[3], rest[3];
        op4_load_records(x, 3, position);
        op4_load_records(reference, 3, rest);
        for (int r = 0; r < 3; ++r)
            op4_store(&displacement[GROUP_LANES * (3 * i + r)], op4_sub(position[r], rest[r]));
    }
}
OP_SIMD_AVX_END
#endif

/* The local step of a group's four bodies, lane by lane in the solo sweep's order: particle by
 * particle in sweep order, where the solo sweep takes a colour four particles at a time; within
 * a colour no particle reads another's rotation, so each body gets the same bits. */
static void local_group(arap_solver *const *solvers, op_body *const *bodies)
{
    const arap_solver *s = solvers[0];
    arap_group *group = s->group;
#if OP_SIMD_AVX
    if (op_simd_use_avx) {
        group_displacements_avx(solvers, bodies);
        for (int c = 0; c < s->sweep.colours; ++c) {
            const int *order = &s->sweep.order[s->sweep.colour_start[c]];
            int count = s->sweep.colour_start[c + 1] - s->sweep.colour_start[c];
            if (op_simd_use_avx512)
                group_colour_avx512(s, bodies, order, count);
            else
                group_colour_avx(s, bodies, order, count);
        }
        return;
    }
#endif
    for (int lane = 0; lane < GROUP_LANES; ++lane) {
        const double *x = bodies[lane]->state.position, *reference = solvers[lane]->reference;
        for (int c = 0; c < 3 * s->n; ++c)
            group->displacement[GROUP_LANES * c + lane] = x[c] - reference[c];
    }
    for (int p = 0; p < s->sweep.count; ++p)
        group_particle(solvers, bodies, s->sweep.order[p]);
}

/* solver.h's group: four twins that sweep alike (Gauss–Seidel, one graph and its rest data,
 * one stiffness, the same rotation pins, no constraints: the same C_i terms in the same order)
 * become one group, their records and warm starts moved into its lanes. Only while the AVX
 * paths run: without them group_particle, one lane at a time, is slower than the solo sweep's
 * SSE2 quads (it remains for a group whose AVX paths are switched off later, op_simd_avx). */
static int arap_group_bodies(op_ctx *ctx, void *const *solvers, op_body *const *bodies, int count, int *grouped)
{
    *grouped = 1;
    if (count < GROUP_LANES || !op_simd_use_avx)
        return OP_OK;
    const arap_solver *first = solvers[0];
    for (int m = 0; m < GROUP_LANES; ++m) {
        const arap_solver *s = solvers[m];
        if (s->group || s->order != ARAP_GAUSS_SEIDEL || bodies[m]->constraint_count > 0 || s->graph != first->graph ||
            s->edges != first->edges || s->stiffness != first->stiffness || s->sweep.count != first->sweep.count ||
            memcmp(s->sweep.order, first->sweep.order, (size_t)s->sweep.count * sizeof(int)) != 0)
            return OP_OK;
    }
    size_t n = (size_t)(first->n ? first->n : 1);
    arap_group *group = op_calloc(ctx, 1, sizeof *group);
    if (!group)
        return ctx->status;
    group->record = op_calloc(ctx, 18 * GROUP_LANES * n, sizeof(double));
    group->displacement = op_calloc(ctx, 3 * GROUP_LANES * n, sizeof(double));
    group->base = op_calloc(ctx, 9 * GROUP_LANES * n, sizeof(double));
    group->quaternion = op_calloc(ctx, 4 * GROUP_LANES * n, sizeof(double));
    group->turn = op_calloc(ctx, 12 * GROUP_LANES * n, sizeof(double));
    if (ctx->status != OP_OK) {
        group_free(group);
        return ctx->status;
    }
    group->references = GROUP_LANES;
    for (int m = 0; m < GROUP_LANES; ++m) {
        arap_solver *s = solvers[m];
        sweep_data lane = { group->record, group->displacement, group->base, group->quaternion, GROUP_LANES, m };
        for (int i = 0; i < s->n; ++i) {
            for (int k = 0; k < 18; ++k)
                *sweep_at(&lane, lane.record, 18, i, k) = s->sweep_state[18 * i + k];
            for (int k = 0; k < 4; ++k)
                *sweep_at(&lane, lane.quaternion, 4, i, k) = s->quaternion[4 * i + k];
        }
        s->data = lane;
        s->group = group;
    }
    *grouped = GROUP_LANES;
    return OP_OK;
}

const op_sparse_factor *op_arap_factor(const void *solver)
{
    const arap_solver *s = solver;
    return s->factor;
}

int op_arap_sweep_order(const void *solver, const int **order)
{
    const arap_solver *s = solver;
    *order = s->sweep.order;
    return s->sweep.count;
}

int op_arap_sweep_colours(const void *solver, const int **colour_start)
{
    const arap_solver *s = solver;
    *colour_start = s->sweep.colour_start;
    return s->sweep.colours;
}

#if OP_LANES2
#define LANE op_lanes2
#define LANES_NAME(name) name##_lanes2
#define L(op) op2_##op
#include "arap_pull_lanes.h"
#endif

/* Σ_j (v_j R_i + v_i R_j)(x̄_i − x̄_j) less its value at rest (R = P), for free particle i:
 * (R_i − P) Σ_j v_j (x̄_i − x̄_j) + Σ_j (R_j − P) v_i (x̄_i − x̄_j). With SSE2 two rows at a
 * time, each row through turn_mul_v's operations in its order (turn_times, arap_pull_lanes.h, is
 * that order for every width). */
static inline void rotation_pull(const arap_solver *s, const op_graph *g, int i, double pull[3])
{
    const double *turn = s->turn;
#if OP_LANES2
    const double *t = &turn[12 * i], *v = &s->rest_pull[3 * i];
    op_lanes2 v0 = op2_load_all(v), v1 = op2_load_all(v + 1), v2 = op2_load_all(v + 2);
    op_lanes2 p01 = turn_times_lanes2(t, 4, v0, v1, v2), p23 = turn_times_lanes2(t + 2, 4, v0, v1, v2);
    for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
        t = &turn[12 * g->adjacency[e]];
        v = &s->edge_pull[3 * e];
        v0 = op2_load_all(v), v1 = op2_load_all(v + 1), v2 = op2_load_all(v + 2);
        p01 = op2_add(p01, turn_times_lanes2(t, 4, v0, v1, v2));
        p23 = op2_add(p23, turn_times_lanes2(t + 2, 4, v0, v1, v2));
    }
    op2_store(pull, p01);
    op2_store_low(pull + 2, p23);
#else
    double term[3];
    op_arap_turn_mul_v(pull, &turn[12 * i], &s->rest_pull[3 * i]);
    for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
        op_arap_turn_mul_v(term, &turn[12 * g->adjacency[e]], &s->edge_pull[3 * e]);
        v3_add(pull, pull, term);
    }
#endif
}

/* b_row = (m_i/h²)(y_i − x_ref_i) + k × pull: the inertia term, then the rotation pull added, in
 * registers and stored once */
static inline void set_rhs_row(const arap_solver *s, const op_body *body, int i, int row, double k,
                               const double pull[3])
{
    const double *y = &body->inertial_position[3 * i], *x_ref = &s->reference[3 * i];
    double inertia = s->inertia[i];
    double b[3] = { (y[0] - x_ref[0]) * inertia, (y[1] - x_ref[1]) * inertia, (y[2] - x_ref[2]) * inertia };
    v3_axpy(b, k, pull);
    v3_copy(&s->rhs[3 * row], b);
}

/* set_rhs_row with rotation_pull(i) for every free particle */
static void rhs_inertia_and_pulls(arap_solver *s, const op_body *body, double k)
{
    for (int i = 0; i < s->n; ++i) {
        int row = s->row_of[i];
        if (row < 0)
            continue;
        double pull[3];
        rotation_pull(s, body->graph, i, pull);
        set_rhs_row(s, body, i, row, k, pull);
    }
}

#if OP_SIMD_AVX
OP_SIMD_AVX_BEGIN
#define LANE op_lanes4
#define LANES_NAME(name) name##_lanes4
#define L(op) op4_##op
#include "arap_pull_lanes.h"

/* rhs_inertia_and_pulls with each pull's four rows (three and the pad) in one AVX register:
 * every row through rotation_pull's operations in its order, so the same bits */
static void rhs_inertia_and_pulls_avx(arap_solver *s, const op_body *body, double k)
{
    const op_graph *g = body->graph;
    const double *turn = s->turn;
    for (int i = 0; i < s->n; ++i) {
        int row = s->row_of[i];
        if (row < 0)
            continue;
        const double *t = &turn[12 * i], *v = &s->rest_pull[3 * i];
        op_lanes4 p = turn_times_lanes4(t, 4, op4_all(v[0]), op4_all(v[1]), op4_all(v[2]));
        for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
            t = &turn[12 * g->adjacency[e]];
            v = &s->edge_pull[3 * e];
            p = op4_add(p, turn_times_lanes4(t, 4, op4_all(v[0]), op4_all(v[1]), op4_all(v[2])));
        }
        double pull[4];
        op4_store(pull, p);
        set_rhs_row(s, body, i, row, k, pull);
    }
}

/* rhs_inertia_and_pulls_avx for a group's four bodies of one row numbering (they share a factor)
 * and one stiffness k: each body's sums exactly as alone, their four latency chains side by
 * side, the per-edge weights loaded once for all four */
static void rhs_inertia_and_pulls4_avx(arap_solver *const *solvers, op_body *const *bodies, double k)
{
    const op_graph *g = bodies[0]->graph;
    const arap_solver *s = solvers[0];
    const double *turn[GROUP_LANES];
    for (int m = 0; m < GROUP_LANES; ++m)
        turn[m] = solvers[m]->turn;
    for (int i = 0; i < s->n; ++i) {
        int row = s->row_of[i];
        if (row < 0)
            continue;
        const double *v = &s->rest_pull[3 * i];
        op_lanes4 v0 = op4_all(v[0]), v1 = op4_all(v[1]), v2 = op4_all(v[2]), p[GROUP_LANES];
        for (int m = 0; m < GROUP_LANES; ++m) {
            const double *t = &turn[m][12 * i];
            p[m] = turn_times_lanes4(t, 4, v0, v1, v2);
        }
        for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
            v = &s->edge_pull[3 * e];
            v0 = op4_all(v[0]), v1 = op4_all(v[1]), v2 = op4_all(v[2]);
            for (int m = 0; m < GROUP_LANES; ++m) {
                const double *t = &turn[m][12 * g->adjacency[e]];
                p[m] = op4_add(p[m], turn_times_lanes4(t, 4, v0, v1, v2));
            }
        }
        for (int m = 0; m < GROUP_LANES; ++m) {
            double pull[4];
            op4_store(pull, p[m]);
            set_rhs_row(solvers[m], bodies[m], i, row, k, pull);
        }
    }
}
OP_SIMD_AVX_END

OP_SIMD_AVX512_BEGIN
#define LANE op_lanes8
#define LANES_NAME(name) name##_lanes8
#define L(op) op8_##op
#include "arap_pull_lanes.h"

/* rhs_inertia_and_pulls4_avx with two members' pulls an AVX-512 register, from the group's turns
 * (arap_group: turns_into with strides 48 and 16): each lane's operations in the same order, so
 * the same bits, for half the loads, multiplies and adds a neighbour. */
static void rhs_inertia_and_pulls4_avx512(arap_solver *const *solvers, op_body *const *bodies, double k)
{
    const op_graph *g = bodies[0]->graph;
    const arap_solver *s = solvers[0];
    const double *turn = s->group->turn;
    for (int i = 0; i < s->n; ++i) {
        int row = s->row_of[i];
        if (row < 0)
            continue;
        const double *v = &s->rest_pull[3 * i];
        op_lanes8 v0 = op8_all(v[0]), v1 = op8_all(v[1]), v2 = op8_all(v[2]), p[2];
        const double *t = &turn[48 * (size_t)i];
        for (int half = 0; half < 2; ++half)
            p[half] = turn_times_lanes8(t + 8 * half, 16, v0, v1, v2);
        for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
            v = &s->edge_pull[3 * e];
            v0 = op8_all(v[0]), v1 = op8_all(v[1]), v2 = op8_all(v[2]);
            t = &turn[48 * (size_t)g->adjacency[e]];
            for (int half = 0; half < 2; ++half)
                p[half] = op8_add(p[half], turn_times_lanes8(t + 8 * half, 16, v0, v1, v2));
        }
        double pull[8 * 2];
        op8_store(pull, p[0]);
        op8_store(pull + 8, p[1]);
        for (int m = 0; m < GROUP_LANES; ++m)
            set_rhs_row(solvers[m], bodies[m], i, row, k, &pull[4 * m]);
    }
}
OP_SIMD_AVX_END
#endif

/* The global step's right-hand side (the file comment's system; free_count > 0) is formed in
 * three parts, in this order: global_turns, the inertia terms with the rotation pulls
 * (rhs_inertia_and_pulls), op_arap_terms_rhs. First R_j − P (turn), for every particle:
 * particle i's column c (three rows and a zero) at turn[particle_stride·i + column_stride·c];
 * a body's own s->turn has the strides 12 and 4, a group's (arap_group) 48 and 16. */
static void turns_into(const double *P, const double *rotation, int n, double *turn, size_t particle_stride,
                       size_t column_stride)
{
    /* R_j − P once per particle, not once per edge that reads it, formed before it is stored:
     * the stores might alias what the loop reads as far as the compiler knows, so stores
     * between the loads kept each load waiting on the store before it. */
#if OP_LANES2
    /* D = R − P two entries a register, (D0 D1) (D2 D3) (D4 D5) (D6 D7) (D8 0), the columns
     * (D0 D3 | D6 0), (D1 D4 | D7 0), (D2 D5 | D8 0) shuffled from them */
    op_lanes2 p01 = op2_load(P), p23 = op2_load(P + 2), p45 = op2_load(P + 4), p67 = op2_load(P + 6),
       p8 = op2_load_low(P + 8), zero = op2_zero();
    for (int i = 0; i < n; ++i) {
        const double *R = &rotation[9 * i];
        op_lanes2 d01 = op2_sub(op2_load(R), p01), d23 = op2_sub(op2_load(R + 2), p23);
        op_lanes2 d45 = op2_sub(op2_load(R + 4), p45), d67 = op2_sub(op2_load(R + 6), p67);
        op_lanes2 d8 = op2_sub_low(op2_load_low(R + 8), p8);
        double *t = &turn[particle_stride * (size_t)i];
        op2_store(t, op2_low_high(d01, d23));
        op2_store(t + 2, op2_low_high(d67, zero));
        op2_store(t + column_stride, op2_high_low(d01, d45));
        op2_store(t + column_stride + 2, op2_interleave_high(d67, zero));
        op2_store(t + 2 * column_stride, op2_low_high(d23, d45));
        op2_store(t + 2 * column_stride + 2, d8);
    }
#else
    for (int i = 0; i < n; ++i) {
        double difference[9];
        for (int k = 0; k < 9; ++k)
            difference[k] = rotation[9 * i + k] - P[k];
        double *t = &turn[particle_stride * (size_t)i];
        for (int c = 0; c < 3; ++c) {
            for (int r = 0; r < 3; ++r)
                t[column_stride * c + r] = difference[3 * r + c];
            t[column_stride * c + 3] = 0.0;
        }
    }
#endif
}

static void global_turns(arap_solver *s, const op_body *body)
{
    turns_into(body->placement_rotation, body->state.rotation, s->n, s->turn, 12, 4);
}

static void global_rhs(arap_solver *s, const op_body *body)
{
    global_turns(s, body);
#if OP_SIMD_AVX
    if (op_simd_use_avx)
        rhs_inertia_and_pulls_avx(s, body, body->stiffness);
    else
#endif
        rhs_inertia_and_pulls(s, body, body->stiffness);
    op_arap_terms_rhs(&s->terms, body, s->row_of, s->reference, s->turn, s->rhs);
}

/* The solved s->rhs with the floor held (floor_contact = solve, solvers/arap_floor.h) */
static int hold_floor(op_ctx *ctx, arap_solver *s, op_body *body, double h)
{
    return op_arap_floor_hold(ctx, &s->floor, body, s->factor, &s->work, s->row_of, s->free_count, s->reference, h,
                              s->rhs);
}

/* x = x_ref + u for the free particles, u the solved s->rhs */
static void global_place(const arap_solver *s, op_body *body)
{
    for (int i = 0; i < s->n; ++i) {
        int row = s->row_of[i];
        if (row >= 0)
            v3_add(&body->state.position[3 * i], &s->reference[3 * i], &s->rhs[3 * row]);
    }
}

int op_arap_global_step(op_ctx *ctx, void *self, op_body *body, double h)
{
    arap_solver *s = self;
    s->pcg.iterations = 0;
    if (s->free_count == 0)
        return OP_OK;
    global_rhs(s, body);
    if (s->pcg.on) {
        if (op_arap_pcg_solve(ctx, &s->pcg, body, s->row_of, s->free_count, s->reference, s->rhs,
                              sweep_team(s, body)) != OP_OK)
            return ctx->status;
    } else if (op_sparse_solve3(ctx, s->factor, &s->work, s->rhs) != OP_OK || hold_floor(ctx, s, body, h) != OP_OK)
        return ctx->status;
    global_place(s, body);
    return OP_OK;
}

/* The global steps of a group's four bodies: where they share one factor (and so one row
 * numbering), the four rotation pulls and the four solves side by side
 * (rhs_inertia_and_pulls4_avx, op_sparse_solve3_four), else one by one. */
static int global_group(op_ctx *ctx, arap_solver *const *solvers, op_body *const *bodies, double h, int *failed)
{
    int shared = solvers[0]->free_count > 0 && solvers[0]->factor; /* not with pcg */
    for (int m = 1; m < GROUP_LANES; ++m)
        shared &= solvers[m]->factor == solvers[0]->factor && solvers[m]->free_count > 0;
    if (!shared) {
        for (int m = 0; m < GROUP_LANES; ++m)
            if (op_arap_global_step(ctx, solvers[m], bodies[m], h) != OP_OK) {
                *failed = m;
                return ctx->status;
            }
        return OP_OK;
    }
    op_sparse_workspace *work[GROUP_LANES];
    double *rhs[GROUP_LANES];
#if OP_SIMD_AVX
    if (op_simd_use_avx512) {
        /* a group's bodies have no position constraints (arap_group_bodies), so no coupling
         * reads the members' own turns, which this path leaves unmade */
        for (int m = 0; m < GROUP_LANES; ++m)
            turns_into(bodies[m]->placement_rotation, bodies[m]->state.rotation, solvers[m]->n,
                       solvers[0]->group->turn + 8 * (m / 2) + 4 * (m % 2), 48, 16);
        rhs_inertia_and_pulls4_avx512(solvers, bodies, solvers[0]->stiffness);
        for (int m = 0; m < GROUP_LANES; ++m)
            op_arap_terms_rhs(&solvers[m]->terms, bodies[m], solvers[m]->row_of, solvers[m]->reference, solvers[m]->turn,
                              solvers[m]->rhs);
    } else if (op_simd_use_avx) {
        for (int m = 0; m < GROUP_LANES; ++m)
            global_turns(solvers[m], bodies[m]);
        rhs_inertia_and_pulls4_avx(solvers, bodies, solvers[0]->stiffness);
        for (int m = 0; m < GROUP_LANES; ++m)
            op_arap_terms_rhs(&solvers[m]->terms, bodies[m], solvers[m]->row_of, solvers[m]->reference, solvers[m]->turn,
                              solvers[m]->rhs);
    } else
#endif
        for (int m = 0; m < GROUP_LANES; ++m)
            global_rhs(solvers[m], bodies[m]);
    for (int m = 0; m < GROUP_LANES; ++m) {
        work[m] = &solvers[m]->work;
        rhs[m] = solvers[m]->rhs;
    }
    if (op_sparse_solve3_four(ctx, solvers[0]->factor, work, rhs, failed) != OP_OK)
        return ctx->status;
    for (int m = 0; m < GROUP_LANES; ++m)
        if (hold_floor(ctx, solvers[m], bodies[m], h) != OP_OK) {
            *failed = m;
            return ctx->status;
        }
    for (int m = 0; m < GROUP_LANES; ++m)
        global_place(solvers[m], bodies[m]);
    return OP_OK;
}

/* solver.h's begin_group: each member's h-dependent set-up as arap_begin_substep does it, then
 * their bases and records side by side (begin_group_avx) where the AVX paths run, else one by
 * one. */
static int arap_begin_group(op_ctx *ctx, void *const *solvers, op_body *const *bodies, int count, double h,
                            int *failed)
{
    arap_solver *const *members = (arap_solver *const *)solvers;
    for (int m = 0; m < count; ++m)
        if (h != members[m]->factored_h && prepare_global(ctx, members[m], bodies[m], h, NULL, 0) != OP_OK) {
            *failed = m;
            return ctx->status;
        }
#if OP_SIMD_AVX
    if (op_simd_use_avx) { /* a group is four twins of one graph and its rest data (arap_group_bodies) */
        begin_group_avx(members, bodies, members[0]->graph->density / (h * h));
        for (int m = 0; m < count; ++m)
            op_arap_terms_targets(&members[m]->terms, bodies[m]);
        return OP_OK;
    }
#endif
    for (int m = 0; m < count; ++m)
        if (arap_begin_substep(ctx, members[m], bodies[m], h) != OP_OK) {
            *failed = m;
            return ctx->status;
        }
    return OP_OK;
}

static int arap_iterate_group(op_ctx *ctx, void *const *solvers, op_body *const *bodies, int count, double h,
                              op_stage_times *times, int *failed)
{
    /* count is GROUP_LANES: arap_group_bodies makes no other */
    double start = op_now();
    local_group((arap_solver *const *)solvers, bodies);
    double middle = op_now();
    global_group(ctx, (arap_solver *const *)solvers, bodies, h, failed);
    times->local += middle - start;
    times->global += op_now() - middle;
    for (int m = 0; m < count; ++m)
        times->count[LINEAR_ITERATIONS] += ((arap_solver *const *)solvers)[m]->pcg.iterations;
    return ctx->status;
}

static int arap_iterate(op_ctx *ctx, void *self, op_body *body, double h, op_stage_times *times)
{
    double start = op_now();
    op_arap_local_step(self, body, h);
    double middle = op_now();
    int status = op_arap_global_step(ctx, self, body, h);
    times->local += middle - start;
    times->global += op_now() - middle;
    times->count[LINEAR_ITERATIONS] += ((arap_solver *)self)->pcg.iterations;
    return status;
}

int op_arap_linear_iterations(const void *solver)
{
    return ((const arap_solver *)solver)->pcg.iterations;
}

/* solver.h's solve_bytes: the factor's share (its bytes over its holders) and the workspace, or
 * the pcg matrix, its workspace and the warm start */
static size_t arap_solve_bytes(const void *self)
{
    const arap_solver *s = self;
    size_t bytes = 0;
    if (s->factor)
        bytes += op_sparse_factor_bytes(s->factor) / (size_t)op_sparse_factor_holders(s->factor) +
                 op_sparse_workspace_bytes(&s->work);
    return bytes + op_arap_pcg_bytes(&s->pcg, s->free_count);
}

static int arap_energy(op_ctx *ctx, void *self, const op_body *body, double h, double *energy)
{
    return op_arap_energy_of(ctx, &((arap_solver *)self)->energy, body, h, energy);
}

const op_solver_type op_solver_arap = {
    .name = "arap",
    .summary = "local/global ARAP on oriented particles: polar rotations, prefactored positions",
    .source = "Choi & Lee 2017",
    .options = arap_options,
    .counters = arap_counters,
    .create = arap_create,
    .begin_substep = arap_begin_substep,
    .iterate = arap_iterate,
    .destroy = arap_destroy,
    /* begin_substep only recomputes per-sub-step products from the body (the factor is kept
     * while h is unchanged), so it also brings R_j Ā_j up to date after extrapolated rotations */
    .resync = arap_begin_substep,
    .group = arap_group_bodies,
    .iterate_group = arap_iterate_group,
    .begin_group = arap_begin_group,
    .energy = arap_energy,
    .holds_floor = 1,
    .solve_bytes = arap_solve_bytes,
};
