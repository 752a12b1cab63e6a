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
 * changes (the constraint set is fixed for a run). Pinned positions are eliminated.
 *
 * Both steps are written relative to the body's placed rest state x_ref = P x̄ + t, R_ref = P:
 * the unknown is u = x − x_ref and every right-hand side is a sum of differences (R − P),
 * (y − x_ref), (u_j − u_i). A body at rest therefore has exactly symmetric C_i, exactly zero
 * right-hand sides, and stays exactly at rest; small deformations lose no digits to
 * cancellation against the rest positions.
 *
 * Cost (bench/bench_scenes.c; the dinosaur: 100 particles, 264 edges, 10 iterations a frame).
 * The polar decompositions are warm-started from each R_i's previous quaternion, which the
 * solver keeps (op_polar_rotation_warm: a certified Newton iteration, the closed form where the
 * certificate fails; the same rotation to rounding; the local step 1.4× faster). Everything fixed
 * for the run is computed once: x_ref, both steps' per-edge offsets, the couplings to pinned
 * particles; R_j − P once per global step rather than once per edge. The local step is about
 * half polar decomposition, half summing over neighbours, so what remains is arithmetic. */
#include "arap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "math3.h"
#include "polar.h"
#include "solver.h"
#include "sparse.h"
#include "timer.h"

enum { ARAP_GAUSS_SEIDEL = 0, ARAP_JACOBI = 1 };

typedef struct arap_solver {
    int order;             /* ARAP_GAUSS_SEIDEL or ARAP_JACOBI */
    int n, free_count;
    int *row_of;           /* [n] row in the global system, −1 where the position is pinned */
    double factored_h;     /* h of the current factor, 0 before the first */
    op_sparse_factor *factor;
    double *rhs;           /* [free_count][3] */
    /* rest-state quantities, fixed for the run */
    double *reference;     /* [n][3] x_ref = P x̄ + t, the placed rest positions */
    double *edge_offset;   /* [directed edge][3] w_e = v_j (x̄_j − x̄_i), CSR order (local step) */
    double *edge_pull;     /* [directed edge][3] v_i (x̄_i − x̄_j), CSR order (global step) */
    double *rest_spread;   /* [n][9] k P Σ_j v_j d̄ d̄ᵀ (d̄ = x̄_j − x̄_i), exactly P times a symmetric matrix */
    double *rest_pull;     /* [n][3] Σ_j v_j (x̄_i − x̄_j) */
    int *constraint_start; /* [n + 1] the constraint influences that involve each particle */
    int *constraint_entry; /* constraint index * OP_SKIN_MAX_K + influence slot */
    double *inertia;       /* [n] m_i / h² for the factored h */
    int pinned_count;      /* couplings of a free particle to a pinned neighbour: */
    int *pinned_row;       /* [pinned_count] the free particle's row */
    int *pinned_particle;  /* [pinned_count] the pinned neighbour */
    double *pinned_weight; /* [pinned_count] k (v_i + v_j) */
    /* per sub-step and per iteration */
    double *local_base;    /* [n][9] ρ/h² Y_i Ā_i + k P S_i, per sub-step */
    double *moment_turned; /* [n][9] R_j Ā_j, kept current through the sweep */
    double *displacement;  /* [n][3] u = x − x_ref, refreshed by each local step */
    double *rotation_sweep; /* [n][9] the rotations C_i reads: the live ones (GS) or a copy (Jacobi) */
    double *quaternion;    /* [n][4] unit quaternion of each R_i as the local step left it: the warm
                              start of its next polar decomposition */
    double *turn;          /* [n][9] R_i − P, formed once per global step */
} arap_solver;

static const op_solver_option arap_options[] = {
    { "rotations", "gs", "local-step order: gs (Gauss-Seidel, the paper's default) or jacobi" },
    { NULL, NULL, NULL },
};

