/* rigid: every body moves as one rigid body under the same implicit Euler step as the other
 * variants, the limit k → ∞ of arap. It is a reference, not a method of the papers: what a
 * deformable variant should approach when its body is stiff (a free spinning body's angular
 * momentum, `make freeflight`; the spin test of tests/test_motion.c).
 *
 * The step. The body is its rest shape moved rigidly: x_i = Q (x̄_i − x̄_c) + t, R_i = Q, with
 * Q ∈ SO(3) the model frame's rotation (the placement P at rest) and x̄_c the rest centre of
 * mass. Of the energy of docs/design.md §1 only E^k is left (E^e vanishes on rigid motions), and its
 * exact minimiser over (Q, t) is
 *   t = ȳ = Σ m_i y_i / Σ m_i,
 *   Q = polar( Σ_i m_i (y_i − ȳ)(x̄_i − x̄_c)ᵀ + ρ Σ_i Y_i Ā_i ),
 * because Σ_i m_i ‖Q d̄_i + t − y_i‖² + ρ ‖(Q − Y_i) Ē_i A_i^½‖² is, up to terms free of Q and
 * t, −2 tr(Qᵀ M) plus a term in t alone. One iteration reaches it; further ones repeat it
 * (the minimiser depends only on the inertial targets y, Y), so [world] iterations only costs
 * time. A deformed start (`start = collapsed`) becomes its rest shape moved rigidly in the first
 * sub-step.
 *
 * Pins and constraints are refused (create fails naming the body): a pinned particle would make
 * the rigid step a constrained rotation this reference does not need. Floor and body contacts
 * act on the particles after the step as for every variant; the next step then sees them only
 * through the velocities, so a rigid body in contact is the world's rigid reference, not a
 * rigid-body contact solver.
 *
 * Stage times: the whole step is reported as `local`. */
#include "rigid.h"

#include <stdlib.h>

#include "base/math3.h"
#include "kernels/polar.h"
#include "base/timer.h"

typedef struct rigid_solver {
    int n;
    double total_mass;
    double rest_centre[3]; /* x̄_c, model frame */
    double *rest_offset;   /* [n][3] x̄_i − x̄_c */
} rigid_solver;

static const op_solver_option rigid_options[] = { { NULL, NULL, NULL } };

static void rigid_destroy(void *self)
{
    rigid_solver *s = self;
    if (!s)
        return;
    free(s->rest_offset);
    free(s);
}

static int rigid_create(op_ctx *ctx, const op_solver_settings *settings, op_body *body, double h,
                        void *const *twins, int twin_count, void **out)
{
    (void)settings, (void)h, (void)twins, (void)twin_count;
    if (body->pin_count > 0 || body->constraint_count > 0)
        return OP_FAIL(ctx, OP_ERR_USAGE,
                       "solver rigid: body %s has %d pin(s) and %d constraint(s); the rigid reference takes "
                       "free bodies only",
                       body->name, body->pin_count, body->constraint_count);
    const op_graph *g = body->graph;
    rigid_solver *s = op_calloc(ctx, 1, sizeof *s);
    if (!s)
        return ctx->status;
    s->n = g->particle_count;
    s->rest_offset = op_calloc(ctx, 3 * (size_t)(s->n > 0 ? s->n : 1), sizeof(double));
    if (!s->rest_offset) {
        rigid_destroy(s);
        return ctx->status;
    }
    for (int i = 0; i < s->n; ++i) {
        s->total_mass += g->mass[i];
        v3_axpy(s->rest_centre, g->mass[i], &g->rest_position[3 * i]);
    }
    v3_scale(s->rest_centre, s->rest_centre, 1.0 / s->total_mass);
    for (int i = 0; i < s->n; ++i)
        v3_sub(&s->rest_offset[3 * i], &g->rest_position[3 * i], s->rest_centre);
    *out = s;
    return OP_OK;
}

static int rigid_iterate(op_ctx *ctx, void *self, op_body *body, double h, op_stage_times *times)
{
    (void)ctx, (void)h;
    rigid_solver *s = self;
    const op_graph *g = body->graph;
    double start = op_now();
    double centre[3] = { 0, 0, 0 }, M[9], Q[9];
    for (int i = 0; i < s->n; ++i)
        v3_axpy(centre, g->mass[i], &body->inertial_position[3 * i]);
    v3_scale(centre, centre, 1.0 / s->total_mass);
    m3_zero(M);
    for (int i = 0; i < s->n; ++i) {
        double d[3], turned[9];
        v3_sub(d, &body->inertial_position[3 * i], centre);
        m3_add_outer(M, g->mass[i], d, &s->rest_offset[3 * i]);
        m3_mul(turned, &body->inertial_rotation[9 * i], &g->rest_moment[9 * i]);
        m3_axpy(M, g->density, turned);
    }
    op_polar_rotation(M, Q);
    for (int i = 0; i < s->n; ++i) {
        double *x = &body->state.position[3 * i];
        m3_mul_v(x, Q, &s->rest_offset[3 * i]);
        v3_add(x, x, centre);
        m3_copy(&body->state.rotation[9 * i], Q);
    }
    times->local += op_now() - start;
    return OP_OK;
}

/* Nothing derived from the rotations is kept between iterations. */
static int rigid_resync(op_ctx *ctx, void *solver, op_body *body, double h)
{
    (void)ctx, (void)solver, (void)body, (void)h;
    return OP_OK;
}

const op_solver_type op_solver_rigid = {
    .name = "rigid",
    .summary = "reference: each body one rigid body under the same implicit Euler step (the k → ∞ limit); "
               "free bodies only (no pins or constraints); one iteration is exact",
    .source = "the k → ∞ limit of Choi & Lee 2017's energy",
    .options = rigid_options,
    .create = rigid_create,
    .iterate = rigid_iterate,
    .destroy = rigid_destroy,
    .resync = rigid_resync,
};
