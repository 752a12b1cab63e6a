/* Tests of core/sim/team.c: the cache line's hand-over between two threads is a finite, positive
 * time on two threads, NAN where there is no second thread to hand it to (one thread, or inside
 * a parallel region), INFINITY when the two threads share one core, and an odd count of turns is
 * measured too; and a team's runs of work give every item to exactly one taker, owners from
 * one end and the others from the other. */
#define _GNU_SOURCE /* sched_setaffinity */
#include <math.h>
#include <time.h>
#include <omp.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/team.h"
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
     * millisecond apart for up to 3 s. A machine busy with other work may give the second
     * thread no core that long; the test is then skipped, not failed (make test beside other
     * jobs saw 100 measures in a row infinite). A turn is at least a load and a store, and far
     * less than a millisecond on two cores. */
    for (int handoffs = 2; handoffs <= 4096; handoffs *= 8)
        for (int odd = 0; odd <= 1; ++odd) {
            double ns = INFINITY;
            int tries = 0;
            while (isinf(ns) && tries++ < 3000) {
                ns = op_team_handoff_ns(handoffs + odd);
                if (isinf(ns))
                    nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
            }
            print_message("%d hand-overs: %.0f ns each (measure %d)\n", handoffs + odd, ns, tries);
            if (isinf(ns)) {
                print_message("the second thread got no core of its own for 3 s: skipped\n");
                skip();
            }
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

/* One thread's takes from both ends of a run meet in the middle, and an empty run stays empty
 * however many takes it is asked for (the bias keeps the failed takes from wrapping). */
static void test_run_taken_from_both_ends(void **state)
{
    (void)state;
    op_run run;
    op_run_set(&run, 3, 7);
    assert_int_equal(op_run_take(&run, 1), 3);
    assert_int_equal(op_run_take(&run, 0), 6);
    assert_int_equal(op_run_take(&run, 1), 4);
    assert_int_equal(op_run_take(&run, 0), 5);
    for (int k = 0; k < 100; ++k) {
        assert_int_equal(op_run_take(&run, k % 2), -1);
    }
    op_run_set(&run, 0, 0);
    assert_int_equal(op_run_take(&run, 0), -1);
    assert_int_equal(op_run_take(&run, 1), -1);
}

/* Four threads, each taking its own run from the low end and then the others' from the high
 * end, as world.c's units and collide.c's islands are taken: every item is taken exactly once,
 * an owner's takes rise and a thief's fall, over runs of unequal length (one empty) and many
 * rounds, so that owners and thieves meet in every run at one time or another. */
static void test_runs_give_every_item_once(void **state)
{
    (void)state;
    enum { TEAM = 4, ITEMS = 1000, ROUNDS = 200 };
    const int bound[TEAM + 1] = { 0, 600, 600, 650, ITEMS };
    _Alignas(64) op_run runs[TEAM];
    int taken[ITEMS];
    int bad_order = 0, wrong_team = 0;
    for (int round = 0; round < ROUNDS; ++round) {
        for (int k = 0; k < ITEMS; ++k)
            taken[k] = 0;
#pragma omp parallel num_threads(TEAM) reduction(+ : bad_order, wrong_team)
        {
            int thread = omp_get_thread_num(), team = omp_get_num_threads();
            wrong_team += team != TEAM;
            op_run_set(&runs[thread], bound[thread], bound[thread + 1]);
#pragma omp barrier
            for (int other = 0; other < team; ++other) {
                int owner = (thread + other) % team, last = other == 0 ? -1 : ITEMS;
                for (int item; (item = op_run_take(&runs[owner], other == 0)) >= 0;) {
                    bad_order += other == 0 ? item <= last : item >= last;
                    bad_order += item < bound[owner] || item >= bound[owner + 1];
                    last = item;
#pragma omp atomic
                    taken[item]++;
                }
            }
        }
        for (int k = 0; k < ITEMS; ++k)
            assert_int_equal(taken[k], 1);
    }
    assert_int_equal(wrong_team, 0);
    assert_int_equal(bad_order, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_handoff_infinite_on_one_core), /* first: it forks (above) */
        cmocka_unit_test(test_handoff_measured_on_two_threads),
        cmocka_unit_test(test_handoff_not_measured_without_a_second_thread),
        cmocka_unit_test(test_run_taken_from_both_ends),
        cmocka_unit_test(test_runs_give_every_item_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
