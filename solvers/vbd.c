/* vbd: Vertex Block Descent (Chen, Macklin et al. 2024, ACM TOG 43(4)) on the oriented-particle
 * graph: Gauss–Seidel block coordinate descent on the same energy `arap` minimises, Eq. 4 with
 * its inertial and constraint terms (core/sim/energy.h), one particle's block (x_i, R_i) at a time.
 *
 * The block of particle i, everything else held:
 *   R_i ← polar(C_i), C_i of Eq. 5 + 11 + 13 + 15 from the current positions and the newest
 *     rotations (arap's local step for one particle: the exact minimiser over SO(3) of E in R_i,
 *     the direction term excepted, which the local step linearises);
 *   x_i ← x_i − H_i⁻¹ ∇_i E, one 3x3 Newton step. E is quadratic in x_i with
 *     H_i = (m_i/h² + k Σ_j (v_i + v_j) + Σ_e w_e w_o²) I, so the step is the exact minimiser:
 *     x_i = (m_i/h² y_i + k Σ_j [v_j (x_j − R_i d̄_ij) + v_i (x_j − R_j d̄_ij)]
 *            + Σ_e w_e w_o (v_c − v + w_o x_i)) / H_i,   d̄_ij = x̄_j − x̄_i,
 *     over the position constraints' entries e (constraint c, own slot o) of particle i. Both
 *     updates are exact block minimisers, so E never rises over a sweep (tests/test_vbd.c), which
 *     is the paper's descent property; its line search is not needed.
 * Written in docs/method.md's displacement form (u = x − x_ref, R − P) like arap-reference, so a
 * body at rest stays exactly at rest.
 *
 * Order: particles colour by colour (op_arap_colour_sweep over every particle with a free
 * position or rotation), by index within a colour. Option sweep_threads = team shares each colour
 * of a body with OpenMP's threads when the body is iterated outside a team (the paper's
 * parallelism; the same bits as one thread); the default, auto, does so when the world has timed
 * the team the faster (arap's reason, solvers/arap.c: on a loaded machine a barrier per colour
 * costs more than it saves, on a quiet one it gains).
 *
 * Initial guess (the paper's Sec. 3.6 choices), option initial_guess, applied to the free
 * positions at the start of each sub-step (the world has set x ← y, the inertial target):
 *   inertia    x = y = x_t + h v_t + h² g
 *   previous   x = x_t
 *   velocity   x = x_t + h v_t
 *   adaptive   x = x_t + h v_t + h² g ã_i, ã_i = clamp((a_i · g)/|g|², 0, 1), a_i = (v_t − v_{t−1})/h
 *              the particle's last acceleration (the paper's default). The solver knows g only
 *              through y: h² g = y − x_t − h v_t. On the first sub-step a_i is taken as g (the
 *              inertia guess). Rotations start at the world's rotation_start guess.
 * Chebyshev (the paper's Sec. 3.8) is the world's common chebyshev option (solvers/solver.h),
 * which extrapolates positions (and rotations with chebyshev_rotations = on) after each iteration;
 * the paper's ρ is chebyshev_rho.
 *
 * The translation block (ours, not the paper's): after each sweep, when no position is pinned,
 * every position moves by the one translation t that minimises E with everything else held. The
 * elastic term is translation invariant, so E(x + t) is quadratic in t with the scalar Hessian
 *   H_t = M/h² + Σ_c w_c s_c²,   s_c = Σ_l w_l (constraint c's skinning weights),
 * and t = (Σ_i m_i/h² (y_i − x_i) + Σ_c w_c s_c (v_c − v)) / H_t over the position constraints c
 * (direction constraints read rotations only). It is one more exact block of the descent, so E
 * still never rises; without constraints it sets Σ m x = Σ m y, implicit Euler's balance of linear
 * momentum, which the particle blocks alone meet only when converged (they balance each particle
 * against its neighbours' current positions). With a pinned position no translation of the free
 * particles leaves the elastic term alone, and the step is skipped (docs/method.md, "VBD").
 *
 * Pins: a pinned position or rotation is not a variable. Stage times: the whole sweep as `local`
 * (rotation and position updates interleave per particle; `global` stays 0). Nothing here writes files or computes reported metrics. */
#include "vbd.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "arap_terms.h"
#include "base/math3.h"
#include "base/timer.h"
#include "kernels/polar.h"

enum { GUESS_INERTIA, GUESS_PREVIOUS, GUESS_VELOCITY, GUESS_ADAPTIVE };

/* sweep_threads as arap's (solvers/arap.c): one thread, a team, or the world's timed choice */
enum { VBD_SWEEP_ONE = 0, VBD_SWEEP_TEAM = 1, VBD_SWEEP_AUTO = 2 };

