/* springs: a spring on every edge of the particle graph, integrated by implicit Euler with
 * conjugate gradients: Vogiannou, Moustakas, Tzovaras, Strintzis 2010, "A practical approach for
 * applying non-linear dynamics to particle systems" (papers/vogiannou-2010-*), in the time
 * integration of Baraff & Witkin 1998.
 *
 * Springs. Edge e = (i, j), rest length L = ‖x̄_i − x̄_j‖, current length ℓ, u = (x_i − x_j)/ℓ.
 * The force on i is f_i = −g(ℓ) u, on j −f_i, with the force magnitude g of option `force`:
 *   linear   g = K (ℓ − L)
 *   cubic2   g = K/(2L²) ℓ³ − K/2 ℓ              (Eq. 1: the two-term StVK cubic of Kikuuwe et al.)
 *   cubic    g = a ℓ³ + b ℓ² + c ℓ + d          (Eq. 2), a, b, c, d from the four conditions
 *            g(L) = 0, g'(L) = K, g'(a₁L) = K₁, g'(a₂L) = K₂  (Eq. 4–8), solved in closed form
 *            once per edge (op_spring_make: in s = ℓ/L, differences of the last three rows give
 *            two equations in the s³ and s² coefficients alone).
 * All three are cubics in ℓ, so one evaluation serves them (op_spring_edge_eval); the force's
 * Jacobian is the 3 × 3 block −∂f_i/∂x_i = g'(ℓ) u uᵀ + g(ℓ)/ℓ (I − u uᵀ) (Eq. 3 and 9 written in
 * a, b, c, d), on the diagonal blocks of i and j and with the opposite sign on (i, j) and (j, i):
 * the full Jacobian, not a diagonal approximation. Damping (option `damping`, N s/m): the
 * relative-velocity force −k_d (v_i − v_j) of the paper's Sec. 4.1, on every edge.
 *
 * Stiffness. K per edge: option `stiffness` in N/m for every edge of every body; `body_edge`: the
 * body's `stiffness` value read as K in N/m for each of its edges (a scene with bodies of
 * different K, such as a soft cube under a stiff one); or `body` (the default),
 * K_e = k (v_i + v_j) from the body's ARAP stiffness k (kg/(m³ s²), include/opsim/body.h): the
 * stiffness that ARAP's position term k/2 Σ_i Σ_{j∈N_i} v_j ‖R_i(x̄_j − x̄_i) − (x_j − x_i)‖² gives
 * a stretch along the edge (the edge appears in i's sum with v_j and in j's with v_i), so that
 * every existing scene runs with springs of the same order as its ARAP body. K₁ = k1 K_e and
 * K₂ = k2 K_e (options `k1`, `k2`: multiples of K, the paper's way of writing them).
 *
 * The paper's Jacobian damping (Sec. 4, Fig. 3). Solving Eq. 8 gives b < 0 and d < 0, and the
 * Jacobian's terms in b and d (the transverse d/ℓ (I − u uᵀ) above all) can make the system
 * indefinite and let the cloth oscillate out of plane; the paper reduces |b| and |d| "by a small
 * percentage" (to 99 %) in the Jacobian only. Option `jacobian_damping` = that fraction (0.01:
 * the paper's; 0, the default: the exact Jacobian). It applies to every law's b and d (the linear
 * spring's d = −KL is its transverse term −KL/ℓ; the two-term cubic has none). The damping
 * leaves the equation's solution alone and changes only the Newton steps toward it, and at rest
 * (g(L) = 0, where the exact transverse stiffness g/ℓ is 0) it gives every edge the transverse
 * stiffness −0.01 (b L² + d)/L: 3.81 K at the default cubic (a₁ = 1.1, a₂ = 0.9, K₁ = 6K,
 * K₂ = 2K), 0.01 K for the linear spring. A Newton step then resists any turn of an edge as a
 * stretch, so the few steps of a sub-step take a free body's rotation away: the spinning dinosaur
 * of experiments/freeflight.ini keeps 0.09 of the rigid reference's angular momentum after one
 * frame at 3 Newton steps a sub-step and still only 0.77 at 100, where the exact Jacobian keeps
 * it to 0.6 % after 1 s from 3 steps on (`make freeflight`'s springs-newton.tsv). Hence the
 * default 0. The configs
 * of Vogiannou's own scenes (experiments/springs-*.ini) set the paper's 0.01: they reproduce its
 * figures, and its flat, structural-only cloth needs it (the exact Jacobian has no out-of-plane
 * stiffness at rest, and CG then fails to converge on the ball scene at sub-step 14).
 *
 * Implicit Euler inside the world's sub-step (include/opsim/world.h). Baraff & Witkin's step is
 *   (M − h ∂f/∂v − h² ∂f/∂x) Δv = h (f₀ + h ∂f/∂x v₀),  v₁ = v₀ + Δv,  x₁ = x₀ + h v₁,
 * with f₀ = f(x₀, v₀) including gravity. Written in x₁ it is the linearisation of
 *   M (x₁ − y)/h² = f_s(x₁) + f_d((x₁ − x₀)/h),   y = x₀ + h v₀ + h² g,
 * (f_s springs, f_d = D v the damping, linear in v, D = ∂f/∂v), because M (v₁ − v₀)/h − M g =
 * M (x₁ − y)/h². y is the world's prediction (body->inertial_position): gravity enters only
 * there, and the solver never needs g. One `iterate` is one Newton step on this equation from
 * the point x̂, with K = ∂f_s/∂x at x̂:
 *   (M − h D − h² K) δ = M (y − x̂) + h² f_s(x̂) + h D (x̂ − x₀),   x ← x̂ + δ.
 * The first step of a sub-step starts from x̂ = x₀ (body->start_position; the world's x ← y is
 * overwritten), which makes it exactly Baraff & Witkin's step: with x̂ = x₀ the damping term
 * vanishes and M (y − x₀) = h M v₀ + h² M g, so δ = h (v₀ + Δv) (checked to round-off in
 * tests/test_springs.c). Later steps (`[world] iterations` > 1) start from the current x: Newton
 * on implicit Euler, the paper's scheme being 1. The world then sets v = (x − x₀)/h = v₁.
 * Position-pinned particles are eliminated (Baraff & Witkin's filtered CG: their rows and
 * columns are dropped, δ_i = 0, so they stay where the world holds them).
 *
 * Position constraints (Eq. 13) enter as the energy the harness measures, w/2 ‖v(x) − v_c‖² with
 * v(x) = Σ_l w_l (R_l (v̄ − x̄_l) + x_l) at the rotations of the step's start: a force
 * −w w_l (v − v_c) on each influence l and the Jacobian blocks −w w_l w_m I. Direction
 * constraints (Eq. 15) act on rotations, which springs do not have as unknowns: create refuses
 * them, naming the body and constraint.
 *
 * Definiteness (option `definite`). The edge block has eigenvalues g' (along u) and g/ℓ (twice,
 * across): a compressed spring (g < 0) has negative transverse stiffness, and the two-term
 * cubic below L/√3 a negative g'. The paper keeps these terms (damped as above); the system
 * M − h D − h² K is then indefinite as soon as h² |g|/ℓ outgrows the masses, which a body
 * landing on the floor reaches (fig5's dinosaur at its first contact). definite = on (the
 * default, our departure) clamps along and across at 0 in the Jacobian only, the block's
 * projection onto the positive semi-definite cone, so every existing scene runs; definite = off
 * is the paper's Jacobian, for its Fig. 3.
 *
 * Conjugate gradients (options `cg_iterations`, `cg_tolerance`). The matrix M − h D − h² K is
 * symmetric, positive definite while every edge block is; CG with Jacobi (diagonal) preconditioning, as Baraff & Witkin, from δ = 0,
 * until ‖r‖ ≤ cg_tolerance ‖b‖. A direction of non-positive curvature (the system is indefinite)
 * or cg_iterations without convergence fails the step with an error naming the body, the
 * sub-step and the Newton step; the body keeps the finite x̂. After CG, one Galerkin correction
 * on the free particles' common translation T (TᵀAT c = Tᵀ(b − Aδ), a 3 × 3 solve): the
 * residual's net force vanishes, so a free body's linear momentum is conserved to round-off
 * whatever the tolerance. The products (option `matrix`):
 *   assembled  each edge's block h² K_e + h k_d I formed once per Newton step (9 numbers)
 *   free       matrix-free: the block applied as across d + (along − across) u (u·d) from the
 *              edge's u, along and across kept from the force evaluation (5 numbers)
 * experiments/springs.mk's timing table measures both: they differ by less than the noise of a
 * shared machine (REPORT.md), so assembled stays the default. The CG iterations of each Newton
 * step are added to the counter linear_iterations (sp_counters, solver.h), which the run file
 * records per sub-step.
 *
 * Orientations (skinning and the energy yardstick need R_i). After every Newton step, each
 * free orientation is the polar rotation of its one ring's deformation, as shape matching's
 * A_pq: R_i = polar(ρ Y_i Ā_i + Σ_{j∈N_i} m_j (x_j − x_i)(x̄_j − x̄_i)ᵀ). The particle's own
 * predicted ellipsoid moment ρ Y_i Ā_i (Y_i = R_i + h Ṙ_i, the world's prediction) is a small
 * regulariser (about 1/20 of one neighbour's term) that fixes the rotation about a direction the
 * ring does not span: a chain's particle (the bar) has a collinear ring and would otherwise twist
 * freely; a sheet's particle a flat one. The springs ignore the orientations.
 *
 * Stage times: `local` = forces, Jacobian and orientations; `global` = conjugate gradients.
 * Nothing here writes files or computes reported energies. */