static void arap_destroy(void *self)
{
    arap_solver *s = self;
    if (!s)
        return;
    op_sparse_factor_free(&s->factor);
    free(s->row_of);
    free(s->rhs);
    free(s->reference);
    free(s->edge_offset);
    free(s->edge_pull);
    free(s->inertia);
    free(s->pinned_row);
    free(s->pinned_particle);
    free(s->pinned_weight);
    free(s->rest_spread);
    free(s->rest_pull);
    free(s->constraint_start);
    free(s->constraint_entry);
    free(s->local_base);
    free(s->moment_turned);
    free(s->displacement);
    free(s->rotation_sweep);
    free(s->quaternion);
    free(s->turn);
    free(s);
}

static int precompute_rest(op_ctx *ctx, arap_solver *s, const op_body *body)
{
    const op_graph *g = body->graph;
    int n = g->particle_count, directed = g->adjacency_start[n];
    s->reference = op_calloc(ctx, 3 * (size_t)n, sizeof(double));
    s->edge_offset = op_calloc(ctx, 3 * (size_t)directed, sizeof(double));
    s->edge_pull = op_calloc(ctx, 3 * (size_t)directed, sizeof(double));
    s->rest_spread = op_calloc(ctx, 9 * (size_t)n, sizeof(double));
    s->rest_pull = op_calloc(ctx, 3 * (size_t)n, sizeof(double));
    s->constraint_start = op_calloc(ctx, (size_t)n + 1, sizeof(int));
    s->constraint_entry = op_calloc(ctx, (size_t)body->constraint_count * OP_SKIN_MAX_K, sizeof(int));
    if (ctx->status != OP_OK)
        return ctx->status;
    for (int i = 0; i < n; ++i) {
        m3_mul_v(&s->reference[3 * i], body->placement_rotation, &g->rest_position[3 * i]);
        v3_add(&s->reference[3 * i], &s->reference[3 * i], body->placement_translation);
        double spread[9] = { 0 };
        for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
            int j = g->adjacency[e];
            double d[3];
            v3_sub(d, &g->rest_position[3 * j], &g->rest_position[3 * i]);
            v3_scale(&s->edge_offset[3 * e], d, g->volume[j]);
            v3_scale(&s->edge_pull[3 * e], d, -g->volume[i]);
            v3_axpy(&s->rest_pull[3 * i], -g->volume[j], d);
            /* upper triangle only, mirrored below: exactly symmetric */
            for (int r = 0; r < 3; ++r)
                for (int c = r; c < 3; ++c)
                    spread[3 * r + c] += g->volume[j] * d[r] * d[c];
        }
        spread[3] = spread[1];
        spread[6] = spread[2];
        spread[7] = spread[5];
        m3_mul(&s->rest_spread[9 * i], body->placement_rotation, spread);
        m3_scale(&s->rest_spread[9 * i], &s->rest_spread[9 * i], body->stiffness);
    }
    for (int c = 0; c < body->constraint_count; ++c)
        for (int slot = 0; slot < body->constraints[c].influence_count; ++slot)
            s->constraint_start[body->constraints[c].particle[slot] + 1]++;
    for (int i = 0; i < n; ++i)
        s->constraint_start[i + 1] += s->constraint_start[i];
    int *fill = op_calloc(ctx, (size_t)n, sizeof(int));
    if (!fill)
        return ctx->status;
    for (int c = 0; c < body->constraint_count; ++c)
        for (int slot = 0; slot < body->constraints[c].influence_count; ++slot) {
            int i = body->constraints[c].particle[slot];
            s->constraint_entry[s->constraint_start[i] + fill[i]++] = c * OP_SKIN_MAX_K + slot;
        }
    free(fill);
    return OP_OK;
}

/* The edges from a free particle to a pinned one: the pinned end's known displacement moves to
 * the global step's right-hand side. Listed once, so that the global step does not scan every
 * edge for them. */
