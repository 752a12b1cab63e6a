/* shape-matching: oriented-particle shape matching (Müller & Chentanez 2011, "Solid simulation
 * with oriented particles"), the baseline of Choi & Lee 2017 Fig. 3.
 *
 * Groups. One group per particle g: g itself and its graph neighbours (one ring). Particle j
 * belongs to n_j = 1 + |N_j| groups (the graph is undirected) and lends each of them the share
 * w_j = m_j / n_j of its mass (and of its ellipsoid moment), so the groups together weigh the
 * body once. With these weights the rest centre c̄_g = Σ w_j x̄_j / Σ w_j and the rest offsets
 * d̄_j = x̄_j − c̄_g are fixed for the run; the current centre is c_g = Σ w_j x_j / Σ w_j (summed
 * relative to x_g, so a body far from the origin loses no digits). The group's moment matrix is
 *   A_g = Σ_j [ (ρ / n_j) R_j Ā_j + w_j (x_j − c_g) d̄_jᵀ ]
 * (the oriented-particle extension: each member's ellipsoid moment beside the point term),
 * R_g = polar(A_g) sign-rectified (op_polar_rotation_warm: the closed form's rotation to
 * rounding, warm-started from the group's previous quaternion), goals g_j = R_g d̄_j + c_g.
 *
 * Momentum. The projection below moves particle j by (α / n_j)(g_j − x_j) for each of its
 * groups, i.e. its mass m_j by w_j α (g_j − x_j), and Σ_j w_j (g_j − x_j) = R_g Σ_j w_j d̄_j +
 * (Σ_j w_j) c_g − Σ_j w_j x_j = 0 for every group: a free body's linear momentum is kept to
 * rounding, in both orders. Weighted by the whole masses m_j instead, the groups' centres are
 * not the centres of the moves they cause, and a free spinning body drifts (the dinosaur of
 * experiments/freeflight.ini by 4.4–5.8 cm in 3 s; tests/test_shape_matching.c). The division
 * of a particle's mass among its groups is Rivers & James's (FastLSM, 2007) for overlapping
 * regions.
 *
 * Projection (PBD style, stiffness α = option `stiffness`). Particle i moves by α/n_i times the
 * sum over its n_i groups of (g_i − x_i), i.e. α times the average.
 *   order = jacobi (the default; Müller & Chentanez average the goals of all groups): every
 *     group's centre, rotation and goals from
 *     the positions at the start of the iteration, the averaged displacement applied once all
 *     groups are done.
 *   order = gs: groups in index order, each group's displacement applied at once (each member's
 *     share α/n_j), so later groups see the moved positions.
 * In both orders every A_g reads the rotations R_j of the start of the iteration, and each
 * particle's orientation becomes its own group's rotation, R_i ← R_g (g = i), after the
 * iteration.
 *
 * Stiffness. α defaults to 1 (the full projection): with one-ring groups the effective
 * stiffness then depends only on the iteration count and the time step, which is exactly the
 * behaviour Fig. 3 shows; α < 1 softens further. The body's stiffness k (Eq. 4) is not used by
 * this variant (the harness still measures the ARAP energy with it).
 *
 * Orientation prediction (Müller & Chentanez 2011, Sec. 4: orientations are integrated with the
 * angular velocity before the projection): the world's predict stage starts every free
 * orientation at its rotation_start guess (include/opsim/world.h; by default Q R_i, the body's
 * turn over the sub-step as its momentum predicts), so the ellipsoid moments in A_g see the
 * predicted orientations; the variant has nothing to do at the start of a sub-step. The
 * world's UPDATE_VELOCITY then derives v from the position change and Ṙ from the orientation
 * change; gravity is already in the prediction (x starts at y); the floor is the world's.
 *
 * Pins. A pinned position never moves: its share is dropped, not redistributed (it still
 * counts in its groups' centres and moments). A pinned orientation keeps R_i.
 *
 * Constraints. Position constraints (Eq. 13, the skinned vertex v = Σ w_l (R_l (v̄ − x̄_l) + x_l))
 * are projected after the groups, PBD-style, one after another: with Δ = v_c − v and
 * W = Σ_{free l} w_l², every free influencing particle moves by κ w_l Δ / W (weight-proportional),
 * so the skinned vertex moves by κ Δ exactly (rotations fixed). κ = option
 * `constraint_stiffness` in (0, 1], default 1: a hard projection. The constraint weight w of
 * the energy formulation has no meaning in PBD and is ignored. Direction constraints (Eq. 15)
 * are not supported: the next iteration's group rotations would overwrite any turn applied to
 * R_i, so there is no honest projection for them here; create fails naming the body and the
 * constraint.
 *
 * Stage times: the group solve (centres, moments, polar rotations, goal projection,
 * orientations) is reported as `local`, the constraint projection as `global`.
 *
 * Nothing here writes files or computes energies. */
