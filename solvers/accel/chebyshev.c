/* Chebyshev semi-iterative acceleration (chebyshev.h). */
#include "accel/chebyshev.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/polar.h"

static const op_solver_option chebyshev_options[] = {
    { "chebyshev", "off", "Chebyshev semi-iterative acceleration after each iteration (Wang 2015): off or on" },
    { "chebyshev_rho", "",
      "spectral-radius estimate in [0, 1), required when chebyshev = on (opsim estimate-rho prints one)" },
    { "chebyshev_rho_source", "", "free text recorded with chebyshev_rho: how it was estimated (empty: given)" },
    { "chebyshev_delay", "2", "plain iterations k < S of every sub-step before extrapolating (S >= 1)" },
    { "chebyshev_gamma", "1", "under-relaxation gamma in (0, 1]" },
    { "chebyshev_rotations", "off", "also extrapolate the rotations, re-projected onto SO(3): off or on" },
    { NULL, NULL, NULL },
};

/* chebyshev_rho may be empty (not given): whether it is needed depends on `chebyshev`, checked
 * by op_chebyshev_def_from_settings when the world starts. */
static int chebyshev_check_option(op_ctx *ctx, const op_solver_settings *one)
{
    const char *key = one->key[0];
    int choice;
    double number;
    if (strcmp(key, "chebyshev") == 0 || strcmp(key, "chebyshev_rotations") == 0)
        return op_solver_setting_choice(ctx, one, key, "off|on", &choice);
    if (strcmp(key, "chebyshev_rho") == 0) {
        if (!one->value[0][0])
            return OP_OK;
        if (op_solver_setting_double(ctx, one, key, 0.0, 1.0, &number) != OP_OK)
            return ctx->status;
        if (!(number < 1.0))
            return OP_FAIL(ctx, OP_ERR_USAGE,
                           "solver option chebyshev_rho = '%s' must be a number in [0, 1): at 1 the "
                           "Chebyshev weights grow without bound", one->value[0]);
        return OP_OK;
    }
    if (strcmp(key, "chebyshev_delay") == 0)
        return op_solver_setting_int(ctx, one, key, 1, 1000000, &choice);
    if (strcmp(key, "chebyshev_gamma") == 0) {
        if (op_solver_setting_double(ctx, one, key, 0.0, 1.0, &number) != OP_OK)
            return ctx->status;
        if (!(number > 0.0))
            return OP_FAIL(ctx, OP_ERR_USAGE, "solver option chebyshev_gamma = '%s' must be a number in (0, 1]",
                           one->value[0]);
        return OP_OK;
    }
    return OP_OK; /* chebyshev_rho_source: free text */
}

int op_chebyshev_def_from_settings(op_ctx *ctx, const op_solver_settings *settings, op_chebyshev_def *def)
{
    memset(def, 0, sizeof *def);
    if (op_solver_setting_choice(ctx, settings, "chebyshev", "off|on", &def->enabled) != OP_OK ||
        op_solver_setting_choice(ctx, settings, "chebyshev_rotations", "off|on", &def->rotations) != OP_OK ||
        op_solver_setting_int(ctx, settings, "chebyshev_delay", 1, 1000000, &def->delay) != OP_OK ||
        op_solver_setting_double(ctx, settings, "chebyshev_gamma", 0.0, 1.0, &def->gamma) != OP_OK)
        return ctx->status;
    if (!(def->gamma > 0.0))
        return OP_FAIL(ctx, OP_ERR_USAGE, "solver option chebyshev_gamma = '%s' must be a number in (0, 1]",
                       op_solver_setting(settings, "chebyshev_gamma"));
    const char *rho = op_solver_setting(settings, "chebyshev_rho");
    def->rho_given = rho && rho[0];
    if (def->rho_given) {
        if (op_solver_setting_double(ctx, settings, "chebyshev_rho", 0.0, 1.0, &def->rho) != OP_OK)
            return ctx->status;
        if (!(def->rho < 1.0))
            return OP_FAIL(ctx, OP_ERR_USAGE, "solver option chebyshev_rho = '%s' must be a number in [0, 1)", rho);
    } else if (def->enabled)
        return OP_FAIL(ctx, OP_ERR_USAGE,
                       "solver option chebyshev_rho is required when chebyshev = on (a spectral radius in [0, 1); "
                       "'opsim estimate-rho CONFIG' estimates one)");
    const char *source = op_solver_setting(settings, "chebyshev_rho_source");
    snprintf(def->rho_source, sizeof def->rho_source, "%s",
             source && source[0] ? source : def->rho_given ? "given" : "none");
    return OP_OK;
}

double op_chebyshev_omega(const op_chebyshev_def *def, int k, double omega_previous)
{
    double rho2 = def->rho * def->rho;
    if (k < def->delay)
        return 1.0;
    if (k == def->delay)
        return 2.0 / (2.0 - rho2);
    return 4.0 / (4.0 - rho2 * omega_previous);
}