static int collect_pinned_couplings(op_ctx *ctx, arap_solver *s, const op_body *body)
{
    const op_graph *g = body->graph;
    size_t capacity = (size_t)g->adjacency_start[s->n];
    s->pinned_row = op_calloc(ctx, capacity, sizeof(int));
    s->pinned_particle = op_calloc(ctx, capacity, sizeof(int));
    s->pinned_weight = op_calloc(ctx, capacity, sizeof(double));
    if (ctx->status != OP_OK)
        return ctx->status;
    for (int i = 0; i < s->n; ++i)
        for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
            int j = g->adjacency[e];
            if (s->row_of[i] < 0 || s->row_of[j] >= 0)
                continue;
            s->pinned_row[s->pinned_count] = s->row_of[i];
            s->pinned_particle[s->pinned_count] = j;
            s->pinned_weight[s->pinned_count++] = body->stiffness * (g->volume[i] + g->volume[j]);
        }
    return OP_OK;
}

static int arap_create(op_ctx *ctx, const op_solver_settings *settings, op_body *body, double h, void **out)
{
    (void)h;
    *out = NULL;
    arap_solver *s = op_calloc(ctx, 1, sizeof *s);
    if (!s)
        return ctx->status;
    int n = body->graph->particle_count;
    s->n = n;
    if (op_solver_setting_choice(ctx, settings, "rotations", "gs|jacobi", &s->order) != OP_OK) {
        arap_destroy(s);
        return ctx->status;
    }
    s->row_of = op_calloc(ctx, (size_t)n, sizeof(int));
    s->local_base = op_calloc(ctx, 9 * (size_t)n, sizeof(double));
    s->moment_turned = op_calloc(ctx, 9 * (size_t)n, sizeof(double));
    s->displacement = op_calloc(ctx, 3 * (size_t)n, sizeof(double));
    s->rotation_sweep = s->order == ARAP_JACOBI ? op_calloc(ctx, 9 * (size_t)n, sizeof(double)) : NULL;
    s->quaternion = op_calloc(ctx, 4 * (size_t)n, sizeof(double));
    s->turn = op_calloc(ctx, 9 * (size_t)n, sizeof(double));
    s->inertia = op_calloc(ctx, (size_t)n, sizeof(double));
    if (ctx->status != OP_OK || precompute_rest(ctx, s, body) != OP_OK) {
        arap_destroy(s);
        return ctx->status;
    }
    for (int i = 0; i < n; ++i) {
        s->row_of[i] = body->position_pinned[i] ? -1 : s->free_count++;
        op_rotation_quaternion(&body->state.rotation[9 * i], &s->quaternion[4 * i]);
    }
    s->rhs = op_calloc(ctx, 3 * (size_t)(s->free_count ? s->free_count : 1), sizeof(double));
    if (!s->rhs || collect_pinned_couplings(ctx, s, body) != OP_OK) {
        arap_destroy(s);
        return ctx->status;
    }
    *out = s;
    return OP_OK;
}

/* The global matrix over the free particles (see the file comment), as upper-triangle
 * triplets. Constraint couplings join particles that need not be graph neighbours. */
