/* What the tests of a solver variant share: its settings from "key=value" pairs, as a config's
 * [solver] section gives them, and a clock that prints each test's time (cmocka's setup and
 * teardown). */
#ifndef OPSIM_TEST_SOLVER_H
#define OPSIM_TEST_SOLVER_H

#include <stdio.h>
#include <string.h>

#include "solver.h"
#include "test_util.h"
#include "timer.h"

/* Solver settings from "key=value" pairs, NULL-terminated (NULL: none). */
static inline op_solver_settings make_settings(const char *const *pairs)
{
    op_solver_settings settings = { 0 };
    for (int k = 0; pairs && pairs[k]; ++k) {
        const char *eq = strchr(pairs[k], '=');
        assert_non_null(eq);
        snprintf(settings.key[k], sizeof settings.key[0], "%.*s", (int)(eq - pairs[k]), pairs[k]);
        snprintf(settings.value[k], sizeof settings.value[0], "%s", eq + 1);
        settings.count++;
    }
    return settings;
}

static double test_started;

static inline int clock_start(void **state)
{
    (void)state;
    test_started = op_now();
    return 0;
}

static inline int clock_stop(void **state)
{
    (void)state;
    print_message("    %.3f s\n", op_now() - test_started);
    return 0;
}

#endif
