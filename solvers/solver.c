/* Solver look-up and the [solver] settings shared by every variant: validation against the
 * variant's option table, defaults, and typed accessors whose errors name the option. */
#include "opsim/solver.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/energy.h"

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

const op_solver_option op_solver_common_options[] = {
    { "chebyshev", "off", "Chebyshev semi-iterative acceleration after each iteration (Wang 2015): off or on" },
    { "chebyshev_rho", "",
      "spectral-radius estimate in [0, 1), required when chebyshev = on (opsim estimate-rho prints one)" },
    { "chebyshev_rho_source", "", "free text recorded with chebyshev_rho: how it was estimated (empty: given)" },
    { "chebyshev_delay", "2", "plain iterations k < S of every sub-step before extrapolating (S >= 1)" },
    { "chebyshev_gamma", "1", "under-relaxation gamma in (0, 1]" },
    { "chebyshev_rotations", "off", "also extrapolate the rotations, re-projected onto SO(3): off or on" },
    { "anderson", "off",
      "Anderson acceleration of each iteration with its energy safeguard (Peng et al. 2018): off or on; not with "
      "chebyshev = on" },
    { "anderson_m", "5", "Anderson window: the last m differences mixed, 0 to 50 (0: the plain iteration)" },
    { NULL, NULL, NULL },
};

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

/* The value checks of the common options; each error names its option. chebyshev_rho may be
 * empty (not given): whether it is needed depends on `chebyshev`, checked when the world
 * starts (op_chebyshev_def_from_settings), since a config's options are validated one by one. */
static int check_common_value(op_ctx *ctx, const op_solver_settings *settings, int k)
{
    const char *key = settings->key[k];
    op_solver_settings one = { .count = 1 };
    snprintf(one.key[0], sizeof one.key[0], "%s", key);
    snprintf(one.value[0], sizeof one.value[0], "%s", settings->value[k]);
    int choice;
    double number;
    if (strcmp(key, "chebyshev") == 0 || strcmp(key, "chebyshev_rotations") == 0 || strcmp(key, "anderson") == 0)
        return op_solver_setting_choice(ctx, &one, key, "off|on", &choice);
    if (strcmp(key, "chebyshev_rho") == 0) {
        if (!one.value[0][0])
            return OP_OK;
        if (op_solver_setting_double(ctx, &one, key, 0.0, 1.0, &number) != OP_OK)
            return ctx->status;
        if (!(number < 1.0))
            return OP_FAIL(ctx, OP_ERR_USAGE,
                           "solver option chebyshev_rho = '%s' must be a number in [0, 1): at 1 the "
                           "Chebyshev weights grow without bound", one.value[0]);
        return OP_OK;
    }
    if (strcmp(key, "anderson_m") == 0)
        return op_solver_setting_int(ctx, &one, key, 0, 50, &choice);
    if (strcmp(key, "chebyshev_delay") == 0)
        return op_solver_setting_int(ctx, &one, key, 1, 1000000, &choice);
    if (strcmp(key, "chebyshev_gamma") == 0) {
        if (op_solver_setting_double(ctx, &one, key, 0.0, 1.0, &number) != OP_OK)
            return ctx->status;
        if (!(number > 0.0))
            return OP_FAIL(ctx, OP_ERR_USAGE, "solver option chebyshev_gamma = '%s' must be a number in (0, 1]",
                           one.value[0]);
        return OP_OK;
    }
    return OP_OK; /* chebyshev_rho_source: free text */
}

int op_solver_settings_validate(op_ctx *ctx, const op_solver_type *type, op_solver_settings *settings)
{
    for (int k = 0; k < settings->count; ++k) {
        if (find_option(op_solver_common_options, settings->key[k])) {
            if (check_common_value(ctx, settings, k) != OP_OK)
                return ctx->status;
            continue;
        }
        if (!find_option(type->options, settings->key[k])) {
            char valid[1024] = "";
            append_keys(valid, sizeof valid, type->options);
            append_keys(valid, sizeof valid, op_solver_common_options);
            return OP_FAIL(ctx, OP_ERR_USAGE, "solver %s has no option '%s' (options: %s)", type->name,
                           settings->key[k], valid);
        }
    }
    const op_solver_option *tables[2] = { type->options, op_solver_common_options };
    for (int t = 0; t < 2; ++t)
        for (const op_solver_option *o = tables[t]; o->key; ++o) {
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
