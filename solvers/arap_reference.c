/* arap-reference: the paper's local/global solver (Choi & Lee 2017, Sec. 3) in plain scalar C,
 * to read beside the paper and docs/method.md ("Local step", "Global step"). One body, one
 * particle at a time: no vector lanes, no groups of bodies, no state shared between bodies, no
 * cached products. The fast variant `arap` (solvers/arap.c) is a layer over the same method and
 * is tested against this file (tests/test_arap_reference.c): the stored states of Fig. 1, 4, 5,
 * 6 and the 52 models are bit for bit equal at one and two threads.
 *
 * One iteration for sub-steps of length h, on the oriented-particle graph (x̄_i, Ā_i, v_i, m_i):
 *
 * Local step (positions fixed), local_matrix and local_step:
 *   R_i = argmax_{R ∈ SO(3)} tr(Rᵀ C_i), by the warm-started polar rotation of core/kernels/polar.h,
 *   C_i = ρ/h² Y_i Ā_i + k Σ_j [R_j (Ā_j + Ā_i) + v_j d_ij d̄_ijᵀ] + C^p_i + C^d_i   (Eq. 5, 11, 13, 15)
 * in Gauss–Seidel order (each R_j at its newest value, colour by colour: op_arap_colour_sweep) or
 * Jacobi order (every C_i from the previous iteration's rotations).
 *
 * Global step (rotations fixed), global_step: the free positions solve
 *   (m_i/h²) x_i + k Σ_j (v_i + v_j)(x_i − x_j) + Σ_c w w_i Σ_l w_l x_l
 *     = (m_i/h²) y_i + k Σ_j (v_j R_i + v_i R_j)(x̄_i − x̄_j) + Σ_c w w_i (v_c − Σ_l w_l R_l (v̄ − x̄_l))
 * (Eq. 7, 12, 14): one n×n matrix for x, y and z, factored with CHOLMOD once per h.
 *
 * Written as docs/method.md's "Displacement form": unknowns relative to the placed rest state,
 * u = x − x_ref with x_ref = P x̄ + t, and rotations as R − P, so that a body at rest stays exactly
 * at rest. The constraint terms C^p_i, C^d_i and their right-hand side, the colour order and the
 * matrix come from solvers/arap_terms.c, which arap calls too.
 *
 * Options: rotations = gs | jacobi; global = cholesky | pcg with global_tolerance, the global step
 * by conjugate gradients as arap's (solvers/arap_pcg.h), giving arap's bits. Not supported: arap's sweep_threads (a speed option; the
 * option is refused by name) and groups of bodies (the world iterates every body alone). */
#include "arap_reference.h"

#include <stdlib.h>
#include <string.h>

#include "arap_energy.h"
#include "arap_floor.h"
#include "arap_pcg.h"
#include "arap_terms.h"
#include "base/math3.h"
#include "base/timer.h"
#include "kernels/polar.h"
#include "kernels/sparse.h"
#include "opsim/solver.h"

typedef struct reference_solver {
    int jacobi;                /* rotations = jacobi */
    int n, free_count;
    int *row_of;               /* [n] row in the global system, −1 where the position is pinned */
    double factored_h;         /* h of the factor */
    op_sparse_factor *factor;  /* the global matrix's */
    op_sparse_workspace work;
    op_arap_pcg pcg;           /* global = pcg: the matrix solved by CG instead (arap_pcg.h) */
    op_arap_terms terms;       /* C^p, C^d, pinned couplings (solvers/arap_terms.h) */
    op_arap_floor floor;       /* floor_contact = solve: the floor held in the global step */
    op_arap_sweep sweep;       /* the Gauss–Seidel order */
    /* fixed for the run */
    double *reference;         /* [n][3] x_ref = P x̄ + t */
    double *spread;            /* [n][9] S_i = Σ_j v_j d̄_ij d̄_ijᵀ, d̄_ij = x̄_j − x̄_i */
    double *rest_pull;         /* [n][3] Σ_j v_j (x̄_i − x̄_j) */
    /* per sub-step */
    double *base;              /* [n][9] ρ/h² Y_i Ā_i + k P S_i */
    double *inertia;           /* [n] m_i / h² */
    /* per iteration */
    double *quaternion;        /* [n][4] R_i as a unit quaternion: its next polar rotation's start */
    double *displacement;      /* [n][3] u = x − x_ref at the local step's start */
    double *previous;          /* [n][9] Jacobi: the rotations of the previous iteration */
    double *turn;              /* [n][12] R_i − P by columns, padded to four (op_arap_turn_mul_v) */
    double *rhs;               /* [free_count][3] */
    op_arap_energy *energy;    /* the energy hook's edge data, made on its first call (arap_energy.h) */
} reference_solver;

