/* xpbd: extended position-based dynamics (Macklin, Müller & Chentanez 2016) on the
 * oriented-particle graph, with the shape-matching variant's one-ring goals (solvers/
 * shape_matching.c) as compliant constraints.
 *
 * Groups, as shape-matching builds them: group g is particle g and its graph neighbours, with
 * member masses m_j, rest offsets d̄_j = x̄_j − c̄_g, and at each visit the current centre c_g and
 * rotation R_g = polar(A_g), A_g = Σ_j [ρ R_j Ā_j + m_j (x_j − c_g) d̄_jᵀ] (the ellipsoid moments
 * from the rotations at the start of the iteration).
 *
 * Constraints. For every group g and member j, the vector constraint
 *   C_gj(x) = x_j − (R_g d̄_j + c_g) = 0,
 * its goal (R_g, c_g) held while it is projected, as PBD shape matching holds it (the XPBD paper
 * is silent on shape matching; taking ∇_{x_j} C_gj = I keeps the projection the one of
 * shape-matching's gs order, so α → 0 gives exactly its full projection, rings of pinned
 * orientations aside, below). Compliance
 *   α_gj = 1/(k v_j)   [m/N],
 * k the body's stiffness (N/m per m³ of ellipsoid volume, include/opsim/body.h) and v_j the
 * member's volume: the goal spring has the stiffness k v_j that Eq. 4 gives the edge term
 * k/2 v_j ‖R_i d̄_ij − d_ij‖². α̃ = α/h². Each projection (Eq. 18 of the paper, three components at
 * once since ∇C = I):
 *   Δλ = (−C − α̃ λ)/(w_j + α̃),   x_j ← x_j + w_j Δλ,   λ ← λ + Δλ,   w_j = 1/m_j (0 if pinned).
 * Pins: a pinned position has w_j = 0; a pinned orientation R_g is its own ring's goal rotation
 * in place of the fit, since here a particle's orientation is its ring's rotation: a pin that held
 * R_g but let its ring's goal turn would hold the ring only through R_g's share of the fit.
 * Position constraints (Eq. 13's skinned vertex v = Σ_l w_l (R_l r̄_l + x_l)): C = v − v_c with
 * compliance 1/w (w the constraint weight, N/m). v depends on the influences' rotations too, and
 * on a rod whose centres lie on its axis only they resist a twist (Fig. 1's held end), so each
 * influence l acts through its centre (inverse mass 1/m_l, ∇_{x_l} C = w_l I) and through its ring
 * turned as a rigid body, as the direction constraints below turn it (Müller et al. 2020, Sec. 3.3,
 * a positional constraint on a body): the point x_l + R_l r̄_l has the arm a_l from the ring's free
 * mass centre (x_l's part only if x_l is free, R_l r̄_l's only if R_l is), so with I_l the ring's
 * inertia the vector multiplier steps by
 *   (K + α̃ I) Δλ = −C − α̃ λ,   K = Σ_l w_l² (I/m_l + [a_l]×ᵀ I_l⁻¹ [a_l]×),
 *   x_l ← x_l + (w_l/m_l) Δλ,   ring l turns by the rotation vector w_l I_l⁻¹ (a_l × Δλ).
 * K treats the rings as apart though neighbouring rings share members, so the steps only approach
 * the constrained state over the iterations (more slowly than moving the centres alone).
 * Direction constraints (Eq. 15's skinned direction u = n/‖n‖, n = Σ_l w_l R_l n̄) turn rings,
 * not lone orientations: here a particle's orientation is its ring's rotation (after each
 * iteration R_i ← R_g), so a turn of R_i alone would be overwritten by the next fit. Each is the
 * scalar C = ‖u − n_c‖ = 2 sin(θ/2), θ the angle from u to n_c, with compliance 1/w (w the
 * constraint weight, J), so ½ C²/α is Eq. 15's term exactly. Its correction is XPBD's angular one
 * (Müller et al. 2020, "Detailed rigid body simulation with XPBD", Sec. 3.3, angular
 * constraints): influence l's ring (the free members of particle l's ring) turns as a rigid body
 * about its free members' mass centre, with the inertia I_l = Σ_j [m_j (‖r_j‖² I − r_j r_jᵀ) + ρ (tr M_j I − M_j)],
 * M_j = R_j Ā_j R_jᵀ (a member's ellipsoid only when its rotation is free). With t = a × u, a the
 * unit axis of u × n_c, the gradient in ring l's rotation vector is
 *   g_l = −cos(θ/2) (w_l/‖n‖) (R_l n̄ × t),
 *   Δλ = (−C − α̃ λ)/(Σ_l g_lᵀ I_l⁻¹ g_l + α̃),   ring l turns by the rotation vector I_l⁻¹ g_l Δλ
 * (its free members' positions about the centre, its free members' rotations with them). A turn
 * about the mass centre moves no centre of mass, so linear momentum still holds. Edge-distance
 * constraints are not added: the goals already hold every edge of the one ring.
 *
 * Multipliers λ are reset to 0 at every sub-step (begin_substep), as Algorithm 1 does per time
 * step: a sub-step is opsim's time step. Order: Gauss–Seidel, groups in the colour order of their
 * particle (op_arap_colour_sweep), each group's goals from the newest positions; then each free
 * orientation becomes its own group's rotation; then the direction constraints, then the position
 * constraints (last, so that a grabbed vertex ends where its script puts it).
 * Small steps (Macklin et al. 2019): not an option here but the run's [time] section, many
 * sub-steps and iterations = 1 (docs/method.md, "XPBD").
 *
 * Stage times: groups as `local`, direction and position constraints as `global`. */
