/* The arithmetic of the make recipes (report_calc.h): a recursive-descent evaluator of one
 * expression, in doubles, left to right as awk would compute it, so that the numbers the
 * recipes wrote with awk come out the same. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_calc.h"

typedef struct calc_text {
    op_ctx *ctx;
    const char *expression, *at;
} calc_text;

static int expression(calc_text *t, double *value);
static int unary(calc_text *t, double *value);

static void skip_space(calc_text *t)
{
    while (isspace((unsigned char)*t->at))
        ++t->at;
}

static int fail(calc_text *t, const char *what)
{
    return OP_FAIL(t->ctx, OP_ERR_PARSE, "calc '%s': %s at '%s'", t->expression, what, t->at);
}

/* Consumes `c` (after spaces) if it is next. */
static int accept(calc_text *t, char c)
{
    skip_space(t);
    if (*t->at != c)
        return 0;
    ++t->at;
    return 1;
}

/* min(a, b), max(a, b), abs(x), le(a, b): the arguments after the name. */
static int call(calc_text *t, const char *name, size_t length, double *value)
{
    int le = length == 2 && strncmp(name, "le", 2) == 0;
    int two = le || (length == 3 && (strncmp(name, "min", 3) == 0 || strncmp(name, "max", 3) == 0));
    int one = length == 3 && strncmp(name, "abs", 3) == 0;
    if (!one && !two)
        return fail(t, "unknown function");
    double a, b = 0;
    if (!accept(t, '(') || expression(t, &a) != OP_OK)
        return t->ctx->status ? t->ctx->status : fail(t, "expected '('");
    if (two && (!accept(t, ',') || expression(t, &b) != OP_OK))
        return t->ctx->status ? t->ctx->status : fail(t, "expected ', '");
    if (!accept(t, ')'))
        return fail(t, "expected ')'");
    if (le)
        *value = a <= b; /* 0 where either is NaN, as awk's comparison of a run's "nan" */
    else
        *value = one ? (a < 0 ? -a : a) : name[1] == 'i' ? (b < a ? b : a) : (b > a ? b : a);
    return OP_OK;
}

static int primary(calc_text *t, double *value)
{
    skip_space(t);
    if (accept(t, '(')) {
        if (expression(t, value) != OP_OK)
            return t->ctx->status;
        return accept(t, ')') ? OP_OK : fail(t, "expected ')'");
    }
    if (isalpha((unsigned char)*t->at)) {
        const char *name = t->at;
        while (isalnum((unsigned char)*t->at))
            ++t->at;
        size_t length = (size_t)(t->at - name);
        if ((length == 3 && (strncmp(name, "nan", 3) == 0 || strncmp(name, "inf", 3) == 0))) {
            *value = strtod(name, NULL); /* a run's "nan" or "inf" passed on, as awk would */
            return OP_OK;
        }
        if (length == 2 && strncmp(name, "pi", 2) == 0) {
            *value = 3.14159265358979323846;
            return OP_OK;
        }
        return call(t, name, length, value);
    }
    char *end;
    *value = strtod(t->at, &end);
    if (end == t->at || isalpha((unsigned char)*t->at))
        return fail(t, "expected a number");
    t->at = end;
    return OP_OK;
}

/* primary ^ unary: right-associative, binding tighter than a leading minus. */
static int power(calc_text *t, double *value)
{
    if (primary(t, value) != OP_OK)
        return t->ctx->status;
    if (!accept(t, '^'))
        return OP_OK;
    double exponent;
    if (unary(t, &exponent) != OP_OK)
        return t->ctx->status;
    *value = pow(*value, exponent);
    return OP_OK;
}

static int unary(calc_text *t, double *value)
{
    if (accept(t, '-')) {
        if (unary(t, value) != OP_OK)
            return t->ctx->status;
        *value = -*value;
        return OP_OK;
    }
    accept(t, '+');
    return power(t, value);
}

static int term(calc_text *t, double *value)
{
    if (unary(t, value) != OP_OK)
        return t->ctx->status;
    for (;;) {
        skip_space(t);
        char op = *t->at;
        if (op != '*' && op != '/')
            return OP_OK;
        ++t->at;
        double right;
        if (unary(t, &right) != OP_OK)
            return t->ctx->status;
        if (op == '/' && right == 0)
            return fail(t, "division by zero");
        *value = op == '*' ? *value * right : *value / right;
    }
}

static int expression(calc_text *t, double *value)
{
    if (term(t, value) != OP_OK)
        return t->ctx->status;
    for (;;) {
        skip_space(t);
        char op = *t->at;
        if (op != '+' && op != '-')
            return OP_OK;
        ++t->at;
        double right;
        if (term(t, &right) != OP_OK)
            return t->ctx->status;
        *value = op == '+' ? *value + right : *value - right;
    }
}

int report_calc_eval(op_ctx *ctx, const char *text, double *value)
{
    calc_text t = { ctx, text, text };
    if (expression(&t, value) != OP_OK)
        return ctx->status;
    skip_space(&t);
    return *t.at ? fail(&t, "unexpected text") : OP_OK;
}

int report_calc_format_ok(const char *format)
{
    if (format[0] != '%')
        return 0;
    const char *c = format + 1;
    if (*c == '.') {
        ++c;
        if (!isdigit((unsigned char)*c))
            return 0;
        while (isdigit((unsigned char)*c))
            ++c;
    }
    return (*c == 'g' || *c == 'e' || *c == 'f') && c[1] == '\0';
}

void report_calc_write(double value, const char *format, const char *separator, FILE *out)
{
    /* the format is checked by report_calc_format_ok: one conversion of a double */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    fprintf(out, format, value);
#pragma GCC diagnostic pop
    fputs(separator, out);
}

int report_calc(op_ctx *ctx, const char *text, const char *format, FILE *out)
{
    double value;
    if (!report_calc_format_ok(format))
        return OP_FAIL(ctx, OP_ERR_USAGE, "--format '%s': expected %%g, %%e or %%f with an optional precision",
                       format);
    if (report_calc_eval(ctx, text, &value) == OP_OK)
        report_calc_write(value, format, "\n", out);
    return ctx->status;
}
