/* The thread team's meeting measured while running (team.h). */
#include "team.h"

#include <math.h>
#include <omp.h>
#include <stdatomic.h>

#include "timer.h"

/* Loads a waiting thread makes before it gives the measurement up: some milliseconds, where a
 * turn takes tens to hundreds of ns when both threads have a core. */
enum { PATIENCE = 1 << 22 };

double op_team_handoff_ns(int handoffs)
{
    if (handoffs < 2 || omp_get_max_threads() < 2 || omp_in_parallel())
        return NAN;
    handoffs += handoffs % 2; /* even, so that the last turn is thread 1's and thread 0 sees it end */
    /* the counter on a line of its own, so that only the turns move it between the cores */
    static _Alignas(64) atomic_long turn;
    static _Alignas(64) atomic_int abandoned;
    atomic_store(&turn, 0);
    atomic_store(&abandoned, 0);
    int team = 0;
    double took = 0.0;
#pragma omp parallel num_threads(2)
    {
        long me = omp_get_thread_num();
#pragma omp single
        team = omp_get_num_threads();
        /* the single's barrier: both threads are here, or the team has one */
        double start = op_now();
        for (long t = me; team == 2 && t <= handoffs; t += 2) {
            long waited = 0;
            while (atomic_load_explicit(&turn, memory_order_acquire) != t)
                if (++waited == PATIENCE || atomic_load_explicit(&abandoned, memory_order_relaxed)) {
                    atomic_store_explicit(&abandoned, 1, memory_order_relaxed);
                    break;
                }
            if (atomic_load_explicit(&abandoned, memory_order_relaxed))
                break;
            /* thread 0's wait for turn `handoffs` is the end of the last one: it is not taken */
            if (t == handoffs)
                took = op_now() - start;
            else
                atomic_store_explicit(&turn, t + 1, memory_order_release);
        }
    }
    if (team < 2)
        return NAN;
    if (atomic_load(&abandoned))
        return INFINITY;
    return 1e9 * took / handoffs;
}