#include "xpbd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arap_terms.h"
#include "base/math3.h"
#include "base/timer.h"
#include "kernels/polar.h"
#include "sim/script.h"

typedef struct xpbd_solver {
    int n;
    int *group_start;        /* [n + 1] group g's members member[group_start[g] .. group_start[g+1]) */
    int *member;             /* g first, then its neighbours */
    double *rest_offset;     /* [members][3] d̄_j */
    double *compliance;      /* [members] α_gj = 1/(k v_j) */
    double *group_mass;      /* [n] */
    double *inverse_mass;    /* [n] 1/m_i, 0 where the position is pinned */
    double *lambda;          /* [members][3] the goals' multipliers, reset each sub-step */
    double *constraint_lambda; /* [constraints][3]; a direction constraint's scalar λ in its first */
    double *moment;          /* [n][9] ρ R_j Ā_j */
    double *group_rotation;  /* [n][9] */
    double *quaternion;      /* [n][4] */
    op_arap_sweep sweep;     /* the group order */
    double h2;               /* h² of the sub-step */
} xpbd_solver;

static const op_solver_option xpbd_options[] = {
    { NULL, NULL, NULL },
};

static void xpbd_destroy(void *self)
{
    xpbd_solver *s = self;
    if (!s)
        return;
    free(s->group_start);
    free(s->member);
    free(s->rest_offset);
    free(s->compliance);
    free(s->group_mass);
    free(s->inverse_mass);
    free(s->lambda);
    free(s->constraint_lambda);
    free(s->moment);
    free(s->group_rotation);
    free(s->quaternion);
    op_arap_sweep_free(&s->sweep);
    free(s);
}

static void build_groups(xpbd_solver *s, const op_body *body)
{
    const op_graph *g = body->graph;
    int at = 0;
    for (int i = 0; i < s->n; ++i) {
        s->group_start[i] = at;
        s->member[at++] = i;
        for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e)
            s->member[at++] = g->adjacency[e];
        double mass = 0.0, centre[3] = { 0, 0, 0 }, d[3];
        for (int k = s->group_start[i]; k < at; ++k) {
            int j = s->member[k];
            mass += g->mass[j];
            v3_sub(d, &g->rest_position[3 * j], &g->rest_position[3 * i]);
            v3_axpy(centre, g->mass[j], d);
            s->compliance[k] = 1.0 / (body->stiffness * g->volume[j]);
        }
        s->group_mass[i] = mass;
        v3_scale(centre, centre, 1.0 / mass);
        v3_add(centre, centre, &g->rest_position[3 * i]);
        for (int k = s->group_start[i]; k < at; ++k)
            v3_sub(&s->rest_offset[3 * k], &g->rest_position[3 * s->member[k]], centre);
        s->inverse_mass[i] = body->position_pinned[i] ? 0.0 : 1.0 / g->mass[i];
    }
    s->group_start[s->n] = at;
}

