/* The explicit scheme's growth on the 1 Hz spring (report_spring.h), computed in the order the
 * awk program it replaces did, so that the table's numbers stay the same. */
#include <math.h>
#include <stdlib.h>

#include "report_spring.h"

int report_explicit_spring(op_ctx *ctx, const char *factor_text, const char *steps_text, FILE *out)
{
    char *end_factor, *end_steps;
    double factor = strtod(factor_text, &end_factor);
    long steps = strtol(steps_text, &end_steps, 10);
    if (end_factor == factor_text || *end_factor || !(factor > 0))
        return OP_FAIL(ctx, OP_ERR_USAGE, "--factor '%s': expected a positive number", factor_text);
    if (end_steps == steps_text || *end_steps || steps < 3)
        return OP_FAIL(ctx, OP_ERR_USAGE, "--steps '%s': expected a whole number of at least 3", steps_text);
    double w = 2 * 3.14159265358979324, h = factor * 2 / w, alpha = h * h * w * w;
    alpha = alpha < 1 ? alpha : 1;
    double u = 0, v = -1, first = 0, last = 0;
    for (long s = 1; s <= steps; ++s) {
        v -= h * w * w * u;
        u += h * v;
        double size = fabs(u);
        if (s <= steps / 3 && size > first)
            first = size;
        if (s > steps - steps / 3 && size > last)
            last = size;
    }
    fprintf(out, "%s\t%.6g\t%.6g\t%.6g\n", factor_text, h, alpha, last / first);
    return OP_OK;
}