#include "shape_matching.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/math3.h"
#include "kernels/polar.h"
#include "base/timer.h"

enum { SM_JACOBI = 0, SM_GAUSS_SEIDEL = 1 };

typedef struct sm_solver {
    int order;                /* SM_JACOBI or SM_GAUSS_SEIDEL */
    double alpha;             /* group stiffness α in (0, 1] */
    double constraint_alpha;  /* κ in (0, 1] */
    int n;
    /* groups, fixed for the run: group g's members are member[group_start[g] .. group_start[g+1]),
     * g itself first, then its neighbours in adjacency order */
    int *group_start;         /* [n + 1] */
    int *member;              /* [n + 2 edges] */
    double *member_mass;      /* [members] w_j = m_j / n_j */
    double *rest_offset;      /* [members][3] d̄_j = x̄_j − c̄_g */
    double *group_mass;       /* [n] Σ w_j */
    double *moment_share;     /* [n] ρ / n_j: the share of particle j's ellipsoid moment in each group */
    double *share;            /* [n] α / n_i, 0 where the position is pinned */
    /* per iteration */
    double *moment;           /* [n][9] (ρ / n_j) R_j Ā_j from the rotations at the start of the iteration */
    double *group_rotation;   /* [n][9] R_g */
    double *quaternion;       /* [n][4] each group's last rotation: the warm start of its next polar */
    double *snapshot;         /* [n][3] Jacobi: the positions at the start of the iteration */
    double *displacement;     /* [n][3] Jacobi: Σ over groups of (g_j − x_j) */
} sm_solver;

static const op_solver_option sm_options[] = {
    { "stiffness", "1", "shape-matching stiffness alpha in (0, 1]: each iteration moves a particle by alpha times "
                        "its average goal displacement" },
    { "order", "jacobi", "group order: jacobi (goals from the iteration's start, averaged) or gs (groups in "
                         "index order, each applied at once)" },
    { "constraint_stiffness", "1", "PBD projection fraction in (0, 1] for position constraints (1: hard)" },
    { NULL, NULL, NULL },
};

static void sm_destroy(void *self)
{
    sm_solver *s = self;
    if (!s)
        return;
    free(s->group_start);
    free(s->member);
    free(s->member_mass);
    free(s->rest_offset);
    free(s->group_mass);
    free(s->moment_share);
    free(s->share);
    free(s->moment);
    free(s->group_rotation);
    free(s->quaternion);
    free(s->snapshot);
    free(s->displacement);
    free(s);
}

/* A number in (0, 1]; the message names the option. */
static int setting_fraction(op_ctx *ctx, const op_solver_settings *settings, const char *key, double *out)
{
    op_ctx inner;
    op_ctx_init(&inner);
    double value = 0.0;
    if (op_solver_setting_double(&inner, settings, key, 0.0, 1.0, &value) != OP_OK || !(value > 0.0)) {
        const char *text = op_solver_setting(settings, key);
        return OP_FAIL(ctx, OP_ERR_USAGE, "solver shape-matching: option %s = '%s' must be a number in (0, 1]", key,
                       text ? text : "(missing)");
    }
    *out = value;
    return OP_OK;
}

static int setting_order(op_ctx *ctx, const op_solver_settings *settings, int *out)
{
    return op_solver_setting_choice(ctx, settings, "order", "jacobi|gs", out);
}

/* n_j: particle j's own group and its neighbours' (the graph is undirected). */
static int groups_of(const op_graph *g, int j)
{
    return 1 + (g->adjacency_start[j + 1] - g->adjacency_start[j]);
}