static int factor_global_matrix(op_ctx *ctx, arap_solver *s, const op_body *body, double h)
{
    const op_graph *g = body->graph;
    double k = body->stiffness;
    size_t capacity = (size_t)s->n + (size_t)g->adjacency_start[s->n] / 2 +
                      (size_t)body->constraint_count * OP_SKIN_MAX_K * OP_SKIN_MAX_K;
    int *rows = op_calloc(ctx, capacity, sizeof(int)), *cols = op_calloc(ctx, capacity, sizeof(int));
    double *values = op_calloc(ctx, capacity, sizeof(double));
    int count = 0;
    if (ctx->status == OP_OK) {
        for (int i = 0; i < s->n; ++i) {
            s->inertia[i] = g->mass[i] * (1.0 / (h * h));
            if (s->row_of[i] < 0)
                continue;
            double diagonal = g->mass[i] / (h * h);
            for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
                int j = g->adjacency[e];
                double coupling = k * (g->volume[i] + g->volume[j]);
                diagonal += coupling;
                if (j > i && s->row_of[j] >= 0) {
                    rows[count] = s->row_of[i], cols[count] = s->row_of[j], values[count++] = -coupling;
                }
            }
            rows[count] = cols[count] = s->row_of[i], values[count++] = diagonal;
        }
        for (int c = 0; c < body->constraint_count; ++c) {
            const op_constraint *con = &body->constraints[c];
            if (con->kind != OP_CONSTRAINT_POSITION)
                continue;
            for (int a = 0; a < con->influence_count; ++a)
                for (int b = a; b < con->influence_count; ++b) {
                    int ra = s->row_of[con->particle[a]], rb = s->row_of[con->particle[b]];
                    if (ra < 0 || rb < 0)
                        continue;
                    rows[count] = ra, cols[count] = rb;
                    values[count++] = con->weight * con->influence[a] * con->influence[b];
                }
        }
        op_sparse_factor_free(&s->factor);
        if (s->free_count > 0)
            op_sparse_factor_create(ctx, s->free_count, count, rows, cols, values, &s->factor);
        s->factored_h = h;
    }
    free(rows);
    free(cols);
    free(values);
    return ctx->status;
}

static int arap_begin_substep(op_ctx *ctx, void *self, op_body *body, double h)
{
    arap_solver *s = self;
    if (h != s->factored_h && factor_global_matrix(ctx, s, body, h) != OP_OK)
        return ctx->status;
    const op_graph *g = body->graph;
    double inertia = g->density / (h * h);
    for (int i = 0; i < s->n; ++i) {
        double yA[9];
        m3_mul(yA, &body->inertial_rotation[9 * i], &g->rest_moment[9 * i]);
        m3_scale(yA, yA, inertia);
        m3_add(&s->local_base[9 * i], yA, &s->rest_spread[9 * i]);
        m3_mul(&s->moment_turned[9 * i], &body->state.rotation[9 * i], &g->rest_moment[9 * i]);
    }
    return OP_OK;
}

/* C^p_i and C^d_i of every constraint influencing particle i (Sec. 3.4), with the rotations
 * the sweep reads. The direction constraint freezes m = ‖Σ w_l R_l n̄‖ as the paper does. */
static void add_constraint_terms(const arap_solver *s, const op_body *body, const double *rotations, int i,
                                 double C[9])
{
    const op_graph *g = body->graph;
    for (int k = s->constraint_start[i]; k < s->constraint_start[i + 1]; ++k) {
        const op_constraint *con = &body->constraints[s->constraint_entry[k] / OP_SKIN_MAX_K];
        int own = s->constraint_entry[k] % OP_SKIN_MAX_K;
        if (con->kind == OP_CONSTRAINT_POSITION) {
            double u[3], u_rest[3], offset[3];
            v3_copy(u, con->target);
            for (int l = 0; l < con->influence_count; ++l) {
                int p = con->particle[l];
                v3_axpy(u, -con->influence[l], &body->state.position[3 * p]);
                if (l == own)
                    continue;
                v3_sub(offset, con->rest_point, &g->rest_position[3 * p]);
                m3_mul_v(offset, &rotations[9 * p], offset);
                v3_axpy(u, -con->influence[l], offset);
            }
            v3_sub(u_rest, con->rest_point, &g->rest_position[3 * i]);
            v3_scale(u_rest, u_rest, con->influence[own]);
            m3_add_outer(C, con->weight, u, u_rest);
        } else {
            double n[3] = { 0, 0, 0 }, turned[3];
            for (int l = 0; l < con->influence_count; ++l) {
                m3_mul_v(turned, &rotations[9 * con->particle[l]], con->rest_direction);
                v3_axpy(n, con->influence[l], turned);
            }
            double m = v3_norm(n);
            if (!(m > 0))
                continue;
            double r[3], r_rest[3];
            v3_copy(r, con->target);
            for (int l = 0; l < con->influence_count; ++l) {
                if (l == own)
                    continue;
                m3_mul_v(turned, &rotations[9 * con->particle[l]], con->rest_direction);
                v3_axpy(r, -con->influence[l] / m, turned);
            }
            v3_scale(r_rest, con->rest_direction, con->influence[own] / m);
            m3_add_outer(C, con->weight, r, r_rest);
        }
    }
}