static const op_solver_option reference_options[] = {
    { "rotations", "gs", "local-step order: gs (Gauss-Seidel, the paper's default) or jacobi" },
    OP_ARAP_PCG_OPTIONS,
    { NULL, NULL, NULL },
};

static const op_solver_counter reference_counters[] = {
    { "linear_iterations", OP_LINEAR_ITERATIONS_DESCRIPTION },
    { NULL, NULL },
};

static void reference_destroy(void *self)
{
    reference_solver *s = self;
    if (!s)
        return;
    op_sparse_factor_free(&s->factor);
    op_sparse_workspace_free(&s->work);
    op_arap_pcg_free(&s->pcg);
    op_arap_terms_free(&s->terms);
    op_arap_floor_free(&s->floor);
    op_arap_sweep_free(&s->sweep);
    free(s->row_of);
    free(s->reference);
    free(s->spread);
    free(s->rest_pull);
    free(s->base);
    free(s->inertia);
    free(s->quaternion);
    free(s->displacement);
    free(s->previous);
    free(s->turn);
    free(s->rhs);
    op_arap_energy_release(&s->energy);
    free(s);
}

/* x_ref, S_i and Σ_j v_j (x̄_i − x̄_j): the rest state's sums over each particle's edges */
static void rest_sums(reference_solver *s, const op_body *body)
{
    op_arap_rest_sums(body, s->reference, s->spread, s->rest_pull);
}

/* m_i / h² and the global matrix's factor (with global = pcg, the matrix) for sub-steps of
 * length h */
static int factor_for(op_ctx *ctx, reference_solver *s, const op_body *body, double h)
{
    for (int i = 0; i < s->n; ++i)
        s->inertia[i] = body->graph->mass[i] * (1.0 / (h * h));
    if (s->pcg.on) {
        s->factored_h = h;
        return op_arap_pcg_prepare(ctx, &s->pcg, body, s->row_of, s->free_count, h);
    }
    op_sparse_factor_free(&s->factor);
    if (op_arap_factor_matrix(ctx, body, s->row_of, s->free_count, h, &s->factor) != OP_OK)
        return ctx->status;
    s->factored_h = h;
    return s->factor ? op_sparse_workspace_reserve(ctx, &s->work, s->factor) : OP_OK;
}

static int reference_create(op_ctx *ctx, const op_solver_settings *settings, op_body *body, double h,
                            void *const *twins, int twin_count, void **out)
{
    (void)twins, (void)twin_count;
    *out = NULL;
    reference_solver *s = op_calloc(ctx, 1, sizeof *s);
    if (!s)
        return ctx->status;
    int n = body->graph->particle_count;
    s->n = n;
    if (op_solver_setting_choice(ctx, settings, "rotations", "gs|jacobi", &s->jacobi) != OP_OK ||
        op_arap_pcg_settings(ctx, settings, body, &s->pcg) != OP_OK) {
        reference_destroy(s);
        return ctx->status;
    }
    s->row_of = op_calloc(ctx, (size_t)n + 1, sizeof(int));
    s->reference = op_calloc(ctx, 3 * (size_t)n + 1, sizeof(double));
    s->spread = op_calloc(ctx, 9 * (size_t)n + 1, sizeof(double));
    s->rest_pull = op_calloc(ctx, 3 * (size_t)n + 1, sizeof(double));
    s->base = op_calloc(ctx, 9 * (size_t)n + 1, sizeof(double));
    s->inertia = op_calloc(ctx, (size_t)n + 1, sizeof(double));
    s->quaternion = op_calloc(ctx, 4 * (size_t)n + 1, sizeof(double));
    s->displacement = op_calloc(ctx, 3 * (size_t)n + 1, sizeof(double));
    s->previous = op_calloc(ctx, 9 * (size_t)n + 1, sizeof(double));
    s->turn = op_calloc(ctx, 12 * (size_t)n + 1, sizeof(double));
    s->rhs = op_calloc(ctx, 3 * (size_t)n + 1, sizeof(double));
    if (ctx->status != OP_OK) {
        reference_destroy(s);
        return ctx->status;
    }
    for (int i = 0; i < n; ++i) {
        s->row_of[i] = body->position_pinned[i] ? -1 : s->free_count++;
        op_rotation_quaternion(&body->state.rotation[9 * i], &s->quaternion[4 * i]);
    }
    rest_sums(s, body);
    if (op_arap_terms_create(ctx, &s->terms, body, s->row_of) != OP_OK ||
        op_arap_colour_sweep(ctx, &s->terms, body, &s->sweep) != OP_OK || factor_for(ctx, s, body, h) != OP_OK) {
        reference_destroy(s);
        return ctx->status;
    }
    *out = s;
    return OP_OK;
}

