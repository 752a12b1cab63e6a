/* Tests of core/base/timer.c: op_now() keeps CLOCK_MONOTONIC's pace over sleeps of 20 and 200 ms
 * (the counter's rate, when the counter is read, measured right), never goes back across many
 * reads and across the two threads of a team, and starts where CLOCK_MONOTONIC is. The machine
 * probe (core/base/probe.c) does the same work on every call: its checksum, bitwise. */
#include <omp.h>
#include <time.h>

#include "test_util.h"
#include "base/probe.h"
#include "base/timer.h"

static void sleep_seconds(double seconds)
{
    struct timespec wait = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
    while (nanosleep(&wait, &wait) != 0) {
    }
}

/* Over a sleep, op_now()'s elapsed time is CLOCK_MONOTONIC's to 10^-4 of it and 5 µs: the
 * calibration measures the rate to about 10^-5 (timer.c; 0.2 s sleeps agreed to 5·10^-6). Each
 * sleep is tried up to three times, a try failing only when the thread loses its core between
 * the two clocks' reads at either end; a wrong rate fails every try. */
static void test_now_keeps_pace_with_the_monotonic_clock(void **state)
{
    (void)state;
    print_message("op_now reads %s\n", op_tick.seconds_per_tick > 0 ? "the time-stamp counter" : "clock_gettime");
    const double sleeps[2] = { 0.02, 0.2 };
    for (int k = 0; k < 2; ++k) {
        double off = INFINITY, clock_took = 0.0;
        for (int attempt = 0; attempt < 3 && !(off <= 1e-4 * clock_took + 5e-6); ++attempt) {
            double now_start = op_now(), clock_start = op_monotonic_seconds();
            sleep_seconds(sleeps[k]);
            clock_took = op_monotonic_seconds() - clock_start;
            double now_took = op_now() - now_start;
            off = fabs(now_took - clock_took);
            print_message("slept %.3f s: op_now %.9f s, CLOCK_MONOTONIC %.9f s\n", sleeps[k], now_took, clock_took);
        }
        assert_le(off, 1e-4 * clock_took + 5e-6);
    }
    assert_le(fabs(op_now() - op_monotonic_seconds()), 1e-3);
}

/* A million reads on each of two threads never go back, and a read after a barrier is not
 * before the other thread's read before it (the counter is one clock across the cores). */
static void test_now_never_goes_back(void **state)
{
    (void)state;
    int back = 0;
    double before[2] = { 0.0, 0.0 };
#pragma omp parallel num_threads(2) reduction(+ : back)
    {
        int thread = omp_get_thread_num();
        double last = op_now();
        for (int k = 0; k < 1000000; ++k) {
            double t = op_now();
            back += t < last;
            last = t;
        }
        before[thread] = op_now();
#pragma omp barrier
        int other = omp_get_num_threads() == 2 ? 1 - thread : thread;
        back += op_now() < before[other];
    }
    assert_int_equal(back, 0);
}

/* The probe's work is fixed: two calls give bitwise the same checksum, the traces of 4,096
 * rotations (each polar factor of a matrix near I, so each trace a little under 3), and a time. */
static void test_probe_does_fixed_work(void **state)
{
    (void)state;
    double first = 0.0, second = 1.0;
    double ms = op_probe_ms(&first);
    op_probe_ms(&second);
    print_message("probe: %.4f ms a pass, checksum %.17g\n", ms, first);
    assert_true(ms > 0.0 && isfinite(ms));
    assert_memory_equal(&first, &second, sizeof first);
    assert_true(first > 0.9 * 3 * 4096 && first < 3 * 4096);
    assert_true(fabs(first - 12158.040632303053) <= 1e-8); /* gcc, clang and the plain-C build alike */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_now_keeps_pace_with_the_monotonic_clock),
        cmocka_unit_test(test_now_never_goes_back),
        cmocka_unit_test(test_probe_does_fixed_work),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
