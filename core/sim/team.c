/* The thread team's meeting measured while running, and the runs of work a team shares (team.h). */
#include "sim/team.h"

#include <math.h>
#include <omp.h>
#include <stdatomic.h>

#include "base/timer.h"

/* Loads a waiting thread makes before it gives the measurement up: about a tenth of a
 * millisecond, where a turn takes tens to hundreds of ns when both threads have a core. A world
 * measures every frame, so a thread that has lost its core must not cost the frame more. */
enum { PATIENCE = 1 << 16 };
/* Turns taken before the timed ones: the first after a team forms cost more (a woken thread
 * getting its core back, the counter's line coming in), and would be read as cores far apart. */
enum { WARM_TURNS = 4 };

double op_team_handoff_ns(int handoffs)
{
    if (handoffs < 2 || omp_get_max_threads() < 2 || omp_in_parallel())
        return NAN;
    handoffs += handoffs % 2; /* even, so that the last turn is thread 1's and thread 0 sees it end */
    _Static_assert(WARM_TURNS % 2 == 0, "thread 0 takes the first timed turn");
    /* the counter on a line of its own, so that only the turns move it between the cores; on the
     * caller's stack (shared by the team), so that calls from different threads do not meet */
    _Alignas(64) atomic_long turn;
    _Alignas(64) atomic_int abandoned;
    atomic_init(&turn, 0);
    atomic_init(&abandoned, 0);
    int team = 0;
    double took = 0.0;
#pragma omp parallel num_threads(2)
    {
        long me = omp_get_thread_num();
#pragma omp single
        team = omp_get_num_threads();
        /* the single's barrier: both threads are here, or the team has one */
        double start = 0.0;
        for (long t = me; team == 2 && t <= WARM_TURNS + handoffs; t += 2) {
            long waited = 0;
            while (atomic_load_explicit(&turn, memory_order_acquire) != t)
                if (++waited == PATIENCE || atomic_load_explicit(&abandoned, memory_order_relaxed)) {
                    atomic_store_explicit(&abandoned, 1, memory_order_relaxed);
                    break;
                }
            if (atomic_load_explicit(&abandoned, memory_order_relaxed))
                break;
            /* thread 0 starts the clock as it takes the first timed turn; its wait for turn
             * WARM_TURNS + handoffs is the end of the last one, not a turn to take */
            if (t == WARM_TURNS)
                start = op_now();
            if (t == WARM_TURNS + handoffs)
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

void op_run_set(op_run *run, int first, int last)
{
    run->range = (uint64_t)(first + OP_RUN_BIAS) << 32 | (uint64_t)(last + OP_RUN_BIAS);
}

int op_run_take(op_run *run, int low)
{
    uint64_t old;
    if (low) {
#pragma omp atomic capture
        {
            old = run->range;
            run->range += (uint64_t)1 << 32;
        }
    } else {
#pragma omp atomic capture
        {
            old = run->range;
            run->range -= 1;
        }
    }
    int64_t first = (int64_t)(old >> 32) - OP_RUN_BIAS, last = (int64_t)(old & 0xffffffffu) - OP_RUN_BIAS;
    if (first >= last)
        return -1;
    return (int)(low ? first : last - 1);
}
