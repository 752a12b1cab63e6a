/* Anderson acceleration with its energy safeguard (anderson.h). */
#include "accel/anderson.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/energy.h"
#include "kernels/polar.h"

static const op_solver_option anderson_options[] = {
    { "anderson", "off",
      "Anderson acceleration of each iteration with its energy safeguard (Peng et al. 2018): off or on; not with "
      "chebyshev = on" },
    { "anderson_m", "5", "Anderson window: the last m differences mixed, 0 to 50 (0: the plain iteration)" },
    { NULL, NULL, NULL },
};

/* anderson = on with chebyshev = on is refused by op_anderson_def_from_settings, at the start */
static int anderson_check_option(op_ctx *ctx, const op_solver_settings *one)
{
    int value;
    if (strcmp(one->key[0], "anderson") == 0)
        return op_solver_setting_choice(ctx, one, "anderson", "off|on", &value);
    if (strcmp(one->key[0], "anderson_m") == 0)
        return op_solver_setting_int(ctx, one, "anderson_m", 0, OP_ANDERSON_MAX_M, &value);
    return OP_OK;
}

int op_anderson_def_from_settings(op_ctx *ctx, const op_solver_settings *settings, op_anderson_def *def)
{
    memset(def, 0, sizeof *def);
    int chebyshev = 0;
    if (op_solver_setting_choice(ctx, settings, "anderson", "off|on", &def->enabled) != OP_OK ||
        op_solver_setting_int(ctx, settings, "anderson_m", 0, OP_ANDERSON_MAX_M, &def->m) != OP_OK ||
        op_solver_setting_choice(ctx, settings, "chebyshev", "off|on", &chebyshev) != OP_OK)
        return ctx->status;
    if (def->enabled && chebyshev)
        return OP_FAIL(ctx, OP_ERR_USAGE,
                       "solver options anderson = on and chebyshev = on together: both replace the iterate between "
                       "iterations; choose one");
    return OP_OK;
}

void op_anderson_free(op_anderson *state)
{
    OP_FREE(state->u);
    OP_FREE(state->g);
    OP_FREE(state->f);
    OP_FREE(state->g_prev);
    OP_FREE(state->f_prev);
    OP_FREE(state->dF);
    OP_FREE(state->dG);
    OP_FREE(state->gram);
    OP_FREE(state->candidate);
    OP_FREE(state->plain_position);
    OP_FREE(state->plain_rotation);
    OP_FREE(state->left_position);
    OP_FREE(state->left_rotation);
    OP_FREE(state->quaternion);
}

int op_anderson_init(op_ctx *ctx, op_anderson *state, const op_anderson_def *def, const op_body *body)
{
    memset(state, 0, sizeof *state);
    int n = body->graph->particle_count, dim = 0;
    for (int i = 0; i < n; ++i)
        dim += (body->position_pinned[i] ? 0 : 3) + (body->rotation_pinned[i] ? 0 : 9);
    for (int i = 0; i < n; ++i)
        state->free_rotations += !body->rotation_pinned[i];
    state->n = n;
    state->m = def->m;
    state->dim = dim;
    size_t d = (size_t)(dim > 0 ? dim : 1), m = (size_t)(def->m > 0 ? def->m : 1);
    state->u = op_calloc(ctx, d, sizeof(double));
    state->g = op_calloc(ctx, d, sizeof(double));
    state->f = op_calloc(ctx, d, sizeof(double));
    state->g_prev = op_calloc(ctx, d, sizeof(double));
    state->f_prev = op_calloc(ctx, d, sizeof(double));
    state->candidate = op_calloc(ctx, d, sizeof(double));
    state->dF = op_calloc(ctx, m * d, sizeof(double));
    state->dG = op_calloc(ctx, m * d, sizeof(double));
    state->gram = op_calloc(ctx, m * m, sizeof(double));
    state->plain_position = op_calloc(ctx, 3 * (size_t)n, sizeof(double));
    state->plain_rotation = op_calloc(ctx, 9 * (size_t)n, sizeof(double));
    state->left_position = op_calloc(ctx, 3 * (size_t)n, sizeof(double));
    state->left_rotation = op_calloc(ctx, 9 * (size_t)n, sizeof(double));
    state->quaternion = op_calloc(ctx, 4 * (size_t)n, sizeof(double));
    if (ctx->status != OP_OK) {
        op_anderson_free(state);
        return ctx->status;
    }
    /* LAPACK's first call initialises the library (about 0.5 ms measured here): made now, so
     * that no sub-step's timing is charged with it */
    double one = 1.0, theta;
    op_anderson_solve(1, &one, &one, &theta);
    return OP_OK;
}

