/* Solver look-up and the [solver] settings shared by every variant: validation against the
 * variant's option table and the accelerators' (solvers/accel/accel.h, each declaring its own),
 * defaults, and typed accessors whose errors name the option. */
#include "opsim/solver.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/energy.h"
#include "accel/accel.h"

const op_solver_type *op_solver_find(const char *name)
{
    for (int s = 0; op_solver_registry[s]; ++s)
        if (strcmp(op_solver_registry[s]->name, name) == 0)
            return op_solver_registry[s];
    return NULL;
}

static int setting_index(const op_solver_settings *settings, const char *key)
{
    for (int k = 0; k < settings->count; ++k)
        if (strcmp(settings->key[k], key) == 0)
            return k;
    return -1;
}

static const op_solver_option *find_option(const op_solver_option *options, const char *key)
{
    for (const op_solver_option *o = options; o->key; ++o)
        if (strcmp(o->key, key) == 0)
            return o;
    return NULL;
}

static void append_keys(char *list, size_t size, const op_solver_option *options)
{
    for (const op_solver_option *o = options; o->key; ++o) {
        strncat(list, list[0] ? ", " : "", size - strlen(list) - 1);
        strncat(list, o->key, size - strlen(list) - 1);
    }
}

const op_solver_option *op_solver_common_options(int t)
{
    for (int u = 0; op_accel_registry[u]; ++u)
        if (u == t)
            return op_accel_registry[u]->options;
    return NULL;
}

/* The accelerator whose option `key` is, or NULL */
static const op_accel_type *accel_of_option(const char *key)
{
    for (int t = 0; op_accel_registry[t]; ++t)
        if (find_option(op_accel_registry[t]->options, key))
            return op_accel_registry[t];
    return NULL;
}

/* The value check of an accelerator's option, on a copy holding that key alone */
static int check_accel_value(op_ctx *ctx, const op_accel_type *accel, const op_solver_settings *settings, int k)
{
    op_solver_settings one = { .count = 1 };
    snprintf(one.key[0], sizeof one.key[0], "%s", settings->key[k]);
    snprintf(one.value[0], sizeof one.value[0], "%s", settings->value[k]);
    return accel->check_option(ctx, &one);
}

/* The default of every option of the table that the settings do not give */
static int fill_defaults(op_ctx *ctx, const op_solver_type *type, op_solver_settings *settings,
                         const op_solver_option *options)
{
    for (const op_solver_option *o = options; o->key; ++o) {
        if (setting_index(settings, o->key) >= 0)
            continue;
        if (settings->count == OP_SOLVER_MAX_SETTINGS)
            return OP_FAIL(ctx, OP_ERR_USAGE, "solver %s: too many options", type->name);
        snprintf(settings->key[settings->count], sizeof settings->key[0], "%s", o->key);
        snprintf(settings->value[settings->count], sizeof settings->value[0], "%s", o->default_value);
        settings->count++;
    }
    return OP_OK;
}

int op_solver_settings_validate(op_ctx *ctx, const op_solver_type *type, op_solver_settings *settings)
{
    for (int k = 0; k < settings->count; ++k) {
        const op_accel_type *accel = accel_of_option(settings->key[k]);
        if (accel) {
            if (check_accel_value(ctx, accel, settings, k) != OP_OK)
                return ctx->status;
            continue;
        }
        if (!find_option(type->options, settings->key[k])) {
            char valid[1024] = "";
            append_keys(valid, sizeof valid, type->options);
            for (int t = 0; op_solver_common_options(t); ++t)
                append_keys(valid, sizeof valid, op_solver_common_options(t));
            return OP_FAIL(ctx, OP_ERR_USAGE, "solver %s has no option '%s' (options: %s)", type->name,
                           settings->key[k], valid);
        }
    }
    if (fill_defaults(ctx, type, settings, type->options) != OP_OK)
        return ctx->status;
    for (int t = 0; op_solver_common_options(t); ++t)
        if (fill_defaults(ctx, type, settings, op_solver_common_options(t)) != OP_OK)
            return ctx->status;
    return OP_OK;
}

const char *op_solver_setting(const op_solver_settings *settings, const char *key)
{
    int k = setting_index(settings, key);
    return k >= 0 ? settings->value[k] : NULL;
}

static const char *required_setting(op_ctx *ctx, const op_solver_settings *settings, const char *key)
{
    const char *value = op_solver_setting(settings, key);
    if (!value)
        OP_FAIL(ctx, OP_ERR_USAGE, "solver option '%s' is missing", key);
    return value;
}

int op_solver_setting_double(op_ctx *ctx, const op_solver_settings *settings, const char *key, double lo, double hi,
                             double *out)
{
    const char *text = required_setting(ctx, settings, key);
    if (!text)
        return ctx->status;
    char *end;
    errno = 0;
    double value = strtod(text, &end);
    if (errno || end == text || *end || !isfinite(value) || value < lo || value > hi)
        return OP_FAIL(ctx, OP_ERR_USAGE, "solver option %s = '%s' must be a number in [%g, %g]", key, text, lo, hi);
    *out = value;
    return OP_OK;
}

int op_solver_setting_int(op_ctx *ctx, const op_solver_settings *settings, const char *key, int lo, int hi, int *out)
{
    const char *text = required_setting(ctx, settings, key);
    if (!text)
        return ctx->status;
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno || end == text || *end || value < lo || value > hi)
        return OP_FAIL(ctx, OP_ERR_USAGE, "solver option %s = '%s' must be a whole number in [%d, %d]", key, text, lo,
                       hi);
    *out = (int)value;
    return OP_OK;
}

int op_solver_setting_choice(op_ctx *ctx, const op_solver_settings *settings, const char *key, const char *choices,
                             int *out)
{
    const char *text = required_setting(ctx, settings, key);
    if (!text)
        return ctx->status;
    size_t length = strlen(text);
    int index = 0;
    for (const char *word = choices; *word; ++index) {
        size_t word_length = strcspn(word, "|");
        if (word_length == length && strncmp(word, text, length) == 0) {
            *out = index;
            return OP_OK;
        }
        word += word_length + (word[word_length] == '|');
    }
    return OP_FAIL(ctx, OP_ERR_USAGE, "solver option %s = '%s' must be one of %s", key, text, choices);
}

int op_solver_energy(op_ctx *ctx, const op_solver_type *type, void *solver, const op_body *body, double h,
                     double *energy)
{
    if (type && type->energy)
        return type->energy(ctx, solver, body, h, energy);
    op_energy e;
    op_energy_eval(body, h, &e);
    *energy = e.total;
    return OP_OK;
}