int op_chebyshev_init(op_ctx *ctx, op_chebyshev *state, const op_chebyshev_def *def, int particle_count)
{
    memset(state, 0, sizeof *state);
    state->n = particle_count;
    state->rotations = def->rotations;
    state->omega = 1.0;
    state->position_prev = op_calloc(ctx, 3 * (size_t)particle_count, sizeof(double));
    state->position = op_calloc(ctx, 3 * (size_t)particle_count, sizeof(double));
    if (def->rotations) {
        state->rotation_prev = op_calloc(ctx, 9 * (size_t)particle_count, sizeof(double));
        state->rotation = op_calloc(ctx, 9 * (size_t)particle_count, sizeof(double));
    }
    if (ctx->status != OP_OK)
        op_chebyshev_free(state);
    return ctx->status;
}

void op_chebyshev_free(op_chebyshev *state)
{
    OP_FREE(state->position_prev);
    OP_FREE(state->position);
    OP_FREE(state->rotation_prev);
    OP_FREE(state->rotation);
}

void op_chebyshev_reset(op_chebyshev *state, const op_body *body)
{
    state->omega = 1.0;
    memcpy(state->position, body->state.position, 3 * (size_t)state->n * sizeof(double));
    if (state->rotations)
        memcpy(state->rotation, body->state.rotation, 9 * (size_t)state->n * sizeof(double));
}

/* x ← ω (γ (x̂ − x^k) + x^k − x^{k−1}) + x^{k−1} for `count` numbers; for ω = 1 the x^{k−1}
 * terms cancel exactly and are left out (x^{k−1} does not exist for k = 0). */
static void extrapolate(double *x, const double *current, const double *previous, int count, double omega,
                        double gamma)
{
    if (omega == 1.0)
        for (int c = 0; c < count; ++c)
            x[c] = current[c] + gamma * (x[c] - current[c]);
    else
        for (int c = 0; c < count; ++c)
            x[c] = omega * (gamma * (x[c] - current[c]) + current[c] - previous[c]) + previous[c];
}

int op_chebyshev_apply(op_chebyshev *state, const op_chebyshev_def *def, op_body *body, int k)
{
    double omega = op_chebyshev_omega(def, k, state->omega);
    state->omega = omega;
    int n = state->n, changed_rotations = 0;
    /* The plain iterate, bit for bit (chebyshev.h: the formula would round). */
    int plain = omega == 1.0 && def->gamma == 1.0;
    if (!plain)
        for (int i = 0; i < n; ++i)
            if (!body->position_pinned[i])
                extrapolate(&body->state.position[3 * i], &state->position[3 * i], &state->position_prev[3 * i], 3,
                            omega, def->gamma);
    double *swap = state->position_prev;
    state->position_prev = state->position;
    state->position = swap;
    memcpy(state->position, body->state.position, 3 * (size_t)n * sizeof(double));
    if (!state->rotations)
        return 0;
    if (!plain)
        for (int i = 0; i < n; ++i) {
            if (body->rotation_pinned[i])
                continue;
            double *R = &body->state.rotation[9 * i], M[9];
            memcpy(M, R, sizeof M);
            extrapolate(M, &state->rotation[9 * i], &state->rotation_prev[9 * i], 9, omega, def->gamma);
            op_polar_rotation(M, R);
            changed_rotations = 1;
        }
    swap = state->rotation_prev;
    state->rotation_prev = state->rotation;
    state->rotation = swap;
    memcpy(state->rotation, body->state.rotation, 9 * (size_t)n * sizeof(double));
    return changed_rotations;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int op_chebyshev_estimate_rho(op_ctx *ctx, const double *change, int count, double floor_level,
                              op_rho_estimate *out)
{
    memset(out, 0, sizeof *out);
    out->first = count / 2 > 1 ? count / 2 : 1;
    out->last = count - 1;
    double *ratios = op_calloc(ctx, (size_t)(count > 0 ? count : 1), sizeof(double));
    if (!ratios)
        return ctx->status;
    int used = 0;
    for (int k = out->first; k < count; ++k)
        if (change[k - 1] > floor_level && isfinite(change[k]) && isfinite(change[k - 1]))
            ratios[used++] = change[k] / change[k - 1];
    if (used == 0) {
        free(ratios);
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "estimating chebyshev_rho: the plain iteration reached rounding level before iteration %d, "
                       "so no step ratio is usable (use fewer iterations or another frame)",
                       out->first);
    }
    qsort(ratios, (size_t)used, sizeof *ratios, compare_double);
    out->used = used;
    out->min = ratios[0];
    out->max = ratios[used - 1];
    out->lower_quartile = ratios[used / 4];
    out->upper_quartile = ratios[(3 * used) / 4 < used ? (3 * used) / 4 : used - 1];
    out->median = used % 2 ? ratios[used / 2] : 0.5 * (ratios[used / 2 - 1] + ratios[used / 2]);
    out->rho = out->median < 0.999999 ? out->median : 0.999999;
    free(ratios);
    return OP_OK;
}