#include "springs.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/math3.h"
#include "kernels/polar.h"
#include "base/timer.h"

enum { SP_ASSEMBLED = 0, SP_FREE = 1 };
/* the stiffness option's two words, kept in sp_solver.stiffness where a number is positive */
static const double SP_FROM_K = 0.0, SP_BODY_EDGE = -1.0;

static const op_solver_option sp_options[] = {
    { "force", "cubic", "spring force: cubic (the paper's full cubic, Eq. 2-8), cubic2 (two-term StVK cubic, "
                        "Eq. 1) or linear" },
    { "stiffness", "body", "spring stiffness K in N/m for every edge; body: K = k (v_i + v_j) from the body's "
                           "stiffness k (kg/(m^3 s^2)); body_edge: the body's stiffness value is K in N/m" },
    { "a1", "1.1", "full cubic: stretch ratio a1 > 1 where g'(a1 L) = K1" },
    { "a2", "0.9", "full cubic: compression ratio a2 in (0, 1) where g'(a2 L) = K2" },
    { "k1", "6", "full cubic: K1 as a multiple of K (> 0)" },
    { "k2", "2", "full cubic: K2 as a multiple of K (> 0)" },
    { "damping", "0", "relative-velocity damping k_d >= 0 on every edge, N s/m" },
    { "jacobian_damping", "0", "fraction in [0, 1) by which |b| and |d| are reduced in the Jacobian only "
                               "(0 = the exact Jacobian; the paper's Sec. 4: 0.01, which turns a free body's "
                               "spin away at few Newton steps)" },
    { "definite", "on", "on: each edge's Jacobian block clamped to positive semi-definite (g' and g/l at >= 0), so "
                        "the system is always positive definite; off: the paper's Jacobian, which may be indefinite" },
    { "cg_iterations", "1000", "conjugate-gradient iterations allowed per Newton step (>= 1); "
                               "not converging is an error" },
    { "cg_tolerance", "1e-8", "CG stops when |r| <= cg_tolerance |b|, in (0, 1)" },
    { "matrix", "assembled", "CG products: assembled (3x3 block per edge) or free (matrix-free from u, g, g')" },
    { NULL, NULL, NULL },
};

