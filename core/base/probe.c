/* The machine-speed probe (probe.h). */
#include "base/probe.h"

#include <math.h>
#include <stdlib.h>

#include "base/math3.h"
#include "base/rng.h"
#include "base/timer.h"

enum { PROBE_MATRICES = 4096, PROBE_STEPS = 8, PROBE_PASSES = 5 };

/* One Newton step of the polar decomposition: x ← (x + x⁻ᵀ)/2, x⁻ᵀ = cof(x)/det(x), the cofactor
 * matrix's rows the cross products of x's rows. */
static void newton_step(double x[9])
{
    double cof[9];
    v3_cross(&cof[0], &x[3], &x[6]);
    v3_cross(&cof[3], &x[6], &x[0]);
    v3_cross(&cof[6], &x[0], &x[3]);
    double det = v3_dot(&x[0], &cof[0]);
    for (int i = 0; i < 9; ++i)
        x[i] = 0.5 * (x[i] + cof[i] / det);
}

/* One pass on the matrices, made afresh from the seed; the sum of their traces after it. */
static double probe_pass(double *matrices)
{
    op_rng rng = op_rng_seeded(0x6f7073696d);
    for (int m = 0; m < PROBE_MATRICES; ++m) {
        double *x = &matrices[9 * m];
        m3_identity(x);
        for (int i = 0; i < 9; ++i)
            x[i] += 0.5 * (op_rng_uniform(&rng) - 0.5);
    }
    for (int step = 0; step < PROBE_STEPS; ++step)
        for (int m = 0; m < PROBE_MATRICES; ++m)
            newton_step(&matrices[9 * m]);
    double sum = 0.0;
    for (int m = 0; m < PROBE_MATRICES; ++m)
        sum += m3_trace(&matrices[9 * m]);
    return sum;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double op_probe_ms(double *checksum)
{
    double *matrices = malloc(9 * PROBE_MATRICES * sizeof *matrices), took[PROBE_PASSES], sum = NAN;
    if (!matrices)
        return NAN;
    for (int pass = 0; pass < PROBE_PASSES; ++pass) {
        double start = op_now();
        sum = probe_pass(matrices);
        took[pass] = 1e3 * (op_now() - start);
    }
    free(matrices);
    if (checksum)
        *checksum = sum;
    qsort(took, PROBE_PASSES, sizeof *took, by_value);
    return took[PROBE_PASSES / 2];
}
