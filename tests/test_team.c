/* Tests of core/team.c: the cache line's hand-over between two threads is a finite, positive
 * time on two threads, NAN where there is no second thread to hand it to (one thread, or inside
 * a parallel region), INFINITY when the two threads share one core, and an odd count of turns is
 * measured too. */
#define _GNU_SOURCE /* sched_setaffinity */
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include "team.h"
#include "test_util.h"

/* Two threads on one core: the waiting thread holds the core the other needs, so it gives up
 * (team.c's PATIENCE) and the measure says the team cannot meet. In a child process pinned to
 * one CPU before its first parallel region (OpenMP's threads inherit the mask; a child forked
 * after a team exists has no threads, so this test runs first). */
static void test_handoff_infinite_on_one_core(void **state)
{
    (void)state;
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0)
            _exit(2); /* not allowed here: nothing to test */
        omp_set_num_threads(2);
        _exit(isinf(op_team_handoff_ns(16)) ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) == 2)
        skip();
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_handoff_measured_on_two_threads(void **state)
{
    (void)state;
    omp_set_num_threads(2);
    /* Right after its thread is made (or woken) the system may run it on the core the first one
     * spins on, until it moves it (INFINITY, team.h): measures are taken until a finite one, a
     * hundred at most. A turn is at least a load and a store, and far less than a millisecond
     * on two cores. */
    for (int handoffs = 2; handoffs <= 4096; handoffs *= 8)
        for (int odd = 0; odd <= 1; ++odd) {
            double ns = INFINITY;
            int tries = 0;
            while (isinf(ns) && tries++ < 100)
                ns = op_team_handoff_ns(handoffs + odd);
            print_message("%d hand-overs: %.0f ns each (measure %d)\n", handoffs + odd, ns, tries);
            assert_true(ns > 0.1 && ns < 1e6);
        }
    assert_true(isnan(op_team_handoff_ns(1)) && isnan(op_team_handoff_ns(0)));
}

static void test_handoff_not_measured_without_a_second_thread(void **state)
{
    (void)state;
    omp_set_num_threads(1);
    assert_true(isnan(op_team_handoff_ns(16)));
    omp_set_num_threads(2);
    int inside = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp single
        inside = isnan(op_team_handoff_ns(16));
    }
    assert_true(inside);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_handoff_infinite_on_one_core), /* first: it forks (above) */
        cmocka_unit_test(test_handoff_measured_on_two_threads),
        cmocka_unit_test(test_handoff_not_measured_without_a_second_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