/* The sub-step's start: the factor if h changed, the constraint targets, and each particle's
 * base ρ/h² Y_i Ā_i + k P S_i (the part of C_i that stays fixed through the iterations). */
static int reference_begin_substep(op_ctx *ctx, void *self, op_body *body, double h)
{
    reference_solver *s = self;
    if (h != s->factored_h && factor_for(ctx, s, body, h) != OP_OK)
        return ctx->status;
    const op_graph *g = body->graph;
    const double *P = body->placement_rotation;
    double inertia = g->density / (h * h), k = body->stiffness;
    for (int i = 0; i < s->n; ++i) {
        const double *Y = &body->inertial_rotation[9 * i], *A = &g->rest_moment[9 * i], *S = &s->spread[9 * i];
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
                s->base[9 * i + 3 * r + c] =
                    (Y[3 * r] * A[c] + Y[3 * r + 1] * A[3 + c] + Y[3 * r + 2] * A[6 + c]) * inertia +
                    (P[3 * r] * S[c] + P[3 * r + 1] * S[3 + c] + P[3 * r + 2] * S[6 + c]) * k;
    }
    op_arap_terms_targets(&s->terms, body);
    return OP_OK;
}

/* C_i of Eq. 5 + 11 + 13 + 15, with `rotations` the R_j the sweep reads:
 *   C_i = base_i + k ((Σ_j R_j Ā_j + (Σ_j R_j) Ā_i) + Σ_j (u_j − u_i) w_ijᵀ) + C^p_i + C^d_i,
 * where k Σ_j R_j (Ā_j + Ā_i) is summed as k (Σ_j R_j Ā_j + (Σ_j R_j) Ā_i) and
 * k Σ_j v_j d_ij d̄_ijᵀ, in displacement form, as k P S_i (in base_i) plus k Σ_j (u_j − u_i) w_ijᵀ
 * with w_ij = v_j (x̄_j − x̄_i). */
static void local_matrix(const reference_solver *s, const op_body *body, const double *rotations, int i,
                         double C[9])
{
    op_arap_local_matrix(&s->terms, body, s->base, s->displacement, rotations, i, C);
}

/* Every free R_i from its C_i, in colour order */
static void local_step(reference_solver *s, op_body *body)
{
    double *rotation = body->state.rotation;
    const double *reads = rotation; /* Gauss–Seidel: the newest rotations */
    for (int i = 0; i < s->n; ++i)
        v3_sub(&s->displacement[3 * i], &body->state.position[3 * i], &s->reference[3 * i]);
    if (s->jacobi) {
        memcpy(s->previous, rotation, 9 * (size_t)s->n * sizeof(double));
        reads = s->previous;
    }
    for (int p = 0; p < s->sweep.count; ++p) {
        int i = s->sweep.order[p];
        double C[9];
        local_matrix(s, body, reads, i, C);
        op_polar_rotation_warm(C, &s->quaternion[4 * i], &rotation[9 * i]);
    }
}

/* The global step: the right-hand side of Eq. 7 + 12 + 14 less its value at the placed rest
 * state, b_i = (m_i/h²)(y_i − x_ref_i) + k [(R_i − P) Σ_j v_j (x̄_i − x̄_j) + Σ_j (R_j − P) v_i (x̄_i − x̄_j)]
 * + the pinned neighbours' and constraints' terms, solved with the factor for u (with global =
 * pcg, by conjugate gradients from the iterate), then, with floor_contact = solve, u_y held
 * above the floor (solvers/arap_floor.h); x = x_ref + u. */