/* ---- the force laws ---------------------------------------------------------------------- */

int op_spring_make(op_ctx *ctx, op_spring_law law, double rest_length, double stiffness, const op_spring_shape *shape,
                   op_spring *spring)
{
    double L = rest_length, K = stiffness;
    if (!(isfinite(L) && L > 0) || !(isfinite(K) && K > 0))
        return OP_FAIL(ctx, OP_ERR_INVALID, "spring: rest length %g and stiffness %g must be positive", L, K);
    spring->rest_length = L;
    switch (law) {
    case OP_SPRING_LINEAR:
        spring->A = spring->B = 0.0;
        spring->C = K * L;
        spring->D = -K * L;
        return OP_OK;
    case OP_SPRING_CUBIC2:
        spring->A = 0.5 * K * L;
        spring->B = 0.0;
        spring->C = -0.5 * K * L;
        spring->D = 0.0;
        return OP_OK;
    case OP_SPRING_CUBIC:
        break;
    }
    double a1 = shape->a1, a2 = shape->a2;
    if (!(isfinite(a1) && a1 > 1.0) || !(isfinite(a2) && a2 > 0.0 && a2 < 1.0))
        return OP_FAIL(ctx, OP_ERR_USAGE, "solver springs: options a1 = %g and a2 = %g must satisfy 0 < a2 < 1 < a1",
                       a1, a2);
    if (!(isfinite(shape->k1) && shape->k1 > 0) || !(isfinite(shape->k2) && shape->k2 > 0))
        return OP_FAIL(ctx, OP_ERR_USAGE, "solver springs: options k1 = %g and k2 = %g must be positive", shape->k1,
                       shape->k2);
    /* In s = ℓ/L, g'(ℓ) = (3A s² + 2B s + C)/L, so Eq. 8's rows are
     *   A + B + C + D = 0,  3A + 2B + C = K L,  3a₁²A + 2a₁B + C = K₁L,  3a₂²A + 2a₂B + C = K₂L.
     * Row 3 minus row 2 over (a₁ − 1): 3(a₁ + 1)A + 2B = P; likewise row 4: 3(a₂ + 1)A + 2B = Q. */
    double P = (shape->k1 - 1.0) * K * L / (a1 - 1.0), Q = (shape->k2 - 1.0) * K * L / (a2 - 1.0);
    double A = (P - Q) / (3.0 * (a1 - a2));
    double B = 0.5 * (P - 3.0 * (a1 + 1.0) * A);
    double C = K * L - 3.0 * A - 2.0 * B;
    spring->A = A;
    spring->B = B;
    spring->C = C;
    spring->D = -(A + B + C);
    return OP_OK;
}

double op_spring_magnitude(const op_spring *spring, double length)
{
    double s = length / spring->rest_length;
    return ((spring->A * s + spring->B) * s + spring->C) * s + spring->D;
}

double op_spring_slope(const op_spring *spring, double length)
{
    double s = length / spring->rest_length;
    return ((3.0 * spring->A * s + 2.0 * spring->B) * s + spring->C) / spring->rest_length;
}

