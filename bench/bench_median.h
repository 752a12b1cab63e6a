/* The median every benchmark reports (docs/design.md §6: timings are medians of repeated runs). */
#ifndef OPSIM_BENCH_MEDIAN_H
#define OPSIM_BENCH_MEDIAN_H

#include <stdlib.h>

static inline int bench_compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v). */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif
