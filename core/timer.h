/* A monotonic clock for stage timings (seconds as a double). */
#ifndef OPSIM_TIMER_H
#define OPSIM_TIMER_H

#include <time.h>

static inline double op_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