double op_spring_energy(const op_spring *spring, double length)
{
    /* L ∫_1^s (A t³ + B t² + C t + D) dt, each power difference factored through (s − 1) so that
     * the energy near rest keeps its digits */
    double s = length / spring->rest_length, e = s - 1.0;
    double s2 = s * s;
    double d4 = e * (s + 1.0) * (s2 + 1.0), d3 = e * (s2 + s + 1.0), d2 = e * (s + 1.0);
    return spring->rest_length * (spring->A * d4 / 4.0 + spring->B * d3 / 3.0 + spring->C * d2 / 2.0 + spring->D * e);
}

void op_spring_coefficients(const op_spring *spring, double abcd[4])
{
    double L = spring->rest_length;
    abcd[0] = spring->A / (L * L * L);
    abcd[1] = spring->B / (L * L);
    abcd[2] = spring->C / L;
    abcd[3] = spring->D;
}

op_spring op_spring_damped_jacobian(const op_spring *spring, double damping)
{
    op_spring damped = *spring;
    damped.B *= 1.0 - damping;
    damped.D *= 1.0 - damping;
    return damped;
}

void op_spring_edge_eval(const op_spring *spring, const op_spring *jacobian, const double xi[3], const double xj[3],
                         op_spring_edge *edge)
{
    double d[3];
    v3_sub(d, xi, xj);
    double length = v3_norm(d);
    edge->length = length;
    if (!(length > 0.0)) {
        v3_set(edge->direction, 0, 0, 0);
        v3_set(edge->force, 0, 0, 0);
        edge->along = edge->across = op_spring_slope(jacobian, 0.0);
        return;
    }
    v3_scale(edge->direction, d, 1.0 / length);
    v3_scale(edge->force, edge->direction, -op_spring_magnitude(spring, length));
    edge->along = op_spring_slope(jacobian, length);
    edge->across = op_spring_magnitude(jacobian, length) / length;
}

void op_spring_edge_block(const op_spring_edge *edge, double block[9])
{
    m3_identity(block);
    m3_scale(block, block, edge->across);
    m3_add_outer(block, edge->along - edge->across, edge->direction, edge->direction);
}

/* ---- the variant ------------------------------------------------------------------------- */

typedef struct sp_solver {
    /* options */
    op_spring_law law;
    op_spring_shape shape;
    double stiffness; /* N/m for every edge, or SP_FROM_K: K_e = k (v_i + v_j), or SP_BODY_EDGE: K_e = k */
    double damping, jacobian_damping, cg_tolerance;
    int cg_iterations, matrix, definite;
    /* the springs, fixed for the run */
    int n, edge_count;
    int *edge;               /* [E][2] i < j */
    op_spring *spring;       /* [E] */
    op_spring *jacobian;     /* [E] the damped Jacobian springs */
    /* per Newton step */
    double *direction;       /* [E][3] u */
    double *along, *across;  /* [E] h² g'_J + h k_d and h² g_J/ℓ + h k_d: the system's edge block */
    double *block;           /* [E][9] matrix = assembled */
    double *inverse_diagonal; /* [n][3] Jacobi preconditioner, 0 on pinned rows */
    double *rhs, *delta, *residual, *search, *product, *preconditioned; /* [n][3] */
    double *translation[3];  /* [n][3] A applied to the free particles' translation along axis k */
    double *quaternion;      /* [n][4] each orientation's last rotation: the warm start of its polar */
    double *constraint_weight; /* [constraints] 1 for a position constraint (0 otherwise) */
    long substep;            /* sub-steps begun, for error messages */
    int newton;              /* Newton steps taken in this sub-step */
} sp_solver;

static void sp_destroy(void *self)
{
    sp_solver *s = self;
    if (!s)
        return;
    free(s->edge);
    free(s->spring);
    free(s->jacobian);
    free(s->direction);
    free(s->along);
    free(s->across);
    free(s->block);
    free(s->inverse_diagonal);
    free(s->rhs);
    free(s->delta);
    free(s->residual);
    free(s->search);
    free(s->product);
    free(s->preconditioned);
    for (int k = 0; k < 3; ++k)
        free(s->translation[k]);
    free(s->quaternion);
    free(s->constraint_weight);
    free(s);
}

/* A number in (lo, hi) or [lo, hi) etc.: op_solver_setting_double's closed range, then the
 * open ends; the message names the option. */
static int setting_open(op_ctx *ctx, const op_solver_settings *settings, const char *key, double lo, double hi,
                        int lo_open, int hi_open, double *out)
{
    op_ctx inner;
    op_ctx_init(&inner);
    if (op_solver_setting_double(&inner, settings, key, lo, hi, out) != OP_OK || (lo_open && !(*out > lo)) ||
        (hi_open && !(*out < hi))) {
        const char *text = op_solver_setting(settings, key);
        return OP_FAIL(ctx, OP_ERR_USAGE, "solver springs: option %s = '%s' must be a number in %c%g, %g%c", key,
                       text ? text : "(missing)", lo_open ? '(' : '[', lo, hi, hi_open ? ')' : ']');
    }
    return OP_OK;
}

