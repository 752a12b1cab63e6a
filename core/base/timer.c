/* The time-stamp counter's rate for op_now() (timer.h), measured when the program starts. */
#include "base/timer.h"

#include <math.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

op_tick_clock op_tick;

/* How long the rate is measured over: each end's reading (below) is good to about 20 ns, so the
 * rate is good to about 10^-5 (20 ns at each end of 2 ms), and every program waits this long
 * once. */
static const double CALIBRATION_SECONDS = 2e-3;

#if defined(__x86_64__)
/* CPUID 0x80000007, EDX bit 8: the counter runs at one rate in every power state (Linux's
 * "constant_tsc nonstop_tsc"). Without it the counter may slow or stop with the core. */
static int counter_invariant(void)
{
    unsigned a, b, c, d;
    if ((unsigned)__get_cpuid_max(0x80000000u, 0) < 0x80000007u || !__get_cpuid(0x80000007u, &a, &b, &c, &d))
        return 0;
    return (d >> 8) & 1u;
}

/* The counter and CLOCK_MONOTONIC at one moment: the counter read between two clock reads, the
 * clock taken as their mean, of the tightest of a few tries (a read can be held up: the first
 * one by the clock's page coming in, any by an interrupt). */
static void read_both(uint64_t *ticks, double *seconds)
{
    double tightest = INFINITY;
    for (int k = 0; k < 5; ++k) {
        double before = op_monotonic_seconds();
        uint64_t t = __rdtsc();
        double after = op_monotonic_seconds();
        if (after - before < tightest) {
            tightest = after - before;
            *ticks = t;
            *seconds = 0.5 * (before + after);
        }
    }
}

__attribute__((constructor)) static void calibrate_ticks(void)
{
    if (!counter_invariant())
        return;
    uint64_t first = 0, last = 0;
    double start = 0.0, end = 0.0;
    read_both(&first, &start);
    do
        read_both(&last, &end);
    while (end - start < CALIBRATION_SECONDS);
    if (last <= first)
        return;
    op_tick.origin_ticks = last;
    op_tick.origin_seconds = end;
    op_tick.seconds_per_tick = (end - start) / (double)(last - first);
}
#endif