/* The body's free unknowns in the displacement form (anderson.h): x_i − x_ref,i, R_i − P. */
static void pack(const op_body *body, double *u)
{
    const op_graph *g = body->graph;
    const double *P = body->placement_rotation, *t = body->placement_translation;
    int c = 0;
    for (int i = 0; i < g->particle_count; ++i) {
        if (!body->position_pinned[i]) {
            const double *rest = &g->rest_position[3 * i], *x = &body->state.position[3 * i];
            for (int r = 0; r < 3; ++r)
                u[c++] = x[r] - ((P[3 * r] * rest[0] + P[3 * r + 1] * rest[1] + P[3 * r + 2] * rest[2]) + t[r]);
        }
        if (!body->rotation_pinned[i])
            for (int e = 0; e < 9; ++e)
                u[c++] = body->state.rotation[9 * i + e] - P[e];
    }
}

/* u into the body's free values, each rotation re-projected onto SO(3) (warm-started from the
 * quaternion of the last projection of that particle, quaternion[n][4]: the mixed matrix is near
 * it, and the warm start costs about half the closed form; the result is polar(M) to rounding
 * either way, polar.h). */
static void unpack(op_body *body, const double *u, double *quaternion)
{
    const op_graph *g = body->graph;
    const double *P = body->placement_rotation, *t = body->placement_translation;
    int c = 0;
    for (int i = 0; i < g->particle_count; ++i) {
        if (!body->position_pinned[i]) {
            const double *rest = &g->rest_position[3 * i];
            double *x = &body->state.position[3 * i];
            for (int r = 0; r < 3; ++r)
                x[r] = ((P[3 * r] * rest[0] + P[3 * r + 1] * rest[1] + P[3 * r + 2] * rest[2]) + t[r]) + u[c++];
        }
        if (!body->rotation_pinned[i]) {
            double M[9];
            for (int e = 0; e < 9; ++e)
                M[e] = P[e] + u[c++];
            op_polar_rotation_warm(M, &quaternion[4 * i], &body->state.rotation[9 * i]);
        }
    }
}

static void copy_state(double *position, double *rotation, const op_body *body, int n)
{
    memcpy(position, body->state.position, 3 * (size_t)n * sizeof(double));
    memcpy(rotation, body->state.rotation, 9 * (size_t)n * sizeof(double));
}

static int holds_state(const double *position, const double *rotation, const op_body *body, int n)
{
    return memcmp(position, body->state.position, 3 * (size_t)n * sizeof(double)) == 0 &&
           memcmp(rotation, body->state.rotation, 9 * (size_t)n * sizeof(double)) == 0;
}

/* Σ a_c b_c in four interleaved partial sums, added in one fixed order: the compiler may keep
 * them in one vector register (no -ffast-math needed), and the result is the same on every run */
static double dot(const double *a, const double *b, int count)
{
    double sum[4] = { 0.0, 0.0, 0.0, 0.0 };
    int c = 0;
    for (; c + 4 <= count; c += 4)
        for (int l = 0; l < 4; ++l)
            sum[l] += a[c + l] * b[c + l];
    for (; c < count; ++c)
        sum[0] += a[c] * b[c];
    return (sum[0] + sum[1]) + (sum[2] + sum[3]);
}

/* E of the body's iterate: the variant's energy hook when it gives one (solver.h), else the
 * yardstick (a hook that fails, out of memory, falls back to it: the same E to 1e-12) */
static double iterate_energy(op_anderson *state, const op_body *body, double h)
{
    state->energy_evaluations++;
    if (state->solver && state->solver->energy) {
        op_ctx ctx;
        op_ctx_init(&ctx);
        double energy;
        if (state->solver->energy(&ctx, state->solver_state, body, h, &energy) == OP_OK)
            return energy;
    }
    op_energy e;
    op_energy_eval(body, h, &e);
    return e.total;
}