typedef struct vbd_solver {
    int guess;
    int sweep_threads;         /* VBD_SWEEP_ONE, _TEAM or _AUTO */
    int n;
    op_arap_terms terms;       /* C^p, C^d by particle (solvers/arap_terms.h) */
    op_arap_sweep sweep;       /* the colour order over every particle with a free block */
    int *row_of;               /* [n] op_arap_terms_create's rows (−1: pinned position) */
    unsigned char *both_pinned; /* [n] position and rotation pinned: no block */
    int translates;            /* no position pinned: the translation block runs (file comment) */
    double *reference;         /* [n][3] x_ref = P x̄ + t */
    double *spread;            /* [n][9] S_i = Σ_j v_j d̄_ij d̄_ijᵀ */
    double *base;              /* [n][9] ρ/h² Y_i Ā_i + k P S_i, per sub-step */
    double *quaternion;        /* [n][4] R_i's warm start */
    double *displacement;      /* [n][3] u = x − x_ref, kept current through the sweep */
    double *last_velocity;     /* [n][3] v_{t−1} for the adaptive guess */
    int have_last_velocity;
} vbd_solver;

static const op_solver_option vbd_options[] = {
    { "sweep_threads", "auto",
      ("a body iterated outside a thread team (alone in its world): one thread, team (OpenMP's threads, each "
       "colour shared, a barrier between colours; the same bits), or auto (the world times both)") },
    { "initial_guess", "adaptive", "each sub-step's starting positions: adaptive (the paper's), inertia, previous "
                                   "or velocity" },
    { NULL, NULL, NULL },
};

static void vbd_destroy(void *self)
{
    vbd_solver *s = self;
    if (!s)
        return;
    op_arap_terms_free(&s->terms);
    op_arap_sweep_free(&s->sweep);
    free(s->row_of);
    free(s->both_pinned);
    free(s->reference);
    free(s->spread);
    free(s->base);
    free(s->quaternion);
    free(s->displacement);
    free(s->last_velocity);
    free(s);
}

static void rest_sums(vbd_solver *s, const op_body *body)
{
    op_arap_rest_sums(body, s->reference, s->spread, NULL);
}

/* The colour order over every particle with a free position or rotation: the arap sweep of a
 * view of the body in which only particles pinned in both count as rotation-pinned. */
static int block_sweep(op_ctx *ctx, vbd_solver *s, const op_body *body)
{
    for (int i = 0; i < s->n; ++i)
        s->both_pinned[i] = body->position_pinned[i] && body->rotation_pinned[i];
    op_body view = *body;
    view.rotation_pinned = s->both_pinned;
    return op_arap_colour_sweep(ctx, &s->terms, &view, &s->sweep);
}

static int vbd_create(op_ctx *ctx, const op_solver_settings *settings, op_body *body, double h, void *const *twins,
                      int twin_count, void **out)
{
    (void)twins, (void)twin_count, (void)h;
    *out = NULL;
    vbd_solver *s = op_calloc(ctx, 1, sizeof *s);
    if (!s)
        return ctx->status;
    int n = body->graph->particle_count;
    s->n = n;
    if (op_solver_setting_choice(ctx, settings, "initial_guess", "inertia|previous|velocity|adaptive", &s->guess) !=
            OP_OK ||
        op_solver_setting_choice(ctx, settings, "sweep_threads", "one|team|auto", &s->sweep_threads) != OP_OK) {
        vbd_destroy(s);
        return ctx->status;
    }
    s->row_of = op_calloc(ctx, (size_t)n + 1, sizeof(int));
    s->both_pinned = op_calloc(ctx, (size_t)n + 1, 1);
    s->reference = op_calloc(ctx, 3 * (size_t)n + 1, sizeof(double));
    s->spread = op_calloc(ctx, 9 * (size_t)n + 1, sizeof(double));
    s->base = op_calloc(ctx, 9 * (size_t)n + 1, sizeof(double));
    s->quaternion = op_calloc(ctx, 4 * (size_t)n + 1, sizeof(double));
    s->displacement = op_calloc(ctx, 3 * (size_t)n + 1, sizeof(double));
    s->last_velocity = op_calloc(ctx, 3 * (size_t)n + 1, sizeof(double));
    if (ctx->status != OP_OK) {
        vbd_destroy(s);
        return ctx->status;
    }
    int free_count = 0;
    s->translates = 1;
    for (int i = 0; i < n; ++i) {
        s->translates &= !body->position_pinned[i];
        s->row_of[i] = body->position_pinned[i] ? -1 : free_count++;
        op_rotation_quaternion(&body->state.rotation[9 * i], &s->quaternion[4 * i]);
    }
    rest_sums(s, body);
    if (op_arap_terms_create(ctx, &s->terms, body, s->row_of) != OP_OK || block_sweep(ctx, s, body) != OP_OK) {
        vbd_destroy(s);
        return ctx->status;
    }
    *out = s;
    return OP_OK;
}

