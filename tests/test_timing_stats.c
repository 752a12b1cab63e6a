/* Tests of core/base/timing_stats.c and core/base/choice.c: the order-statistic ranks of the
 * median's 95 % interval against the binomial tables, the summaries of known samples (median,
 * interval ends, the noisy mark on both sides of 5 %), and a choice that calibrates, settles on
 * the faster option, follows a change of speeds at its next calibration and ignores calls it did
 * not ask to have timed. */
#include <string.h>

#include "test_util.h"
#include "base/choice.h"
#include "base/timing_stats.h"

/* Ranks j of [x(j), x(n+1−j)]: the largest j with P(Bin(n, ½) ≤ j − 1) ≤ 2.5 %. n = 9:
 * P(B ≤ 1) = 10/512 = 1.95 %, P(B ≤ 2) = 46/512 = 9.0 %; n = 10: 11/1024 = 1.07 %, then 5.5 %;
 * n = 20: P(B ≤ 5) = 2.07 %, P(B ≤ 6) = 5.77 %; n = 100: P(B ≤ 39) = 1.76 %, P(B ≤ 40) = 2.84 %; n = 1000 from the same sum. */
static void test_interval_ranks_are_the_binomial_ones(void **state)
{
    (void)state;
    const int n[] = { 0, 1, 2, 5, 6, 7, 8, 9, 10, 20, 100, 1000 };
    const int rank[] = { 0, 1, 1, 1, 1, 1, 1, 2, 2, 6, 40, 469 };
    for (size_t k = 0; k < sizeof n / sizeof n[0]; ++k) {
        if (op_timing_interval_rank(n[k]) != rank[k])
            fail_msg("n = %d: rank %d, expected %d", n[k], op_timing_interval_rank(n[k]), rank[k]);
    }
}

static void test_summary_of_known_samples(void **state)
{
    (void)state;
    /* 1 .. 10 shuffled: median 5.5, interval [x(2), x(9)] = [2, 9], half-width 3.5 > 5 % */
    double spread[10] = { 7, 3, 10, 1, 5, 9, 2, 8, 6, 4 };
    op_timing_summary s = op_timing_summarize(spread, 10);
    assert_int_equal(s.n, 10);
    assert_close(s.median, 5.5, 0);
    assert_close(s.lo, 2.0, 0);
    assert_close(s.hi, 9.0, 0);
    assert_true(s.noisy);
    /* tight: median 100, [98.5, 101.5], half-width 1.5 ≤ 5 */
    double tight[10] = { 100, 101, 99, 102, 98, 100.5, 99.5, 101.5, 98.5, 100 };
    s = op_timing_summarize(tight, 10);
    assert_close(s.median, 100.0, 0);
    assert_close(s.lo, 98.5, 0);
    assert_close(s.hi, 101.5, 0);
    assert_false(s.noisy);
    /* six samples: the range; half-width just under and just over 5 % of the median 100 */
    double under[6] = { 104.98, 100, 95, 100, 100, 100 }, over[6] = { 105.02, 100, 95, 100, 100, 100 };
    s = op_timing_summarize(under, 6);
    assert_close(s.median, 100.0, 0);
    assert_close(s.lo, 95.0, 0);
    assert_close(s.hi, 104.98, 0);
    assert_false(s.noisy);
    s = op_timing_summarize(over, 6);
    assert_true(s.noisy);
    /* five identical samples: no interval reaches 95 %, noisy whatever the spread */
    double few[5] = { 3, 3, 3, 3, 3 };
    s = op_timing_summarize(few, 5);
    assert_close(s.median, 3.0, 0);
    assert_true(s.noisy);
    s = op_timing_summarize(few, 0);
    assert_true(isnan(s.median) && s.noisy && s.n == 0);
}

static void test_thread_cpu_clock_and_cpu_model(void **state)
{
    (void)state;
    double start = op_thread_cpu_seconds();
    volatile double sink = 0.0;
    for (int k = 0; k < 20000000; ++k)
        sink += 1e-9 * k;
    double spent = op_thread_cpu_seconds() - start;
    print_message("20M additions: %.4f s of thread CPU time\n", spent);
    assert_true(spent > 0.0 && spent < 10.0);
    char model[128];
    assert_ptr_equal(op_cpu_model(model, sizeof model), model);
    print_message("CPU: %s\n", model);
    assert_true(model[0] != '\0' && strchr(model, ',') == NULL);
}

/* The option times of a calibration, `fast` the faster one: every call in turn, as the slots
 * say; returns the calls made. */
static int calibrate(op_choice *c, long *slot, int fast)
{
    int calls = 0;
    while (op_choice_calibrating(c)) {
        int option = op_choice_take(c, (*slot)++);
        op_choice_record(c, option, option == fast ? 1e-3 : 1.3e-3);
        ++calls;
    }
    return calls;
}