/* ---- behind the accelerators' interface (accel.h) ------------------------------------------ */

typedef struct chebyshev_accel {
    op_accel base;
    op_chebyshev_def def;
    op_chebyshev *body; /* [body_count] */
} chebyshev_accel;

static void chebyshev_accel_free(op_accel *accel, int body_count)
{
    chebyshev_accel *c = (chebyshev_accel *)accel;
    if (c->body)
        for (int b = 0; b < body_count; ++b)
            op_chebyshev_free(&c->body[b]);
    free(c->body);
    free(c);
}

static int chebyshev_accel_create(op_ctx *ctx, const op_solver_settings *settings, const op_solver_type *solver,
                                  const op_body *bodies, int body_count, op_accel **accel)
{
    op_chebyshev_def def;
    if (op_chebyshev_def_from_settings(ctx, settings, &def) != OP_OK || !def.enabled)
        return ctx->status;
    if (def.rotations && !solver->resync)
        return OP_FAIL(ctx, OP_ERR_USAGE,
                       "solver option chebyshev_rotations = on: solver %s has no resync hook, so the rotation "
                       "data it caches between iterations would go stale (solver.h)",
                       solver->name);
    chebyshev_accel *c = op_calloc(ctx, 1, sizeof *c);
    if (!c)
        return ctx->status;
    c->base.type = &op_chebyshev_accel;
    c->def = def;
    c->body = op_calloc(ctx, (size_t)(body_count > 0 ? body_count : 1), sizeof(op_chebyshev));
    for (int b = 0; b < body_count && ctx->status == OP_OK; ++b)
        op_chebyshev_init(ctx, &c->body[b], &c->def, bodies[b].graph->particle_count);
    if (ctx->status != OP_OK) {
        chebyshev_accel_free(&c->base, body_count);
        return ctx->status;
    }
    *accel = &c->base;
    return OP_OK;
}

/* x^0: the state the sub-step's iterations start from */
static void chebyshev_accel_before(op_accel *accel, int b, const op_body *body, double h, int k)
{
    (void)h;
    if (k == 0)
        op_chebyshev_reset(&((chebyshev_accel *)accel)->body[b], body);
}

static int chebyshev_accel_after(op_ctx *ctx, op_accel *accel, int b, op_body *body, double h, int k,
                                 int *changed_rotations)
{
    (void)ctx;
    (void)h;
    chebyshev_accel *c = (chebyshev_accel *)accel;
    *changed_rotations = op_chebyshev_apply(&c->body[b], &c->def, body, k);
    return OP_OK;
}

static long chebyshev_accel_take_count(op_accel *accel, int body_count)
{
    (void)accel;
    (void)body_count;
    return 0;
}

op_chebyshev_def *op_chebyshev_accel_def(op_accel *accel)
{
    return accel && accel->type == &op_chebyshev_accel ? &((chebyshev_accel *)accel)->def : NULL;
}

/* chebyshev, chebyshev_delay, chebyshev_rotations (0/1 ints), chebyshev_rho (NaN when not
 * given), chebyshev_gamma, chebyshev_rho_source */
static int chebyshev_accel_parameters(op_ctx *ctx, const op_solver_settings *settings, const op_parameter_sink *sink)
{
    op_chebyshev_def def;
    void *c = sink->context;
    if (op_chebyshev_def_from_settings(ctx, settings, &def) != OP_OK ||
        sink->put_int(ctx, c, "chebyshev", def.enabled) != OP_OK ||
        sink->put_double(ctx, c, "chebyshev_rho", def.rho_given ? def.rho : NAN) != OP_OK ||
        sink->put_string(ctx, c, "chebyshev_rho_source", def.rho_source) != OP_OK ||
        sink->put_int(ctx, c, "chebyshev_delay", def.delay) != OP_OK ||
        sink->put_double(ctx, c, "chebyshev_gamma", def.gamma) != OP_OK ||
        sink->put_int(ctx, c, "chebyshev_rotations", def.rotations) != OP_OK)
        return ctx->status;
    return OP_OK;
}

const op_accel_type op_chebyshev_accel = { .name = "chebyshev",
                                           .options = chebyshev_options,
                                           .check_option = chebyshev_check_option,
                                           .parameters = chebyshev_accel_parameters,
                                           .create = chebyshev_accel_create,
                                           .before = chebyshev_accel_before,
                                           .after = chebyshev_accel_after,
                                           .take_count = chebyshev_accel_take_count,
                                           .free = chebyshev_accel_free };