/* The group order: op_arap_colour_sweep over every particle (a view with no rotation pinned). */
static int group_sweep(op_ctx *ctx, xpbd_solver *s, const op_body *body)
{
    int *row_of = op_calloc(ctx, (size_t)s->n + 1, sizeof(int));
    unsigned char *none = op_calloc(ctx, (size_t)s->n + 1, 1);
    op_arap_terms terms = { 0 };
    if (ctx->status == OP_OK) {
        for (int i = 0, rows = 0; i < s->n; ++i)
            row_of[i] = body->position_pinned[i] ? -1 : rows++;
        op_body view = *body;
        view.rotation_pinned = none;
        if (op_arap_terms_create(ctx, &terms, &view, row_of) == OP_OK)
            op_arap_colour_sweep(ctx, &terms, &view, &s->sweep);
    }
    op_arap_terms_free(&terms);
    free(row_of);
    free(none);
    return ctx->status;
}

static int xpbd_create(op_ctx *ctx, const op_solver_settings *settings, op_body *body, double h, void *const *twins,
                       int twin_count, void **out)
{
    (void)settings, (void)twins, (void)twin_count;
    *out = NULL;
    if (!(body->stiffness > 0.0))
        return OP_FAIL(ctx, OP_ERR_USAGE, "solver xpbd: body %s has stiffness %g; compliance 1/(k v) needs k > 0",
                       body->name, body->stiffness);
    xpbd_solver *s = op_calloc(ctx, 1, sizeof *s);
    if (!s)
        return ctx->status;
    const op_graph *g = body->graph;
    size_t n = (size_t)g->particle_count, members = n + (size_t)g->adjacency_start[n];
    s->n = (int)n;
    s->h2 = h * h;
    s->group_start = op_calloc(ctx, n + 1, sizeof(int));
    s->member = op_calloc(ctx, members + 1, sizeof(int));
    s->rest_offset = op_calloc(ctx, 3 * members + 1, sizeof(double));
    s->compliance = op_calloc(ctx, members + 1, sizeof(double));
    s->group_mass = op_calloc(ctx, n + 1, sizeof(double));
    s->inverse_mass = op_calloc(ctx, n + 1, sizeof(double));
    s->lambda = op_calloc(ctx, 3 * members + 1, sizeof(double));
    s->constraint_lambda = op_calloc(ctx, 3 * (size_t)body->constraint_count + 1, sizeof(double));
    s->moment = op_calloc(ctx, 9 * n + 1, sizeof(double));
    s->group_rotation = op_calloc(ctx, 9 * n + 1, sizeof(double));
    s->quaternion = op_calloc(ctx, 4 * n + 1, sizeof(double));
    if (ctx->status != OP_OK) {
        xpbd_destroy(s);
        return ctx->status;
    }
    build_groups(s, body);
    for (int i = 0; i < s->n; ++i)
        op_rotation_quaternion(&body->state.rotation[9 * i], &s->quaternion[4 * i]);
    if (group_sweep(ctx, s, body) != OP_OK) {
        xpbd_destroy(s);
        return ctx->status;
    }
    *out = s;
    return OP_OK;
}

static int xpbd_begin_substep(op_ctx *ctx, void *self, op_body *body, double h)
{
    (void)ctx;
    xpbd_solver *s = self;
    s->h2 = h * h;
    memset(s->lambda, 0, 3 * (size_t)s->group_start[s->n] * sizeof(double));
    memset(s->constraint_lambda, 0, 3 * (size_t)body->constraint_count * sizeof(double));
    return OP_OK;
}

/* Group g's centre c and rotation R from the current positions (shape-matching's match_group);
 * R is particle g's own orientation where a pin holds it (file comment, pins). */
static void match_group(xpbd_solver *s, const op_body *body, int group, double c[3], double R[9])
{
    const double *x = body->state.position, *anchor = &x[3 * group];
    const double *mass = body->graph->mass;
    double offset[3] = { 0, 0, 0 }, d[3];
    for (int k = s->group_start[group]; k < s->group_start[group + 1]; ++k) {
        v3_sub(d, &x[3 * s->member[k]], anchor);
        v3_axpy(offset, mass[s->member[k]], d);
    }
    v3_scale(offset, offset, 1.0 / s->group_mass[group]);
    v3_add(c, anchor, offset);
    if (body->rotation_pinned[group]) {
        m3_copy(R, &body->state.rotation[9 * group]);
        return;
    }
    double A[9] = { 0 };
    for (int k = s->group_start[group]; k < s->group_start[group + 1]; ++k) {
        int j = s->member[k];
        m3_add(A, A, &s->moment[9 * j]);
        v3_sub(d, &x[3 * j], c);
        m3_add_outer(A, mass[j], d, &s->rest_offset[3 * k]);
    }
    op_polar_rotation_warm(A, &s->quaternion[4 * group], R);
    m3_copy(&s->group_rotation[9 * group], R);
}