void op_arap_local_step(void *self, op_body *body, double h)
{
    (void)h;
    arap_solver *s = self;
    const op_graph *g = body->graph;
    double k = body->stiffness;
    double *rotation = body->state.rotation;
    const double *sweep = rotation;
    for (int i = 0; i < s->n; ++i)
        v3_sub(&s->displacement[3 * i], &body->state.position[3 * i], &s->reference[3 * i]);
    if (s->order == ARAP_JACOBI) {
        memcpy(s->rotation_sweep, rotation, 9 * (size_t)s->n * sizeof(double));
        sweep = s->rotation_sweep;
    }
    /* R_j Ā_j: Gauss–Seidel refreshes particle i's as soon as R_i changes; Jacobi keeps the
     * previous iteration's products until the sweep is over. */
    double *turned = s->moment_turned;
    for (int i = 0; i < s->n; ++i) {
        if (body->rotation_pinned[i])
            continue;
        /* k Σ_j R_j (Ā_j + Ā_i) = k (Σ_j R_j Ā_j + (Σ_j R_j) Ā_i) */
        double neighbour_moments[9] = { 0 }, neighbour_rotations[9] = { 0 };
        for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
            int j = g->adjacency[e];
            m3_add(neighbour_moments, neighbour_moments, &turned[9 * j]);
            m3_add(neighbour_rotations, neighbour_rotations, &sweep[9 * j]);
        }
        double spread[9] = { 0 };
        const double *u_i = &s->displacement[3 * i];
        for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
            double du[3];
            v3_sub(du, &s->displacement[3 * g->adjacency[e]], u_i);
            m3_add_outer(spread, 1.0, du, &s->edge_offset[3 * e]);
        }
        double C[9], rotations_moment[9];
        m3_mul(rotations_moment, neighbour_rotations, &g->rest_moment[9 * i]);
        m3_add(neighbour_moments, neighbour_moments, rotations_moment);
        m3_add(neighbour_moments, neighbour_moments, spread);
        m3_copy(C, &s->local_base[9 * i]);
        m3_axpy(C, k, neighbour_moments);
        add_constraint_terms(s, body, sweep, i, C);
        /* warm-started from R_i's previous value: the same rotation as the closed form, to
         * rounding, in about half the time (core/polar.c) */
        op_polar_rotation_warm(C, &s->quaternion[4 * i], &rotation[9 * i]);
        if (s->order == ARAP_GAUSS_SEIDEL)
            m3_mul(&turned[9 * i], &rotation[9 * i], &g->rest_moment[9 * i]);
    }
    if (s->order == ARAP_JACOBI)
        for (int i = 0; i < s->n; ++i)
            m3_mul(&turned[9 * i], &rotation[9 * i], &g->rest_moment[9 * i]);
}