static int build_groups(op_ctx *ctx, sm_solver *s, const op_body *body)
{
    const op_graph *g = body->graph;
    int n = s->n, members = n + g->adjacency_start[n];
    s->group_start = op_calloc(ctx, (size_t)n + 1, sizeof(int));
    s->member = op_calloc(ctx, (size_t)members, sizeof(int));
    s->member_mass = op_calloc(ctx, (size_t)members, sizeof(double));
    s->rest_offset = op_calloc(ctx, 3 * (size_t)members, sizeof(double));
    s->group_mass = op_calloc(ctx, (size_t)n, sizeof(double));
    s->moment_share = op_calloc(ctx, (size_t)n, sizeof(double));
    s->share = op_calloc(ctx, (size_t)n, sizeof(double));
    if (ctx->status != OP_OK)
        return ctx->status;
    for (int i = 0; i < n; ++i)
        s->moment_share[i] = g->density / groups_of(g, i);
    int at = 0;
    for (int i = 0; i < n; ++i) {
        s->group_start[i] = at;
        s->member[at++] = i;
        for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e)
            s->member[at++] = g->adjacency[e];
        /* rest centre, summed relative to x̄_i */
        double mass = 0.0, centre[3] = { 0, 0, 0 }, d[3];
        for (int k = s->group_start[i]; k < at; ++k) {
            int j = s->member[k];
            s->member_mass[k] = g->mass[j] / groups_of(g, j);
            mass += s->member_mass[k];
            v3_sub(d, &g->rest_position[3 * j], &g->rest_position[3 * i]);
            v3_axpy(centre, s->member_mass[k], d);
        }
        s->group_mass[i] = mass;
        v3_scale(centre, centre, 1.0 / mass);
        v3_add(centre, centre, &g->rest_position[3 * i]);
        for (int k = s->group_start[i]; k < at; ++k)
            v3_sub(&s->rest_offset[3 * k], &g->rest_position[3 * s->member[k]], centre);
        s->share[i] = body->position_pinned[i] ? 0.0 : s->alpha / groups_of(g, i);
    }
    s->group_start[n] = at;
    return OP_OK;
}

static int sm_create(op_ctx *ctx, const op_solver_settings *settings, op_body *body, double h, void *const *twins,
                     int twin_count, void **out)
{
    (void)twins; /* the groups are cheap to build: nothing is shared between bodies */
    (void)twin_count;
    (void)h;
    *out = NULL;
    for (int c = 0; c < body->constraint_count; ++c)
        if (body->constraints[c].kind == OP_CONSTRAINT_DIRECTION)
            return OP_FAIL(ctx, OP_ERR_USAGE,
                           "solver shape-matching: body %s has a direction constraint (constraint %d, vertex %d); "
                           "this variant supports position constraints and pins only",
                           body->name, c, body->constraints[c].vertex);
    sm_solver *s = op_calloc(ctx, 1, sizeof *s);
    if (!s)
        return ctx->status;
    s->n = body->graph->particle_count;
    if (setting_fraction(ctx, settings, "stiffness", &s->alpha) != OP_OK ||
        setting_fraction(ctx, settings, "constraint_stiffness", &s->constraint_alpha) != OP_OK ||
        setting_order(ctx, settings, &s->order) != OP_OK) {
        sm_destroy(s);
        return ctx->status;
    }
    size_t n = (size_t)s->n;
    s->moment = op_calloc(ctx, 9 * n, sizeof(double));
    s->group_rotation = op_calloc(ctx, 9 * n, sizeof(double));
    s->quaternion = op_calloc(ctx, 4 * n, sizeof(double));
    s->snapshot = s->order == SM_JACOBI ? op_calloc(ctx, 3 * n, sizeof(double)) : NULL;
    s->displacement = s->order == SM_JACOBI ? op_calloc(ctx, 3 * n, sizeof(double)) : NULL;
    if (ctx->status != OP_OK || build_groups(ctx, s, body) != OP_OK) {
        sm_destroy(s);
        return ctx->status;
    }
    for (int i = 0; i < s->n; ++i)
        op_rotation_quaternion(&body->state.rotation[9 * i], &s->quaternion[4 * i]);
    *out = s;
    return OP_OK;
}

/* Group g's centre c, rotation R (also kept in group_rotation) from the positions `x`. */
static void match_group(sm_solver *s, int group, const double *x, double c[3], double R[9])
{
    double mass = s->group_mass[group], d[3];
    const double *anchor = &x[3 * group];
    double offset[3] = { 0, 0, 0 };
    for (int k = s->group_start[group]; k < s->group_start[group + 1]; ++k) {
        v3_sub(d, &x[3 * s->member[k]], anchor);
        v3_axpy(offset, s->member_mass[k], d);
    }
    v3_scale(offset, offset, 1.0 / mass);
    v3_add(c, anchor, offset);
    double A[9] = { 0 };
    for (int k = s->group_start[group]; k < s->group_start[group + 1]; ++k) {
        int j = s->member[k];
        m3_add(A, A, &s->moment[9 * j]);
        v3_sub(d, &x[3 * j], c);
        m3_add_outer(A, s->member_mass[k], d, &s->rest_offset[3 * k]);
    }
    op_polar_rotation_warm(A, &s->quaternion[4 * group], R);
    m3_copy(&s->group_rotation[9 * group], R);
}