/* One group: its goals as compliant constraints, each member projected in turn. */
static void project_group(xpbd_solver *s, op_body *body, int group)
{
    double c[3], R[9], goal[3], C[3];
    match_group(s, body, group, c, R);
    double *x = body->state.position;
    for (int k = s->group_start[group]; k < s->group_start[group + 1]; ++k) {
        int j = s->member[k];
        double w = s->inverse_mass[j];
        if (w == 0.0)
            continue;
        double tilde = s->compliance[k] / s->h2, *lambda = &s->lambda[3 * k];
        m3_mul_v(goal, R, &s->rest_offset[3 * k]);
        v3_add(goal, goal, c);
        v3_sub(C, &x[3 * j], goal);
        for (int r = 0; r < 3; ++r) {
            double step = (-C[r] - tilde * lambda[r]) / (w + tilde);
            x[3 * j + r] += w * step;
            lambda[r] += step;
        }
    }
}

/* The inverse of a symmetric A: its rows are the cross products of A's rows over det A. Returns 0
 * when A is not positive definite enough to have det A > 0. */
static int symmetric_inverse(const double A[9], double inverse[9])
{
    v3_cross(&inverse[0], &A[3], &A[6]);
    v3_cross(&inverse[3], &A[6], &A[0]);
    v3_cross(&inverse[6], &A[0], &A[3]);
    double det = v3_dot(&A[0], &inverse[0]);
    if (!(det > 0.0))
        return 0;
    m3_scale(inverse, inverse, 1.0 / det);
    return 1;
}

/* Ring `ring` as a rigid body (file comment, direction constraints): its free members' mass
 * centre and the inverse of their inertia about it. Returns 0 when nothing of it can turn. */
static int ring_inverse_inertia(const xpbd_solver *s, const op_body *body, int ring, double centre[3],
                                double inverse[9])
{
    const op_graph *g = body->graph;
    const double *x = body->state.position;
    double mass = 0.0, I[9] = { 0 }, r[3];
    v3_set(centre, 0.0, 0.0, 0.0);
    for (int k = s->group_start[ring]; k < s->group_start[ring + 1]; ++k) {
        int j = s->member[k];
        if (s->inverse_mass[j] > 0.0) {
            mass += g->mass[j];
            v3_axpy(centre, g->mass[j], &x[3 * j]);
        }
    }
    if (mass > 0.0)
        v3_scale(centre, centre, 1.0 / mass);
    for (int k = s->group_start[ring]; k < s->group_start[ring + 1]; ++k) {
        int j = s->member[k];
        if (s->inverse_mass[j] > 0.0) {
            v3_sub(r, &x[3 * j], centre);
            double spin[9];
            m3_cross_matrix(spin, r);
            m3_mul(spin, spin, spin); /* [r]×² = r rᵀ − ‖r‖² I */
            m3_axpy(I, -g->mass[j], spin);
        }
        if (!body->rotation_pinned[j]) {
            const double *Rj = &body->state.rotation[9 * j];
            double RA[9], M[9];
            m3_mul(RA, Rj, &g->rest_moment[9 * j]);
            m3_mul_bt(M, RA, Rj); /* M_j = R_j Ā_j R_jᵀ */
            double trace = m3_trace(M);
            m3_axpy(I, -g->density, M);
            for (int d = 0; d < 3; ++d)
                I[4 * d] += g->density * trace;
        }
    }
    return symmetric_inverse(I, inverse);
}

/* Turns ring `ring`'s free members about `centre` by the rotation vector `turn`. */
static void turn_ring(const xpbd_solver *s, op_body *body, int ring, const double centre[3], const double turn[3])
{
    double angle = v3_norm(turn), axis[3], Q[9], r[3];
    if (!(angle > 0.0))
        return;
    v3_scale(axis, turn, 1.0 / angle);
    op_axis_angle_matrix(axis, angle, Q);
    double *x = body->state.position, *R = body->state.rotation;
    for (int k = s->group_start[ring]; k < s->group_start[ring + 1]; ++k) {
        int j = s->member[k];
        if (s->inverse_mass[j] > 0.0) {
            v3_sub(r, &x[3 * j], centre);
            m3_mul_v(&x[3 * j], Q, r);
            v3_add(&x[3 * j], &x[3 * j], centre);
        }
        if (!body->rotation_pinned[j]) {
            double turned[9];
            m3_mul(turned, Q, &R[9 * j]);
            m3_copy(&R[9 * j], turned);
        }
    }
}

