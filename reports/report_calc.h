/* Arithmetic for the make recipes (reports/report_calc.c), the `calc` section of opsim-report:
 * one expression of numbers, + - * / ^ (right-associative, above unary minus, as in awk),
 * parentheses, the constant pi, nan and inf (as a run's series prints them), and the functions
 * min(a, b), max(a, b), abs(x) and le(a, b) (1 where a ≤ b, else 0, also for a NaN), e.g.
 *   opsim-report calc --format %.17g '1 / 30'        prints 0.033333333333333333
 *   opsim-report calc --format %.4g '1e3 * 2.5 / (40 * 3)'
 * A division by zero, an unknown name or a malformed expression is an error naming the
 * expression; nothing is printed then. */
#ifndef OPSIM_REPORT_CALC_H
#define OPSIM_REPORT_CALC_H

#include <stdio.h>

#include "opsim/ctx.h"

/* Evaluates `expression` into *value. */
int report_calc_eval(op_ctx *ctx, const char *expression, double *value);

/* Whether `format` is one printf conversion of a double: %g, %e or %f, with an optional
 * precision (%.17g), and nothing else. */
int report_calc_format_ok(const char *format);

/* Writes `value` in `format` (report_calc_format_ok) followed by `separator`. */
void report_calc_write(double value, const char *format, const char *separator, FILE *out);

/* The `calc` section: the expression's value in `format`, and a newline. */
int report_calc(op_ctx *ctx, const char *expression, const char *format, FILE *out);

#endif