static void test_choice_takes_the_faster_option_and_recalibrates(void **state)
{
    (void)state;
    op_choice c;
    op_choice_init(&c, 2, 6, 100);
    assert_true(op_choice_calibrating(&c));
    long slot = 0;
    assert_int_equal(calibrate(&c, &slot, 1), 12); /* six calls each, alternating */
    assert_int_equal(c.chosen, 1);
    assert_int_equal(c.calibrations, 1);
    assert_close(c.median[0], 1.3e-3, 0);
    assert_close(c.median[1], 1e-3, 0);
    /* settled: the chosen option for `settle` calls, whatever the slot; their times ignored */
    for (int k = 0; k < 100; ++k) {
        assert_false(op_choice_calibrating(&c));
        assert_int_equal(op_choice_take(&c, slot++), 1);
        op_choice_record(&c, 0, 0.0);
    }
    assert_true(op_choice_calibrating(&c));
    /* the speeds changed: the next calibration follows */
    calibrate(&c, &slot, 0);
    assert_int_equal(c.chosen, 0);
    assert_int_equal(c.calibrations, 2);
}

static void test_choice_uses_medians_and_breaks_ties_low(void **state)
{
    (void)state;
    op_choice c;
    op_choice_init(&c, 2, 5, 10);
    /* option 0 has one very slow call (a slow spell) but the lower median */
    const double zero[5] = { 1.0, 1.0, 50.0, 1.0, 1.0 }, one[5] = { 1.1, 1.1, 1.1, 1.1, 1.1 };
    for (int k = 0; k < 5; ++k) {
        op_choice_record(&c, 0, zero[k]);
        op_choice_record(&c, 1, one[k]);
        op_choice_record(&c, 1, 0.0); /* beyond option 1's trials once it has them: ignored */
    }
    assert_int_equal(c.chosen, 0);
    op_choice_init(&c, 3, 1, 10);
    op_choice_record(&c, 2, 1.0);
    op_choice_record(&c, 1, 1.0);
    assert_true(op_choice_calibrating(&c));
    op_choice_record(&c, 0, 1.0);
    assert_int_equal(c.chosen, 0);
    assert_int_equal(op_choice_take(&c, -7), 0);
    op_choice_init(&c, 3, 1, 10);
    assert_int_equal(op_choice_take(&c, -1), 2); /* negative slots wrap */
}

/* Two choices taking turns (choice.h, "Turns"), their times injected: while the first
 * calibrates the second waits on its initial option and records nothing, then the second
 * calibrates while the first keeps its choice; each picks its own faster option whatever the
 * other does. A choice due while the other calibrates waits for the turn. */
static void test_choices_take_turns(void **state)
{
    (void)state;
    op_choice first, second;
    op_choice_init(&first, 2, 3, 20);
    op_choice_init(&second, 2, 3, 20);
    second.initial = 1;
    op_choice *both[2] = { &first, &second };
    int turn = 0, calls = 0;
    /* the first's option 0 is the faster; the second's option 0, were it timed now, too */
    while (first.chosen < 0) {
        op_choice_turn(both, 2, &turn);
        assert_int_equal(turn, 0);
        assert_false(op_choice_calibrating(&second));
        assert_int_equal(op_choice_take(&second, calls), 1);
        op_choice_record(&second, 0, 1e-3);
        int option = op_choice_take(&first, calls++);
        op_choice_record(&first, option, option == 0 ? 2e-3 : 3e-3);
    }
    assert_int_equal(calls, 6);
    assert_int_equal(first.chosen, 0);
    assert_int_equal(second.taken[0] + second.taken[1], 0);
    /* the turn passes: the second's option 1 is the faster */
    while (second.chosen < 0) {
        op_choice_turn(both, 2, &turn);
        assert_int_equal(turn, 1);
        assert_false(op_choice_calibrating(&first));
        assert_int_equal(op_choice_take(&first, calls), 0);
        op_choice_record(&first, 1, 1e-6);
        int option = op_choice_take(&second, calls++);
        op_choice_record(&second, option, option == 1 ? 1e-3 : 5e-3);
    }
    assert_int_equal(second.chosen, 1);
    assert_int_equal(first.calibrations, 1);
    assert_close(first.median[0], 2e-3, 0);
    assert_close(second.median[0], 5e-3, 0);
    /* the first's settle runs out while the second holds the turn; the turn then comes back */
    assert_int_equal(first.settled_calls, 6); /* waiting, it still counted its calls */
    for (int k = 6; k < 20; ++k) {
        op_choice_turn(both, 2, &turn);
        assert_int_equal(turn, 1);
        assert_int_equal(op_choice_take(&first, calls), 0);
        assert_int_equal(op_choice_take(&second, calls++), 1);
    }
    op_choice_turn(both, 2, &turn);
    assert_int_equal(turn, 0);
    assert_true(op_choice_calibrating(&first));
    assert_false(op_choice_calibrating(&second));
    /* one choice alone never waits */
    op_choice_turn(both, 1, &turn);
    assert_int_equal(turn, 0);
    assert_false(first.waiting);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interval_ranks_are_the_binomial_ones),
        cmocka_unit_test(test_summary_of_known_samples),
        cmocka_unit_test(test_thread_cpu_clock_and_cpu_model),
        cmocka_unit_test(test_choice_takes_the_faster_option_and_recalibrates),
        cmocka_unit_test(test_choice_uses_medians_and_breaks_ties_low),
        cmocka_unit_test(test_choices_take_turns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