/* The free positions' starting values (file comment, "Initial guess"). */
static void initial_guess(vbd_solver *s, op_body *body, double h)
{
    const double *x0 = body->start_position, *v = body->state.velocity, *y = body->inertial_position;
    double *x = body->state.position;
    for (int i = 0; i < s->n; ++i) {
        if (body->position_pinned[i])
            continue;
        double drift[3], pull[3];
        v3_scale(drift, &v[3 * i], h);
        v3_sub(pull, &y[3 * i], &x0[3 * i]);
        v3_sub(pull, pull, drift); /* h² g */
        double share = 1.0;
        if (s->guess == GUESS_PREVIOUS || s->guess == GUESS_VELOCITY)
            share = 0.0;
        else if (s->guess == GUESS_ADAPTIVE && s->have_last_velocity) {
            double g2 = v3_dot(pull, pull);
            double a[3];
            v3_sub(a, &v[3 * i], &s->last_velocity[3 * i]);
            /* (a·g)/|g|² with a = Δv/h and g = pull/h²: (Δv·pull) h / |pull|² */
            share = g2 > 0.0 ? v3_dot(a, pull) * h / g2 : 0.0;
            share = share < 0.0 ? 0.0 : share > 1.0 ? 1.0 : share;
        }
        if (s->guess == GUESS_INERTIA)
            continue; /* x = y already, bit for bit */
        v3_copy(&x[3 * i], &x0[3 * i]);
        if (s->guess != GUESS_PREVIOUS)
            v3_add(&x[3 * i], &x[3 * i], drift);
        v3_axpy(&x[3 * i], share, pull);
    }
    memcpy(s->last_velocity, v, 3 * (size_t)s->n * sizeof(double));
    s->have_last_velocity = 1;
}

static int vbd_begin_substep(op_ctx *ctx, void *self, op_body *body, double h)
{
    (void)ctx;
    vbd_solver *s = self;
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
    initial_guess(s, body, h);
    return OP_OK;
}

/* C_i of Eq. 5 + 11 + 13 + 15 from the newest rotations and displacements (arap-reference's
 * local matrix, docs/method.md "Local step"). */
static void rotation_matrix(const vbd_solver *s, const op_body *body, int i, double C[9])
{
    op_arap_local_matrix(&s->terms, body, s->base, s->displacement, body->state.rotation, i, C);
}

/* u_i ← the exact minimiser of E in x_i (file comment), in displacement form:
 *   H u_i = m_i/h² (y_i − x_ref_i) + k Σ_j [v_j (u_j − (R_i − P) d̄_ij) + v_i (u_j − (R_j − P) d̄_ij)]
 *           + Σ_e w_e w_o (v_c − v + w_o u_i)   (the x_ref_i shares of both sides cancel) */
static void position_step(vbd_solver *s, op_body *body, double h, int i)
{
    const op_graph *g = body->graph;
    const double *P = body->placement_rotation, *R = body->state.rotation;
    double *u = s->displacement;
    double k = body->stiffness, inertia = g->mass[i] / (h * h);
    double b[3], edges[3] = { 0, 0, 0 }, weight = 0.0;
    v3_sub(b, &body->inertial_position[3 * i], &s->reference[3 * i]);
    v3_scale(b, b, inertia);
    double turn_i[9];
    m3_sub(turn_i, &R[9 * i], P);
    for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
        int j = g->adjacency[e];
        double d[3], t[3], turn_j[9], term[3];
        v3_sub(d, &g->rest_position[3 * j], &g->rest_position[3 * i]);
        m3_mul_v(t, turn_i, d);
        v3_sub(term, &u[3 * j], t);
        v3_axpy(edges, g->volume[j], term);
        m3_sub(turn_j, &R[9 * j], P);
        m3_mul_v(t, turn_j, d);
        v3_sub(term, &u[3 * j], t);
        v3_axpy(edges, g->volume[i], term);
        weight += g->volume[i] + g->volume[j];
    }
    v3_axpy(b, k, edges);
    double hessian = inertia + k * weight;
    for (int q = s->terms.constraint_start[i]; q < s->terms.constraint_start[i + 1]; ++q) {
        int entry = s->terms.constraint_entry[q];
        const op_constraint *con = &body->constraints[entry / OP_SKIN_MAX_K];
        if (con->kind != OP_CONSTRAINT_POSITION)
            continue;
        double w = con->weight, wo = con->influence[entry % OP_SKIN_MAX_K], v[3], pull[3];
        op_constraint_skinned_point(body, con, v);
        v3_sub(pull, con->target, v);
        v3_axpy(pull, wo, &u[3 * i]);
        v3_axpy(b, w * wo, pull);
        hessian += w * wo * wo;
    }
    v3_scale(&u[3 * i], b, 1.0 / hessian);
    v3_add(&body->state.position[3 * i], &s->reference[3 * i], &u[3 * i]);
}