static int read_options(op_ctx *ctx, const op_solver_settings *settings, sp_solver *s)
{
    int law;
    op_ctx inner;
    op_ctx_init(&inner);
    if (op_solver_setting_choice(ctx, settings, "force", "linear|cubic2|cubic", &law) != OP_OK)
        return ctx->status;
    s->law = (op_spring_law)law;
    const char *stiffness = op_solver_setting(settings, "stiffness");
    if (stiffness && strcmp(stiffness, "body") == 0)
        s->stiffness = SP_FROM_K;
    else if (stiffness && strcmp(stiffness, "body_edge") == 0)
        s->stiffness = SP_BODY_EDGE;
    else if (setting_open(&inner, settings, "stiffness", 0.0, INFINITY, 1, 1, &s->stiffness) != OP_OK)
        return OP_FAIL(ctx, OP_ERR_USAGE, "solver springs: option stiffness = '%s' must be body, body_edge or a number > 0 (N/m)",
                       stiffness ? stiffness : "(missing)");
    if (setting_open(ctx, settings, "a1", 1.0, INFINITY, 1, 1, &s->shape.a1) != OP_OK ||
        setting_open(ctx, settings, "a2", 0.0, 1.0, 1, 1, &s->shape.a2) != OP_OK ||
        setting_open(ctx, settings, "k1", 0.0, INFINITY, 1, 1, &s->shape.k1) != OP_OK ||
        setting_open(ctx, settings, "k2", 0.0, INFINITY, 1, 1, &s->shape.k2) != OP_OK ||
        setting_open(ctx, settings, "damping", 0.0, INFINITY, 0, 1, &s->damping) != OP_OK ||
        setting_open(ctx, settings, "jacobian_damping", 0.0, 1.0, 0, 1, &s->jacobian_damping) != OP_OK ||
        setting_open(ctx, settings, "cg_tolerance", 0.0, 1.0, 1, 1, &s->cg_tolerance) != OP_OK ||
        op_solver_setting_int(ctx, settings, "cg_iterations", 1, 100000000, &s->cg_iterations) != OP_OK ||
        op_solver_setting_choice(ctx, settings, "matrix", "assembled|free", &s->matrix) != OP_OK ||
        op_solver_setting_choice(ctx, settings, "definite", "off|on", &s->definite) != OP_OK)
        return ctx->status;
    return OP_OK;
}

static int make_springs(op_ctx *ctx, sp_solver *s, const op_body *body)
{
    const op_graph *g = body->graph;
    s->edge_count = g->edge_count;
    size_t E = (size_t)s->edge_count;
    s->edge = op_calloc(ctx, 2 * E, sizeof(int));
    s->spring = op_calloc(ctx, E, sizeof(op_spring));
    s->jacobian = op_calloc(ctx, E, sizeof(op_spring));
    if (ctx->status != OP_OK)
        return ctx->status;
    op_graph_edges(g, s->edge);
    for (int e = 0; e < s->edge_count; ++e) {
        int i = s->edge[2 * e], j = s->edge[2 * e + 1];
        double K = s->stiffness > 0                ? s->stiffness
                   : s->stiffness == SP_BODY_EDGE ? body->stiffness
                                                  : body->stiffness * (g->volume[i] + g->volume[j]);
        double L = sqrt(v3_dist2(&g->rest_position[3 * i], &g->rest_position[3 * j]));
        if (op_spring_make(ctx, s->law, L, K, &s->shape, &s->spring[e]) != OP_OK)
            return OP_FAIL(ctx, ctx->status, "solver springs: body %s, edge %d-%d: %s", body->name, i, j, ctx->message);
        s->jacobian[e] = op_spring_damped_jacobian(&s->spring[e], s->jacobian_damping);
    }
    return OP_OK;
}

static int sp_create(op_ctx *ctx, const op_solver_settings *settings, op_body *body, double h, void *const *twins,
                     int twin_count, void **out)
{
    (void)twins; /* a body's springs are cheap to make: nothing is shared */
    (void)twin_count;
    (void)h;
    *out = NULL;
    for (int c = 0; c < body->constraint_count; ++c)
        if (body->constraints[c].kind == OP_CONSTRAINT_DIRECTION)
            return OP_FAIL(ctx, OP_ERR_USAGE,
                           "solver springs: body %s has a direction constraint (constraint %d, vertex %d); springs "
                           "act on positions only and support position constraints and pins",
                           body->name, c, body->constraints[c].vertex);
    sp_solver *s = op_calloc(ctx, 1, sizeof *s);
    if (!s)
        return ctx->status;
    s->n = body->graph->particle_count;
    if (read_options(ctx, settings, s) != OP_OK || make_springs(ctx, s, body) != OP_OK) {
        sp_destroy(s);
        return ctx->status;
    }
    size_t n = (size_t)s->n, E = (size_t)s->edge_count;
    s->direction = op_calloc(ctx, 3 * E, sizeof(double));
    s->along = op_calloc(ctx, E, sizeof(double));
    s->across = op_calloc(ctx, E, sizeof(double));
    s->block = s->matrix == SP_ASSEMBLED ? op_calloc(ctx, 9 * E, sizeof(double)) : NULL;
    s->inverse_diagonal = op_calloc(ctx, 3 * n, sizeof(double));
    s->rhs = op_calloc(ctx, 3 * n, sizeof(double));
    s->delta = op_calloc(ctx, 3 * n, sizeof(double));
    s->residual = op_calloc(ctx, 3 * n, sizeof(double));
    s->search = op_calloc(ctx, 3 * n, sizeof(double));
    s->product = op_calloc(ctx, 3 * n, sizeof(double));
    s->preconditioned = op_calloc(ctx, 3 * n, sizeof(double));
    for (int k = 0; k < 3; ++k)
        s->translation[k] = op_calloc(ctx, 3 * n, sizeof(double));
    s->quaternion = op_calloc(ctx, 4 * n, sizeof(double));
    if (ctx->status != OP_OK) {
        sp_destroy(s);
        return ctx->status;
    }
    for (int i = 0; i < s->n; ++i)
        op_rotation_quaternion(&body->state.rotation[9 * i], &s->quaternion[4 * i]);
    *out = s;
    return OP_OK;
}

