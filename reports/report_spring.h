/* The explicit scheme on Choi & Lee's 1 Hz spring (reports/report_spring.c), the `explicit-spring`
 * section of opsim-report: the reference column of experiments/meshless.mk's spring table,
 * beside the runs of the meshless variant at the same time steps.
 * The spring: k/m = w^2, w = 2 pi; h_crit = 2 / w; h = FACTOR h_crit; alpha = min(1, h^2 w^2).
 * Symplectic Euler from u = 0, v = -1 (v -= h w^2 u; u += h v) for --steps steps; the growth
 * is the largest |u| over the last third of the steps over the largest over the first third.
 * Prints "FACTOR<TAB>h<TAB>alpha<TAB>growth" (FACTOR as given, the others %.6g) and a newline. */
#ifndef OPSIM_REPORT_SPRING_H
#define OPSIM_REPORT_SPRING_H

#include <stdio.h>

#include "opsim/ctx.h"

int report_explicit_spring(op_ctx *ctx, const char *factor, const char *steps, FILE *out);

#endif
