/* Tests of core/team.c: the cache line's hand-over between two threads is a finite, positive
 * time on two threads, NAN where there is no second thread to hand it to (one thread, or inside
 * a parallel region), and an odd count of turns is measured too. */
#include <math.h>
#include <omp.h>

#include "team.h"
#include "test_util.h"

static void test_handoff_measured_on_two_threads(void **state)
{
    (void)state;
    omp_set_num_threads(2);
    for (int handoffs = 2; handoffs <= 4096; handoffs *= 8) {
        double ns = op_team_handoff_ns(handoffs), odd = op_team_handoff_ns(handoffs + 1);
        print_message("%d hand-overs: %.0f ns each; %d: %.0f ns\n", handoffs, ns, handoffs + 1, odd);
        /* a turn is at least a load and a store, and far less than a millisecond on two cores
         * (INFINITY says a thread waited for the other that long: then this machine has fewer
         * cores than threads, which the suite's two threads do not expect) */
        assert_true(ns > 0.1 && ns < 1e6);
        assert_true(odd > 0.1 && odd < 1e6);
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
        cmocka_unit_test(test_handoff_measured_on_two_threads),
        cmocka_unit_test(test_handoff_not_measured_without_a_second_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