static int sp_begin_substep(op_ctx *ctx, void *self, op_body *body, double h)
{
    (void)ctx, (void)body, (void)h;
    sp_solver *s = self;
    s->substep++;
    s->newton = 0;
    return OP_OK;
}

/* q = A p on the free rows (pinned rows 0), A = M − h D − h² K + the constraints' h² w w_l w_m I. */
static void apply_system(const sp_solver *s, const op_body *body, double h, const double *p, double *q)
{
    const double *mass = body->graph->mass;
    for (int i = 0; i < s->n; ++i)
        v3_scale(&q[3 * i], &p[3 * i], mass[i]);
    for (int e = 0; e < s->edge_count; ++e) {
        int i = s->edge[2 * e], j = s->edge[2 * e + 1];
        double d[3], t[3];
        v3_sub(d, &p[3 * i], &p[3 * j]);
        if (s->matrix == SP_ASSEMBLED) {
            m3_mul_v(t, &s->block[9 * e], d);
        } else {
            const double *u = &s->direction[3 * e];
            v3_scale(t, d, s->across[e]);
            v3_axpy(t, (s->along[e] - s->across[e]) * v3_dot(u, d), u);
        }
        v3_add(&q[3 * i], &q[3 * i], t);
        v3_sub(&q[3 * j], &q[3 * j], t);
    }
    for (int c = 0; c < body->constraint_count; ++c) {
        const op_constraint *con = &body->constraints[c];
        double sum[3] = { 0, 0, 0 };
        for (int l = 0; l < con->influence_count; ++l)
            v3_axpy(sum, con->influence[l], &p[3 * con->particle[l]]);
        for (int l = 0; l < con->influence_count; ++l)
            v3_axpy(&q[3 * con->particle[l]], h * h * con->weight * con->influence[l], sum);
    }
    for (int i = 0; i < s->n; ++i)
        if (body->position_pinned[i])
            v3_set(&q[3 * i], 0, 0, 0);
}

static double dot(const double *a, const double *b, int count)
{
    double sum = 0.0;
    for (int k = 0; k < count; ++k)
        sum += a[k] * b[k];
    return sum;
}

/* The right-hand side M (y − x̂) + h² f(x̂) + h D (x̂ − x₀) (f: springs and constraints), the
 * edges' system blocks and the preconditioner, at x̂ = the body's positions. */