/* Particle i's block: R_i, then x_i (file comment). */
static void update_block(vbd_solver *s, op_body *body, double h, int i)
{
    if (!body->rotation_pinned[i]) {
        double C[9];
        rotation_matrix(s, body, i, C);
        op_polar_rotation_warm(C, &s->quaternion[4 * i], &body->state.rotation[9 * i]);
    }
    if (!body->position_pinned[i])
        position_step(s, body, h, i);
}

/* Every position moves by the translation that minimises E (file comment, "The translation
 * block"); the sums run in particle and constraint order, so the bits do not depend on threads. */
static void translation_step(const vbd_solver *s, op_body *body, double h)
{
    const op_graph *g = body->graph;
    const double *y = body->inertial_position;
    double *x = body->state.position;
    double inertia = 1.0 / (h * h), b[3] = { 0, 0, 0 }, hessian = 0.0, gap[3];
    for (int i = 0; i < s->n; ++i) {
        v3_sub(gap, &y[3 * i], &x[3 * i]);
        v3_axpy(b, g->mass[i] * inertia, gap);
        hessian += g->mass[i] * inertia;
    }
    for (int c = 0; c < body->constraint_count; ++c) {
        const op_constraint *con = &body->constraints[c];
        if (con->kind != OP_CONSTRAINT_POSITION)
            continue;
        double share = 0.0, v[3];
        for (int l = 0; l < con->influence_count; ++l)
            share += con->influence[l];
        op_constraint_skinned_point(body, con, v);
        v3_sub(gap, con->target, v);
        v3_axpy(b, con->weight * share, gap);
        hessian += con->weight * share * share;
    }
    v3_scale(b, b, 1.0 / hessian);
    for (int i = 0; i < s->n; ++i)
        v3_add(&x[3 * i], &x[3 * i], b);
}

/* The sweep, colour by colour. The blocks of one colour read and write none of each other's
 * values (op_arap_colour_sweep colours every edge and every constraint's particles apart), so a
 * team sharing each colour gives the bits of one thread. */
static int vbd_iterate(op_ctx *ctx, void *self, op_body *body, double h, op_stage_times *times)
{
    (void)ctx;
    vbd_solver *s = self;
    double start = op_now();
    for (int i = 0; i < s->n; ++i)
        v3_sub(&s->displacement[3 * i], &body->state.position[3 * i], &s->reference[3 * i]);
    const op_arap_sweep *sweep = &s->sweep;
    int team = s->sweep_threads == VBD_SWEEP_TEAM || (s->sweep_threads == VBD_SWEEP_AUTO && body->sweep_team);
    if (team && !omp_in_parallel() && omp_get_max_threads() > 1) {
#pragma omp parallel
        for (int c = 0; c < sweep->colours; ++c) {
#pragma omp for schedule(static)
            for (int p = sweep->colour_start[c]; p < sweep->colour_start[c + 1]; ++p)
                update_block(s, body, h, sweep->order[p]);
        }
    } else {
        for (int p = 0; p < sweep->count; ++p)
            update_block(s, body, h, sweep->order[p]);
    }
    if (s->translates)
        translation_step(s, body, h);
    times->local += op_now() - start;
    return OP_OK;
}

/* Nothing derived from R is kept across iterations (the warm-start quaternion is only a start). */
static int vbd_resync(op_ctx *ctx, void *self, op_body *body, double h)
{
    (void)ctx, (void)self, (void)body, (void)h;
    return OP_OK;
}

const op_solver_type op_solver_vbd = {
    .name = "vbd",
    .summary = "vertex block descent on arap's energy: per particle a polar rotation and an exact 3x3 Newton step",
    .source = "Chen et al. 2024",
    .options = vbd_options,
    .create = vbd_create,
    .begin_substep = vbd_begin_substep,
    .iterate = vbd_iterate,
    .destroy = vbd_destroy,
    .resync = vbd_resync,
};
