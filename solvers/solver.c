/* Solver look-up and the [solver] settings shared by every variant: validation against the
 * variant's option table, defaults, and typed accessors whose errors name the option. */
#include "solver.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

int op_solver_settings_validate(op_ctx *ctx, const op_solver_type *type, op_solver_settings *settings)
{
    for (int k = 0; k < settings->count; ++k) {
        int known = 0;
        for (const op_solver_option *o = type->options; o->key && !known; ++o)
            known = strcmp(o->key, settings->key[k]) == 0;
        if (!known) {
            char valid[512] = "";
            for (const op_solver_option *o = type->options; o->key; ++o) {
                strncat(valid, valid[0] ? ", " : "", sizeof valid - strlen(valid) - 1);
                strncat(valid, o->key, sizeof valid - strlen(valid) - 1);
            }
            return OP_FAIL(ctx, OP_ERR_USAGE, "solver %s has no option '%s' (options: %s)", type->name,
                           settings->key[k], valid[0] ? valid : "none");
        }
    }
    for (const op_solver_option *o = type->options; o->key; ++o) {
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