static int linearise(op_ctx *ctx, sp_solver *s, const op_body *body, double h)
{
    const op_graph *g = body->graph;
    const double *x = body->state.position, *x0 = body->start_position, *y = body->inertial_position;
    double h2 = h * h, hd = h * s->damping;
    double *diagonal = s->inverse_diagonal;
    for (int i = 0; i < s->n; ++i) {
        v3_sub(&s->rhs[3 * i], &y[3 * i], &x[3 * i]);
        v3_scale(&s->rhs[3 * i], &s->rhs[3 * i], g->mass[i]);
        v3_set(&diagonal[3 * i], g->mass[i], g->mass[i], g->mass[i]);
    }
    for (int e = 0; e < s->edge_count; ++e) {
        int i = s->edge[2 * e], j = s->edge[2 * e + 1];
        op_spring_edge edge;
        op_spring_edge_eval(&s->spring[e], &s->jacobian[e], &x[3 * i], &x[3 * j], &edge);
        double t[3], wi[3], wj[3];
        v3_scale(t, edge.force, h2);
        v3_sub(wi, &x[3 * i], &x0[3 * i]);
        v3_sub(wj, &x[3 * j], &x0[3 * j]);
        v3_sub(wi, wi, wj); /* the edge's (x̂ − x₀)_i − (x̂ − x₀)_j */
        v3_axpy(t, -hd, wi);
        v3_add(&s->rhs[3 * i], &s->rhs[3 * i], t);
        v3_sub(&s->rhs[3 * j], &s->rhs[3 * j], t);
        v3_copy(&s->direction[3 * e], edge.direction);
        if (s->definite) {
            edge.along = op_max(edge.along, 0.0);
            edge.across = op_max(edge.across, 0.0);
        }
        s->along[e] = h2 * edge.along + hd;
        s->across[e] = h2 * edge.across + hd;
        const double *u = edge.direction;
        for (int k = 0; k < 3; ++k) {
            double entry = s->across[e] + (s->along[e] - s->across[e]) * u[k] * u[k];
            diagonal[3 * i + k] += entry;
            diagonal[3 * j + k] += entry;
        }
        if (s->matrix == SP_ASSEMBLED) {
            op_spring_edge system = { .along = s->along[e], .across = s->across[e] };
            v3_copy(system.direction, u);
            op_spring_edge_block(&system, &s->block[9 * e]);
        }
    }
    for (int c = 0; c < body->constraint_count; ++c) {
        const op_constraint *con = &body->constraints[c];
        double v[3], error[3];
        op_constraint_skinned_point(body, con, v);
        v3_sub(error, v, con->target);
        for (int l = 0; l < con->influence_count; ++l) {
            int p = con->particle[l];
            double w = con->weight * con->influence[l];
            v3_axpy(&s->rhs[3 * p], -h2 * w, error);
            for (int k = 0; k < 3; ++k)
                diagonal[3 * p + k] += h2 * w * con->influence[l];
        }
    }
    for (int i = 0; i < s->n; ++i) {
        if (body->position_pinned[i]) {
            v3_set(&s->rhs[3 * i], 0, 0, 0);
            v3_set(&diagonal[3 * i], 0, 0, 0);
            continue;
        }
        for (int k = 0; k < 3; ++k)
            diagonal[3 * i + k] = 1.0 / diagonal[3 * i + k];
    }
    for (int k = 0; k < 3 * s->n; ++k)
        if (!isfinite(s->rhs[k]) || !isfinite(diagonal[k]))
            return OP_FAIL(ctx, OP_ERR_INVALID,
                           "solver springs: body %s, sub-step %ld, Newton step %d: non-finite force at particle %d",
                           body->name, s->substep, s->newton + 1, k / 3);
    return OP_OK;
}

/* Jacobi-preconditioned CG on A δ = b from δ = 0 (filtered: pinned rows stay 0); the iterations
 * used into *used. */
static int conjugate_gradients(op_ctx *ctx, sp_solver *s, const op_body *body, double h, int *used)
{
    int count = 3 * s->n;
    double *r = s->residual, *z = s->preconditioned, *p = s->search, *q = s->product, *x = s->delta;
    memset(x, 0, (size_t)count * sizeof(double));
    memcpy(r, s->rhs, (size_t)count * sizeof(double));
    double target = s->cg_tolerance * sqrt(dot(r, r, count));
    *used = 0;
    if (!(target > 0.0))
        return OP_OK; /* b = 0: δ = 0 */
    for (int k = 0; k < count; ++k)
        z[k] = s->inverse_diagonal[k] * r[k];
    memcpy(p, z, (size_t)count * sizeof(double));
    double rz = dot(r, z, count), norm = 0.0;
    for (int it = 1; it <= s->cg_iterations; ++it) {
        apply_system(s, body, h, p, q);
        double curvature = dot(p, q, count);
        if (!(curvature > 0.0))
            return OP_FAIL(ctx, OP_ERR_INVALID,
                           "solver springs: body %s, sub-step %ld, Newton step %d: the system is not positive "
                           "definite (CG iteration %d found curvature %g; definite = on clamps it; or lower h)",
                           body->name, s->substep, s->newton + 1, it, curvature);
        double alpha = rz / curvature;
        for (int k = 0; k < count; ++k) {
            x[k] += alpha * p[k];
            r[k] -= alpha * q[k];
        }
        norm = sqrt(dot(r, r, count));
        if (norm <= target) {
            *used = it;
            return OP_OK;
        }
        for (int k = 0; k < count; ++k)
            z[k] = s->inverse_diagonal[k] * r[k];
        double rz_next = dot(r, z, count), beta = rz_next / rz;
        rz = rz_next;
        for (int k = 0; k < count; ++k)
            p[k] = z[k] + beta * p[k];
    }
    return OP_FAIL(ctx, OP_ERR_INVALID,
                   "solver springs: body %s, sub-step %ld, Newton step %d: conjugate gradients did not converge in "
                   "cg_iterations = %d (relative residual %.3g > cg_tolerance %g); the system's condition grows "
                   "with h^2 K over the masses: raise cg_iterations or cg_tolerance, lower the body's stiffness or "
                   "[world] frame_time, or set jacobian_damping = 0.01 (the paper's), whose transverse stiffness at "
                   "rest conditions a flat or stiff network",
                   body->name, s->substep, s->newton + 1, s->cg_iterations, norm / (target / s->cg_tolerance),
                   s->cg_tolerance);
}

