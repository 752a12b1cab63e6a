/* A monotonic clock for stage timings (seconds as a double).
 *
 * On x86-64 with an invariant time-stamp counter (one rate in every power state, the clock
 * source Linux itself reads on these machines), op_now() is the counter scaled by its rate,
 * which timer.c measures against CLOCK_MONOTONIC once, as the program starts: a read costs about
 * 9 ns where clock_gettime's costs 25–33 ns (kvm-clock), and a frame of the 180-model pile reads
 * the clock some 4,600 times, for its stage columns and the units' costs that share the threads'
 * work (docs/performance.md, "Runs of islands, a clock read in 9 ns, …"). Elsewhere, or without
 * an invariant counter, op_now() is clock_gettime(CLOCK_MONOTONIC). Either way its zero is
 * CLOCK_MONOTONIC's, and only differences are meant to be read. */
#ifndef OPSIM_TIMER_H
#define OPSIM_TIMER_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* The counter's scale (timer.c): seconds_per_tick 0 when op_now() reads clock_gettime. */
typedef struct op_tick_clock {
    double seconds_per_tick;
    uint64_t origin_ticks;
    double origin_seconds;
} op_tick_clock;
extern op_tick_clock op_tick;

static inline double op_monotonic_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline double op_now(void)
{
#if defined(__x86_64__)
    if (op_tick.seconds_per_tick > 0)
        return op_tick.origin_seconds + (double)(int64_t)(__rdtsc() - op_tick.origin_ticks) * op_tick.seconds_per_tick;
#endif
    return op_monotonic_seconds();
}

#endif