int op_arap_global_step(op_ctx *ctx, void *self, op_body *body, double h)
{
    (void)h;
    arap_solver *s = self;
    if (s->free_count == 0)
        return OP_OK;
    const op_graph *g = body->graph;
    double k = body->stiffness;
    const double *P = body->placement_rotation;
    const double *rotation = body->state.rotation, *position = body->state.position;
    /* R_j − P once per particle, not once per edge that reads it */
    double *turn = s->turn;
    for (int i = 0; i < s->n; ++i)
        m3_sub(&turn[9 * i], &rotation[9 * i], P);
    for (int i = 0; i < s->n; ++i) {
        int row = s->row_of[i];
        if (row < 0)
            continue;
        /* Σ_j (v_j R_i + v_i R_j)(x̄_i − x̄_j) less its value at rest (R = P):
         * (R_i − P) Σ_j v_j (x̄_i − x̄_j) + Σ_j (R_j − P) v_i (x̄_i − x̄_j) */
        double pull[3], term[3];
        m3_mul_v(pull, &turn[9 * i], &s->rest_pull[3 * i]);
        for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
            m3_mul_v(term, &turn[9 * g->adjacency[e]], &s->edge_pull[3 * e]);
            v3_add(pull, pull, term);
        }
        double *b = &s->rhs[3 * row];
        v3_sub(b, &body->inertial_position[3 * i], &s->reference[3 * i]);
        v3_scale(b, b, s->inertia[i]);
        v3_axpy(b, k, pull);
    }
    for (int c = 0; c < s->pinned_count; ++c) {
        int j = s->pinned_particle[c];
        double pinned[3];
        v3_sub(pinned, &position[3 * j], &s->reference[3 * j]);
        v3_axpy(&s->rhs[3 * s->pinned_row[c]], s->pinned_weight[c], pinned);
    }
    for (int c = 0; c < body->constraint_count; ++c) {
        const op_constraint *con = &body->constraints[c];
        if (con->kind != OP_CONSTRAINT_POSITION)
            continue;
        /* residual of the skinned vertex with every free displacement zero: the target less
         * the placed rest vertex P v̄ + t, less what the rotations and pinned particles add */
        double residual[3], placed[3];
        m3_mul_v(placed, P, con->rest_point);
        v3_add(placed, placed, body->placement_translation);
        v3_sub(residual, con->target, placed);
        for (int l = 0; l < con->influence_count; ++l) {
            int p = con->particle[l];
            double offset[3];
            v3_sub(offset, con->rest_point, &g->rest_position[3 * p]);
            m3_mul_v(offset, &turn[9 * p], offset);
            v3_axpy(residual, -con->influence[l], offset);
            if (s->row_of[p] < 0) {
                double pinned[3];
                v3_sub(pinned, &position[3 * p], &s->reference[3 * p]);
                v3_axpy(residual, -con->influence[l], pinned);
            }
        }
        for (int l = 0; l < con->influence_count; ++l) {
            int row = s->row_of[con->particle[l]];
            if (row >= 0)
                v3_axpy(&s->rhs[3 * row], con->weight * con->influence[l], residual);
        }
    }
    if (op_sparse_solve3(ctx, s->factor, s->rhs) != OP_OK)
        return ctx->status;
    for (int i = 0; i < s->n; ++i) {
        int row = s->row_of[i];
        if (row >= 0)
            v3_add(&body->state.position[3 * i], &s->reference[3 * i], &s->rhs[3 * row]);
    }
    return OP_OK;
}

static int arap_iterate(op_ctx *ctx, void *self, op_body *body, double h, op_stage_times *times)
{
    double start = op_now();
    op_arap_local_step(self, body, h);
    double middle = op_now();
    int status = op_arap_global_step(ctx, self, body, h);
    times->local += middle - start;
    times->global += op_now() - middle;
    return status;
}

const op_solver_type op_solver_arap = {
    .name = "arap",
    .summary = "local/global ARAP on oriented particles: polar rotations, prefactored positions",
    .source = "Choi & Lee 2017",
    .options = arap_options,
    .create = arap_create,
    .begin_substep = arap_begin_substep,
    .iterate = arap_iterate,
    .destroy = arap_destroy,
    /* begin_substep only recomputes per-sub-step products from the body (the factor is kept
     * while h is unchanged), so it also brings R_j Ā_j up to date after extrapolated rotations */
    .resync = arap_begin_substep,
};