/* The Galerkin correction on the free particles' common translation (see the top). */
static int correct_translation(op_ctx *ctx, sp_solver *s, const op_body *body, double h)
{
    int count = 3 * s->n, free_count = 0;
    for (int i = 0; i < s->n; ++i)
        free_count += !body->position_pinned[i];
    if (free_count == 0)
        return OP_OK;
    double *r = s->residual;
    apply_system(s, body, h, s->delta, s->product);
    for (int k = 0; k < count; ++k)
        r[k] = s->rhs[k] - s->product[k];
    double G[9], c[3] = { 0, 0, 0 };
    for (int axis = 0; axis < 3; ++axis) {
        double *t = s->search; /* free as a scratch vector once CG is done */
        for (int i = 0; i < s->n; ++i)
            v3_set(&t[3 * i], 0, 0, 0);
        for (int i = 0; i < s->n; ++i)
            if (!body->position_pinned[i])
                t[3 * i + axis] = 1.0;
        apply_system(s, body, h, t, s->translation[axis]);
    }
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            double sum = 0.0;
            for (int i = 0; i < s->n; ++i)
                sum += s->translation[b][3 * i + a]; /* pinned rows are 0 */
            G[3 * a + b] = sum;
        }
    for (int i = 0; i < s->n; ++i)
        v3_add(c, c, &r[3 * i]);
    lapack_int info = LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', 3, 1, G, 3, c, 1);
    if (info != 0)
        return OP_FAIL(ctx, OP_ERR_LIBRARY,
                       "solver springs: body %s, sub-step %ld: the translation correction's 3 x 3 system is not "
                       "positive definite (LAPACKE_dposv info %d)",
                       body->name, s->substep, (int)info);
    for (int i = 0; i < s->n; ++i)
        if (!body->position_pinned[i])
            v3_add(&s->delta[3 * i], &s->delta[3 * i], c);
    return OP_OK;
}

/* R_i = polar(ρ Y_i Ā_i + Σ_j m_j (x_j − x_i)(x̄_j − x̄_i)ᵀ) for every free orientation. */
static void update_orientations(sp_solver *s, op_body *body)
{
    const op_graph *g = body->graph;
    const double *x = body->state.position;
    for (int i = 0; i < s->n; ++i) {
        if (body->rotation_pinned[i])
            continue;
        double A[9], d[3], rest[3];
        m3_mul(A, &body->inertial_rotation[9 * i], &g->rest_moment[9 * i]);
        m3_scale(A, A, g->density);
        for (int k = g->adjacency_start[i]; k < g->adjacency_start[i + 1]; ++k) {
            int j = g->adjacency[k];
            v3_sub(d, &x[3 * j], &x[3 * i]);
            v3_sub(rest, &g->rest_position[3 * j], &g->rest_position[3 * i]);
            m3_add_outer(A, g->mass[j], d, rest);
        }
        op_polar_rotation_warm(A, &s->quaternion[4 * i], &body->state.rotation[9 * i]);
    }
}

/* The statistics springs publishes (solver.h); CG_ITERATIONS is linear_iterations' slot */
enum { CG_ITERATIONS = 0 };
static const op_solver_counter sp_counters[] = {
    { "linear_iterations", OP_LINEAR_ITERATIONS_DESCRIPTION },
    { NULL, NULL },
};

static int sp_iterate(op_ctx *ctx, void *self, op_body *body, double h, op_stage_times *times)
{
    sp_solver *s = self;
    double start = op_now();
    if (s->newton == 0) /* Baraff & Witkin linearise at x₀, not at the world's prediction y */
        memcpy(body->state.position, body->start_position, 3 * (size_t)s->n * sizeof(double));
    int used = 0;
    if (linearise(ctx, s, body, h) != OP_OK)
        return ctx->status;
    double solve = op_now();
    if (conjugate_gradients(ctx, s, body, h, &used) != OP_OK || correct_translation(ctx, s, body, h) != OP_OK) {
        times->count[CG_ITERATIONS] += used;
        return ctx->status;
    }
    double solved = op_now();
    for (int i = 0; i < s->n; ++i)
        if (!body->position_pinned[i])
            v3_add(&body->state.position[3 * i], &body->state.position[3 * i], &s->delta[3 * i]);
    update_orientations(s, body);
    s->newton++;
    times->count[CG_ITERATIONS] += used;
    times->global += solved - solve;
    times->local += (solve - start) + (op_now() - solved);
    return OP_OK;
}

/* Nothing is cached from the rotations (the orientations are an output, re-derived from the
 * positions after every step), so extrapolated rotations need no refresh. */
static int sp_resync(op_ctx *ctx, void *solver, op_body *body, double h)
{
    (void)ctx, (void)solver, (void)body, (void)h;
    return OP_OK;
}

const op_solver_type op_solver_springs = {
    .name = "springs",
    .summary = "spring network on the graph edges (linear, two-term cubic, full cubic), implicit Euler, CG",
    .source = "Vogiannou et al. 2010; Baraff & Witkin 1998",
    .options = sp_options,
    .counters = sp_counters,
    .create = sp_create,
    .begin_substep = sp_begin_substep,
    .iterate = sp_iterate,
    .destroy = sp_destroy,
    .resync = sp_resync,
};