void op_anderson_before(op_anderson *state, const op_body *body, double h, int k)
{
    if (state->m == 0)
        return;
    if (k == 0) {
        state->have_prev = 0;
        state->columns = 0;
        state->next = 0;
        for (int i = 0; i < state->n; ++i)
            op_rotation_quaternion(&body->state.rotation[9 * i], &state->quaternion[4 * i]);
    }
    pack(body, state->u);
    if (k > 0 && state->left_energy_known && holds_state(state->left_position, state->left_rotation, body, state->n)) {
        state->energy_u = state->energy_left;
    } else {
        state->energy_u = iterate_energy(state, body, h);
    }
    state->left_energy_known = 0;
}

int op_anderson_solve(int columns, const double *gram, const double *rhs, double *theta)
{
    double a[OP_ANDERSON_MAX_M * OP_ANDERSON_MAX_M], largest = 0.0;
    for (int j = 0; j < columns; ++j)
        largest = fmax(largest, gram[j * columns + j]);
    double lambda = 1e-10 * largest;
    for (int r = 0; r < columns; ++r) {
        for (int c = 0; c < columns; ++c)
            a[r * columns + c] = gram[r * columns + c];
        a[r * columns + r] += lambda;
        theta[r] = rhs[r];
    }
    return (int)LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', columns, 1, a, columns, theta, 1);
}

/* Drops the differences; f_k and G(u_k), in f and g, stay to difference against. */
static void reset_history(op_anderson *state)
{
    state->columns = 0;
    state->next = 0;
}

int op_anderson_apply(op_ctx *ctx, op_anderson *state, op_body *body, double h, int *changed_rotations)
{
    *changed_rotations = 0;
    if (state->m == 0)
        return OP_OK;
    int dim = state->dim, n = state->n, m = state->m;
    copy_state(state->plain_position, state->plain_rotation, body, n);
    pack(body, state->g);
    for (int c = 0; c < dim; ++c)
        state->f[c] = state->g[c] - state->u[c];
    if (state->have_prev) {
        /* the new difference into its slot, and its row of the Gram matrix */
        int s = state->next;
        double *dF = &state->dF[(size_t)s * (size_t)dim], *dG = &state->dG[(size_t)s * (size_t)dim];
        for (int c = 0; c < dim; ++c) {
            dF[c] = state->f[c] - state->f_prev[c];
            dG[c] = state->g[c] - state->g_prev[c];
        }
        if (state->columns < m)
            state->columns++;
        state->next = (s + 1) % m;
        for (int j = 0; j < state->columns; ++j) {
            double value = dot(dF, &state->dF[(size_t)j * (size_t)dim], dim);
            state->gram[s * m + j] = state->gram[j * m + s] = value;
        }
    }
    memcpy(state->f_prev, state->f, (size_t)dim * sizeof(double));
    memcpy(state->g_prev, state->g, (size_t)dim * sizeof(double));
    state->have_prev = 1;
    int columns = state->columns;
    if (columns == 0) { /* the plain iterate, as the variant made it */
        copy_state(state->left_position, state->left_rotation, body, n);
        return OP_OK;
    }
    /* the Gram matrix and ΔFᵀ f in slot order (slots 0 … columns − 1 are filled) */
    double gram[OP_ANDERSON_MAX_M * OP_ANDERSON_MAX_M], rhs[OP_ANDERSON_MAX_M], theta[OP_ANDERSON_MAX_M];
    for (int r = 0; r < columns; ++r) {
        for (int c = 0; c < columns; ++c)
            gram[r * columns + c] = state->gram[r * m + c];
        rhs[r] = dot(&state->dF[(size_t)r * (size_t)dim], state->f, dim);
    }
    int info = op_anderson_solve(columns, gram, rhs, theta);
    if (info < 0)
        return OP_FAIL(ctx, OP_ERR_LIBRARY, "anderson: LAPACKE_dposv failed (info %d)", info);
    int accepted = 0;
    if (info == 0) {
        memcpy(state->candidate, state->g, (size_t)dim * sizeof(double));
        for (int j = 0; j < columns; ++j) {
            const double *dG = &state->dG[(size_t)j * (size_t)dim];
            for (int c = 0; c < dim; ++c)
                state->candidate[c] -= theta[j] * dG[c];
        }
        unpack(body, state->candidate, state->quaternion);
        double energy = iterate_energy(state, body, h);
        accepted = energy <= state->energy_u; /* NaN: refused */
        if (accepted) {
            state->energy_left = energy;
            state->left_energy_known = 1;
            *changed_rotations = state->free_rotations > 0;
        }
    }
    if (!accepted) {
        /* the plain iterate, bit for bit; the history starts anew */
        memcpy(body->state.position, state->plain_position, 3 * (size_t)n * sizeof(double));
        memcpy(body->state.rotation, state->plain_rotation, 9 * (size_t)n * sizeof(double));
        reset_history(state);
        state->rejections++;
    }
    copy_state(state->left_position, state->left_rotation, body, n);
    return OP_OK;
}