static int global_step(op_ctx *ctx, reference_solver *s, op_body *body, double h)
{
    s->pcg.iterations = 0;
    if (s->free_count == 0)
        return OP_OK;
    const op_graph *g = body->graph;
    const double *P = body->placement_rotation, *rotation = body->state.rotation;
    for (int i = 0; i < s->n; ++i)
        for (int c = 0; c < 3; ++c) {
            for (int r = 0; r < 3; ++r)
                s->turn[12 * i + 4 * c + r] = rotation[9 * i + 3 * r + c] - P[3 * r + c];
            s->turn[12 * i + 4 * c + 3] = 0.0;
        }
    for (int i = 0; i < s->n; ++i) {
        int row = s->row_of[i];
        if (row < 0)
            continue;
        double pull[3], term[3], pull_e[3], rest_edge[3];
        op_arap_turn_mul_v(pull, &s->turn[12 * i], &s->rest_pull[3 * i]);
        for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
            int j = g->adjacency[e];
            v3_sub(rest_edge, &g->rest_position[3 * j], &g->rest_position[3 * i]);
            v3_scale(pull_e, rest_edge, -g->volume[i]);
            op_arap_turn_mul_v(term, &s->turn[12 * j], pull_e);
            v3_add(pull, pull, term);
        }
        const double *y = &body->inertial_position[3 * i], *x_ref = &s->reference[3 * i];
        double b[3];
        for (int r = 0; r < 3; ++r)
            b[r] = (y[r] - x_ref[r]) * s->inertia[i];
        v3_axpy(b, body->stiffness, pull);
        v3_copy(&s->rhs[3 * row], b);
    }
    op_arap_terms_rhs(&s->terms, body, s->row_of, s->reference, s->turn, s->rhs);
    if (s->pcg.on) {
        if (op_arap_pcg_solve(ctx, &s->pcg, body, s->row_of, s->free_count, s->reference, s->rhs, 0) != OP_OK)
            return ctx->status;
    } else if (op_sparse_solve3(ctx, s->factor, &s->work, s->rhs) != OP_OK ||
        op_arap_floor_hold(ctx, &s->floor, body, s->factor, &s->work, s->row_of, s->free_count, s->reference, h,
                           s->rhs) != OP_OK)
        return ctx->status;
    for (int i = 0; i < s->n; ++i)
        if (s->row_of[i] >= 0)
            v3_add(&body->state.position[3 * i], &s->reference[3 * i], &s->rhs[3 * s->row_of[i]]);
    return OP_OK;
}

static int reference_iterate(op_ctx *ctx, void *self, op_body *body, double h, op_stage_times *times)
{
    double start = op_now();
    local_step(self, body);
    double middle = op_now();
    int status = global_step(ctx, self, body, h);
    times->local += middle - start;
    times->global += op_now() - middle;
    times->count[0] += ((reference_solver *)self)->pcg.iterations; /* linear_iterations */
    return status;
}

/* Nothing is cached from the rotations across iterations, so a world that changes them between
 * iterations (Chebyshev, Anderson) needs no call but the sub-step's own. */
static int reference_resync(op_ctx *ctx, void *self, op_body *body, double h)
{
    (void)ctx, (void)self, (void)body, (void)h;
    return OP_OK;
}

/* solver.h's solve_bytes: the factor and its workspace, or the pcg matrix and CG workspace */
static size_t reference_solve_bytes(const void *self)
{
    const reference_solver *s = self;
    size_t bytes = op_arap_pcg_bytes(&s->pcg, s->free_count);
    if (s->factor)
        bytes += op_sparse_factor_bytes(s->factor) + op_sparse_workspace_bytes(&s->work);
    return bytes;
}

static int reference_energy(op_ctx *ctx, void *self, const op_body *body, double h, double *energy)
{
    return op_arap_energy_of(ctx, &((reference_solver *)self)->energy, body, h, energy);
}

const op_solver_type op_solver_arap_reference = {
    .name = "arap-reference",
    .summary = "the paper's local/global ARAP in plain scalar C, one particle at a time (arap's reference)",
    .source = "Choi & Lee 2017",
    .options = reference_options,
    .counters = reference_counters,
    .create = reference_create,
    .begin_substep = reference_begin_substep,
    .iterate = reference_iterate,
    .destroy = reference_destroy,
    .resync = reference_resync,
    .energy = reference_energy,
    .holds_floor = 1,
    .solve_bytes = reference_solve_bytes,
};