static void solve_groups(sm_solver *s, op_body *body)
{
    const op_graph *g = body->graph;
    double *position = body->state.position, *rotation = body->state.rotation;
    for (int j = 0; j < s->n; ++j) {
        m3_mul(&s->moment[9 * j], &rotation[9 * j], &g->rest_moment[9 * j]);
        m3_scale(&s->moment[9 * j], &s->moment[9 * j], s->moment_share[j]);
    }
    double c[3], R[9], goal[3];
    if (s->order == SM_JACOBI) {
        memcpy(s->snapshot, position, 3 * (size_t)s->n * sizeof(double));
        memset(s->displacement, 0, 3 * (size_t)s->n * sizeof(double));
        for (int group = 0; group < s->n; ++group) {
            match_group(s, group, s->snapshot, c, R);
            for (int k = s->group_start[group]; k < s->group_start[group + 1]; ++k) {
                int j = s->member[k];
                m3_mul_v(goal, R, &s->rest_offset[3 * k]);
                v3_add(goal, goal, c);
                v3_sub(goal, goal, &s->snapshot[3 * j]);
                v3_add(&s->displacement[3 * j], &s->displacement[3 * j], goal);
            }
        }
        for (int j = 0; j < s->n; ++j)
            if (!body->position_pinned[j])
                v3_axpy(&position[3 * j], s->share[j], &s->displacement[3 * j]);
    } else {
        for (int group = 0; group < s->n; ++group) {
            match_group(s, group, position, c, R);
            /* each member's goal depends only on c, R and its own position: apply in place */
            for (int k = s->group_start[group]; k < s->group_start[group + 1]; ++k) {
                int j = s->member[k];
                if (body->position_pinned[j])
                    continue;
                m3_mul_v(goal, R, &s->rest_offset[3 * k]);
                v3_add(goal, goal, c);
                v3_sub(goal, goal, &position[3 * j]);
                v3_axpy(&position[3 * j], s->share[j], goal);
            }
        }
    }
    for (int i = 0; i < s->n; ++i)
        if (!body->rotation_pinned[i])
            m3_copy(&rotation[9 * i], &s->group_rotation[9 * i]);
}

static void project_constraints(sm_solver *s, op_body *body)
{
    double *position = body->state.position;
    for (int c = 0; c < body->constraint_count; ++c) {
        const op_constraint *con = &body->constraints[c];
        if (con->kind != OP_CONSTRAINT_POSITION)
            continue;
        double v[3], delta[3], W = 0.0;
        op_constraint_skinned_point(body, con, v);
        v3_sub(delta, con->target, v);
        for (int l = 0; l < con->influence_count; ++l)
            if (!body->position_pinned[con->particle[l]])
                W += con->influence[l] * con->influence[l];
        if (!(W > 0.0))
            continue;
        for (int l = 0; l < con->influence_count; ++l) {
            int p = con->particle[l];
            if (!body->position_pinned[p])
                v3_axpy(&position[3 * p], s->constraint_alpha * con->influence[l] / W, delta);
        }
    }
}

static int sm_iterate(op_ctx *ctx, void *self, op_body *body, double h, op_stage_times *times)
{
    (void)ctx;
    (void)h;
    sm_solver *s = self;
    double start = op_now();
    solve_groups(s, body);
    double middle = op_now();
    if (body->constraint_count > 0)
        project_constraints(s, body);
    times->local += middle - start;
    times->global += op_now() - middle;
    return OP_OK;
}

/* Nothing is cached from the rotations between iterations (each iteration reads R_j afresh
 * for its group moments), so extrapolated rotations need no refresh. */
static int sm_resync(op_ctx *ctx, void *solver, op_body *body, double h)
{
    (void)ctx, (void)solver, (void)body, (void)h;
    return OP_OK;
}

const op_solver_type op_solver_shape_matching = {
    .name = "shape-matching",
    .summary = "oriented-particle shape matching: one-ring groups with ellipsoid moments, PBD projection",
    .source = "Müller & Chentanez 2011",
    .options = sm_options,
    .create = sm_create,
    .iterate = sm_iterate,
    .destroy = sm_destroy,
    .resync = sm_resync,
};
