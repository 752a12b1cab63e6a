/* What the tests of a solver variant share: its settings from "key=value" pairs, as a config's
 * [solver] section gives them, a world of one catalogue body to run it in, a clock that prints
 * each test's time (cmocka's setup and teardown), a body's worst edge strain, and how many
 * iterations a run of energies took to converge. */
#ifndef OPSIM_TEST_SOLVER_H
#define OPSIM_TEST_SOLVER_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/energy.h"
#include "base/math3.h"
#include "geometry/build.h"
#include "opsim/solver.h"
#include "test_util.h"
#include "base/timer.h"
#include "opsim/world.h"

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

/* One body in a world: a variant's test fixture. `energy` holds one frame's per-iteration
 * energies once the world is started. */
typedef struct one_body {
    op_ctx ctx;
    op_world world;
    op_body *body;
    op_energy *energy;
} one_body;

/* The world of `def` with one body of catalogue model `model_name` (particles > 0 overrides the
 * catalogue's count), stiffness k, placed by (P, t) (NULL: identity, origin). Not started: pins
 * and constraints can still be added. */
static inline void one_body_begin(one_body *f, const op_world_def *def, const char *model_name, int particles,
                                  double stiffness, const double P[9], const double t[3])
{
    memset(f, 0, sizeof *f);
    op_ctx_init(&f->ctx);
    assert_int_equal(op_world_init(&f->ctx, &f->world, def), OP_OK);
    op_build_def build = op_default_build_def();
    build.particles = particles;
    const op_model *model;
    if (op_world_model(&f->ctx, &f->world, "data/models.tsv", model_name, &build, &model) != OP_OK)
        fail_msg("%s", f->ctx.message);
    double identity[9], origin[3] = { 0, 0, 0 };
    m3_identity(identity);
    assert_int_equal(op_world_add_body(&f->ctx, &f->world, "body", model, stiffness, P ? P : identity,
                                       t ? t : origin, &f->body),
                     OP_OK);
}

/* Starts the world with `solver` and the settings of `pairs`; the solver's status, its message in
 * f->ctx. */
static inline int one_body_try_start(one_body *f, const op_solver_type *solver, const char *const *pairs)
{
    op_solver_settings settings = make_settings(pairs);
    if (op_world_start(&f->ctx, &f->world, solver, &settings) != OP_OK)
        return f->ctx.status;
    f->energy = calloc((size_t)f->world.def.substeps * (size_t)(f->world.def.iterations + 1), sizeof(op_energy));
    assert_non_null(f->energy);
    return OP_OK;
}

static inline void one_body_start(one_body *f, const op_solver_type *solver, const char *const *pairs)
{
    if (one_body_try_start(f, solver, pairs) != OP_OK)
        fail_msg("%s", f->ctx.message);
}

/* One frame; its energies (when the world logs them) in f->energy. */
static inline void one_body_step(one_body *f)
{
    op_frame_stats stats = { .energy = f->energy };
    if (op_world_step(&f->ctx, &f->world, &stats) != OP_OK)
        fail_msg("%s", f->ctx.message);
}

static inline void one_body_free(one_body *f)
{
    op_world_free(&f->world);
    free(f->energy);
    f->energy = NULL;
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