/* The unit axis a that turns u toward n (u × n normalised; for opposite vectors any axis normal
 * to u). Returns θ, the angle from u to n. */
static double turn_axis(const double u[3], const double n[3], double a[3])
{
    v3_cross(a, u, n);
    double sine = v3_norm(a), theta = atan2(sine, v3_dot(u, n));
    if (sine > 0.0) {
        v3_scale(a, a, 1.0 / sine);
        return theta;
    }
    double e[3] = { 0, 0, 0 };
    e[fabs(u[0]) <= fabs(u[1]) && fabs(u[0]) <= fabs(u[2]) ? 0 : fabs(u[1]) <= fabs(u[2]) ? 1 : 2] = 1.0;
    v3_cross(a, u, e);
    v3_scale(a, a, 1.0 / v3_norm(a));
    return theta;
}

/* One direction constraint as a compliant angular constraint on its influences' rings. */
static void project_direction(xpbd_solver *s, op_body *body, int c)
{
    const op_constraint *con = &body->constraints[c];
    double n[3], u[3], a[3], t[3];
    op_constraint_skinned_direction(body, con, n);
    double norm = v3_norm(n);
    if (!(norm > 0.0))
        return;
    v3_scale(u, n, 1.0 / norm);
    double theta = turn_axis(u, con->target, a);
    if (!(theta > 0.0))
        return;
    v3_cross(t, a, u);
    double gradient[OP_SKIN_MAX_K][3], inverse[OP_SKIN_MAX_K][9], centre[OP_SKIN_MAX_K][3], W = 0.0;
    int turns[OP_SKIN_MAX_K];
    for (int l = 0; l < con->influence_count; ++l) {
        int p = con->particle[l];
        double arm[3], scaled[3];
        turns[l] = ring_inverse_inertia(s, body, p, centre[l], inverse[l]);
        m3_mul_v(arm, &body->state.rotation[9 * p], con->rest_direction);
        v3_cross(gradient[l], arm, t);
        v3_scale(gradient[l], gradient[l], -cos(0.5 * theta) * con->influence[l] / norm);
        if (turns[l]) {
            m3_mul_v(scaled, inverse[l], gradient[l]);
            W += v3_dot(gradient[l], scaled);
        }
    }
    if (!(W > 0.0))
        return;
    double tilde = 1.0 / (con->weight * s->h2), *lambda = &s->constraint_lambda[3 * c];
    double step = (-2.0 * sin(0.5 * theta) - tilde * *lambda) / (W + tilde);
    *lambda += step;
    for (int l = 0; l < con->influence_count; ++l) {
        if (!turns[l])
            continue;
        double turn[3];
        m3_mul_v(turn, inverse[l], gradient[l]);
        v3_scale(turn, turn, step);
        turn_ring(s, body, con->particle[l], centre[l], turn);
    }
}

/* Influence l of position constraint `con`: its ring's free mass centre, inverse inertia and the
 * arm a_l of the point x_l + R_l r̄_l (file comment, position constraints), its part of K added.
 * Returns whether its ring turns. */
static int position_influence(const xpbd_solver *s, const op_body *body, const op_constraint *con, int l,
                              double centre[3], double inverse[9], double arm[3], double K[9])
{
    int p = con->particle[l];
    double w2 = con->influence[l] * con->influence[l], offset[3];
    for (int d = 0; d < 3; ++d)
        K[4 * d] += w2 * s->inverse_mass[p];
    int turns = ring_inverse_inertia(s, body, p, centre, inverse);
    v3_set(arm, 0.0, 0.0, 0.0);
    if (s->inverse_mass[p] > 0.0)
        v3_sub(arm, &body->state.position[3 * p], centre);
    if (!body->rotation_pinned[p]) {
        v3_sub(offset, con->rest_point, &body->graph->rest_position[3 * p]);
        m3_mul_v(offset, &body->state.rotation[9 * p], offset);
        v3_add(arm, arm, offset);
    }
    if (turns) { /* [a]×ᵀ I⁻¹ [a]× = −[a]× I⁻¹ [a]× */
        double spin[9], left[9], both[9];
        m3_cross_matrix(spin, arm);
        m3_mul(left, spin, inverse);
        m3_mul(both, left, spin);
        m3_axpy(K, -w2, both);
    }
    return turns;
}