long op_anderson_take_rejections(op_anderson *state)
{
    long count = state->rejections;
    state->rejections = 0;
    return count;
}

/* ---- behind the accelerators' interface (accel.h) ------------------------------------------ */

typedef struct anderson_accel {
    op_accel base;
    op_anderson_def def;
    op_anderson *body; /* [body_count] */
} anderson_accel;

static void anderson_accel_free(op_accel *accel, int body_count)
{
    anderson_accel *a = (anderson_accel *)accel;
    if (a->body)
        for (int b = 0; b < body_count; ++b)
            op_anderson_free(&a->body[b]);
    free(a->body);
    free(a);
}

static int anderson_accel_create(op_ctx *ctx, const op_solver_settings *settings, const op_solver_type *solver,
                                 const op_body *bodies, int body_count, op_accel **accel)
{
    op_anderson_def def;
    if (op_anderson_def_from_settings(ctx, settings, &def) != OP_OK || !def.enabled)
        return ctx->status;
    if (!solver->resync)
        return OP_FAIL(ctx, OP_ERR_USAGE,
                       "solver option anderson = on: solver %s has no resync hook, so the rotation data it caches "
                       "between iterations would go stale (solver.h)",
                       solver->name);
    anderson_accel *a = op_calloc(ctx, 1, sizeof *a);
    if (!a)
        return ctx->status;
    a->base.type = &op_anderson_accel;
    a->def = def;
    a->body = op_calloc(ctx, (size_t)(body_count > 0 ? body_count : 1), sizeof(op_anderson));
    for (int b = 0; b < body_count && ctx->status == OP_OK; ++b)
        op_anderson_init(ctx, &a->body[b], &a->def, &bodies[b]);
    if (ctx->status != OP_OK) {
        anderson_accel_free(&a->base, body_count);
        return ctx->status;
    }
    *accel = &a->base;
    return OP_OK;
}

static void anderson_accel_before(op_accel *accel, int b, const op_body *body, double h, int k)
{
    op_anderson *state = &((anderson_accel *)accel)->body[b];
    state->solver = accel->solver;
    state->solver_state = accel->solver_states ? accel->solver_states[b] : NULL;
    op_anderson_before(state, body, h, k);
}

static int anderson_accel_after(op_ctx *ctx, op_accel *accel, int b, op_body *body, double h, int k,
                                int *changed_rotations)
{
    (void)k;
    return op_anderson_apply(ctx, &((anderson_accel *)accel)->body[b], body, h, changed_rotations);
}

static long anderson_accel_take_count(op_accel *accel, int body_count)
{
    long refused = 0;
    for (int b = 0; b < body_count; ++b)
        refused += op_anderson_take_rejections(&((anderson_accel *)accel)->body[b]);
    return refused;
}

op_anderson *op_anderson_accel_body(op_accel *accel, int b)
{
    return accel && accel->type == &op_anderson_accel ? &((anderson_accel *)accel)->body[b] : NULL;
}

/* anderson (0/1) and anderson_m */
static int anderson_accel_parameters(op_ctx *ctx, const op_solver_settings *settings, const op_parameter_sink *sink)
{
    op_anderson_def def;
    if (op_anderson_def_from_settings(ctx, settings, &def) != OP_OK ||
        sink->put_int(ctx, sink->context, "anderson", def.enabled) != OP_OK ||
        sink->put_int(ctx, sink->context, "anderson_m", def.m) != OP_OK)
        return ctx->status;
    return OP_OK;
}

const op_accel_type op_anderson_accel = {
    .name = "anderson",
    .parameters = anderson_accel_parameters,
    .options = anderson_options,
    .check_option = anderson_check_option,
    .counter_name = "anderson_rejections",
    .counter_description = "per sub-step: accelerated iterates the Anderson safeguard refused, summed over bodies "
                           "(0 when anderson = off)",
    .create = anderson_accel_create,
    .before = anderson_accel_before,
    .after = anderson_accel_after,
    .take_count = anderson_accel_take_count,
    .free = anderson_accel_free
};
