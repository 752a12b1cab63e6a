/* What the tests of a solver variant share: its settings from "key=value" pairs, as a config's
 * [solver] section gives them, a clock that prints each test's time (cmocka's setup and
 * teardown), a body's worst edge strain, and how many iterations a run of energies took to
 * converge. */
#ifndef OPSIM_TEST_SOLVER_H
#define OPSIM_TEST_SOLVER_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "math3.h"
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

/* The largest relative change of an edge's length from its rest length,
 * max over edges of | |x_i − x_j| − |x̄_i − x̄_j| | / |x̄_i − x̄_j|. */
static inline double worst_edge_strain(const op_body *body)
{
    const op_graph *g = body->graph;
    double worst = 0;
    for (int i = 0; i < g->particle_count; ++i)
        for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
            int j = g->adjacency[e];
            double rest = sqrt(v3_dist2(&g->rest_position[3 * i], &g->rest_position[3 * j]));
            double now = sqrt(v3_dist2(&body->state.position[3 * i], &body->state.position[3 * j]));
            worst = fmax(worst, fabs(now - rest) / rest);
        }
    return worst;
}

/* The first k from which (E_j − E*)/(E_0 − E*) stays within tol for every j ≥ k of the run's
 * energy[0 .. iterations] (|·|: an accelerated run may dip below E* by rounding or overshoot);
 * −1 if never. */
static inline int iterations_to(const double *energy, int iterations, double e_star, double tol)
{
    int reached = -1;
    for (int k = iterations; k >= 0; --k) {
        if (fabs(energy[k] - e_star) / (energy[0] - e_star) > tol)
            break;
        reached = k;
    }
    return reached;
}

#endif
