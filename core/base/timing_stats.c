/* The timing protocol's statistics (timing_stats.h). */
#include "base/timing_stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* P(B ≤ k) for B ~ Bin(n, ½), summed in logarithms so that large n does not underflow 2^−n. */
static double binomial_half_cdf(int n, int k)
{
    double sum = 0.0, log_half_n = n * log(0.5), log_n_factorial = lgamma(n + 1.0);
    for (int i = 0; i <= k; ++i)
        sum += exp(log_n_factorial - lgamma(i + 1.0) - lgamma(n - i + 1.0) + log_half_n);
    return sum;
}

int op_timing_interval_rank(int n)
{
    if (n < 1)
        return 0;
    int j = 1;
    /* the tail grows with j: take j + 1 while its tail P(B ≤ j) stays within 2.5 % */
    while (j < (n + 1) / 2 && binomial_half_cdf(n, j) <= 0.025)
        ++j;
    return j;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

op_timing_summary op_timing_summarize(double *v, int n)
{
    op_timing_summary s = { .n = n, .median = NAN, .lo = NAN, .hi = NAN, .noisy = 1 };
    if (n < 1)
        return s;
    qsort(v, (size_t)n, sizeof *v, compare_double);
    s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    int j = op_timing_interval_rank(n);
    s.lo = v[j - 1];
    s.hi = v[n - j];
    s.noisy = n < OP_TIMING_MIN_SAMPLES || 0.5 * (s.hi - s.lo) > OP_TIMING_NOISY_SHARE * s.median;
    return s;
}

double op_thread_cpu_seconds(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
        return NAN;
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

const char *op_cpu_model(char *name, int size)
{
    snprintf(name, (size_t)size, "unknown");
    FILE *in = fopen("/proc/cpuinfo", "r");
    if (!in)
        return name;
    char line[512];
    while (fgets(line, sizeof line, in)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || !colon)
            continue;
        char *text = colon + 1;
        text += strspn(text, " \t");
        text[strcspn(text, "\r\n")] = '\0';
        /* commas would split a CSV cell; runs of spaces are the vendor's padding */
        for (char *c = text; *c; ++c)
            if (*c == ',')
                *c = ';';
        snprintf(name, (size_t)size, "%s", text);
        break;
    }
    fclose(in);
    return name;
}