/* One position constraint on its influences' centres and rings (file comment, position
 * constraints): the vector multiplier's step from the 3 × 3 system (K + α̃ I) Δλ = −C − α̃ λ. */
static void project_position(xpbd_solver *s, op_body *body, int c)
{
    const op_constraint *con = &body->constraints[c];
    double arm[OP_SKIN_MAX_K][3], inverse[OP_SKIN_MAX_K][9], centre[OP_SKIN_MAX_K][3], K[9] = { 0 };
    int turns[OP_SKIN_MAX_K];
    for (int l = 0; l < con->influence_count; ++l)
        turns[l] = position_influence(s, body, con, l, centre[l], inverse[l], arm[l], K);
    if (!(m3_trace(K) > 0.0)) /* nothing it acts on can move */
        return;
    double tilde = 1.0 / (con->weight * s->h2), *lambda = &s->constraint_lambda[3 * c], v[3], rhs[3], step[3],
           solve[9];
    for (int d = 0; d < 3; ++d)
        K[4 * d] += tilde;
    if (!symmetric_inverse(K, solve))
        return;
    op_constraint_skinned_point(body, con, v);
    for (int r = 0; r < 3; ++r)
        rhs[r] = -(v[r] - con->target[r]) - tilde * lambda[r];
    m3_mul_v(step, solve, rhs);
    v3_add(lambda, lambda, step);
    for (int l = 0; l < con->influence_count; ++l) {
        int p = con->particle[l];
        double turn[3];
        if (turns[l]) {
            v3_cross(turn, arm[l], step);
            m3_mul_v(turn, inverse[l], turn);
            v3_scale(turn, turn, con->influence[l]);
            turn_ring(s, body, p, centre[l], turn);
        }
        v3_axpy(&body->state.position[3 * p], con->influence[l] * s->inverse_mass[p], step);
    }
}

static void project_constraints(xpbd_solver *s, op_body *body)
{
    for (int c = 0; c < body->constraint_count; ++c)
        if (body->constraints[c].kind == OP_CONSTRAINT_DIRECTION)
            project_direction(s, body, c);
    for (int c = 0; c < body->constraint_count; ++c)
        if (body->constraints[c].kind == OP_CONSTRAINT_POSITION)
            project_position(s, body, c);
}

static int xpbd_iterate(op_ctx *ctx, void *self, op_body *body, double h, op_stage_times *times)
{
    (void)ctx, (void)h;
    xpbd_solver *s = self;
    const op_graph *g = body->graph;
    double start = op_now();
    for (int j = 0; j < s->n; ++j) {
        m3_mul(&s->moment[9 * j], &body->state.rotation[9 * j], &g->rest_moment[9 * j]);
        m3_scale(&s->moment[9 * j], &s->moment[9 * j], g->density);
    }
    for (int p = 0; p < s->sweep.count; ++p)
        project_group(s, body, s->sweep.order[p]);
    for (int i = 0; i < s->n; ++i)
        if (!body->rotation_pinned[i])
            m3_copy(&body->state.rotation[9 * i], &s->group_rotation[9 * i]);
    double middle = op_now();
    project_constraints(s, body);
    times->local += middle - start;
    times->global += op_now() - middle;
    return OP_OK;
}

/* The rotations are read afresh every iteration: nothing to re-derive. */
static int xpbd_resync(op_ctx *ctx, void *self, op_body *body, double h)
{
    (void)ctx, (void)self, (void)body, (void)h;
    return OP_OK;
}

const op_solver_type op_solver_xpbd = {
    .name = "xpbd",
    .summary = "XPBD: the one-ring shape-matching goals as compliant constraints, compliance 1/(k v)",
    .source = "Macklin, Müller & Chentanez 2016",
    .options = xpbd_options,
    .create = xpbd_create,
    .begin_substep = xpbd_begin_substep,
    .iterate = xpbd_iterate,
    .destroy = xpbd_destroy,
    .resync = xpbd_resync,
};
