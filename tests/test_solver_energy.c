/* Tests of the variants' energy hooks (include/opsim/solver.h `energy`, solvers/arap_energy.h):
 * on every experiment config whose solver is arap, each variant that gives a hook (arap in both
 * rotation orders, arap-reference, arap-lbfgs) reports the energy of its iterate equal to the
 * yardstick (core/sim/energy.c) to 1e-12 relative for every body, at the predicted start of a
 * sub-step and after each of its iterations, a few frames into the run; the one-pass gradient
 * equals op_energy_position_gradient to 1e-12 of its largest row; a body exactly at rest has
 * exactly E = 0 and a zero gradient; a variant without a hook gets the yardstick's bits through
 * op_solver_energy; Anderson's safeguard asks the hook, one evaluation per iterate. */
#include "test_scene_load.h"
#include "test_util.h"

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/anderson.h"
#include "arap_energy.h"
#include "base/math3.h"
#include "opsim/scene.h"
#include "opsim/solver.h"
#include "opsim/world.h"
#include "sim/energy.h"

enum { FRAMES = 2, ITERATIONS = 3 };
static const double TOLERANCE = 1e-12;

static double worst_seen;

/* Every body's hook against the yardstick; returns how many bodies were compared. */
static int compare_bodies(op_world *w, double h, const char *where)
{
    for (int b = 0; b < w->body_count; ++b) {
        op_ctx ctx;
        op_ctx_init(&ctx);
        double hook, relative;
        op_energy e;
        if (w->solver->energy(&ctx, w->solver_state[b], &w->bodies[b], h, &hook) != OP_OK)
            fail_msg("%s: %s", where, ctx.message);
        op_energy_eval(&w->bodies[b], h, &e);
        relative = e.total == hook ? 0.0 : fabs(hook - e.total) / fabs(e.total);
        if (!(relative <= TOLERANCE))
            fail_msg("%s body %s: hook %.17g, yardstick %.17g (relative %.3g)", where, w->bodies[b].name, hook,
                     e.total, relative);
        if (relative > worst_seen)
            worst_seen = relative;
    }
    return w->body_count;
}

/* config with solver.name = variant (and extra), FRAMES frames, then a sub-step: the hook at its
 * start and after each iteration. Returns the bodies compared, 0 when the variant refuses the
 * config's options (printed). */
static int check_scene(const char *config, const char *variant, const char *extra)
{
    char name[64];
    snprintf(name, sizeof name, "solver.name=%s", variant);
    const char *overrides[] = { name, "world.log_energy=false", extra, NULL };
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_scene scene;
    if (op_scene_load(&ctx, config, extra ? 3 : 2, overrides, &scene) != OP_OK) {
        print_message("  %s with %s: refused (%s)\n", config, variant, ctx.message);
        return 0;
    }
    op_world *w = &scene.world;
    assert_non_null(w->solver->energy);
    op_frame_stats stats = { 0 };
    for (int f = 0; f < FRAMES; ++f)
        if (op_world_step(&ctx, w, &stats) != OP_OK)
            fail_msg("%s: %s", config, ctx.message);
    double h = w->def.frame_time / w->def.substeps;
    op_stage_times times = { 0 };
    char where[256];
    int compared = 0;
    if (op_world_begin_substep(&ctx, w, h) != OP_OK)
        fail_msg("%s: %s", config, ctx.message);
    snprintf(where, sizeof where, "%s (%s), sub-step start", config, variant);
    compared += compare_bodies(w, h, where);
    for (int k = 0; k < ITERATIONS; ++k) {
        if (op_world_iterate(&ctx, w, h, k, &times) != OP_OK)
            fail_msg("%s: %s", config, ctx.message);
        snprintf(where, sizeof where, "%s (%s), iteration %d", config, variant, k + 1);
        compared += compare_bodies(w, h, where);
    }
    op_scene_free(&scene);
    return compared;
}

static int scene_solver_is_arap(const char *config)
{
    FILE *f = fopen(config, "r");
    assert_non_null(f);
    char line[512];
    int arap = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "name = ", 7) == 0)
            arap = strcmp(line + 7, "arap\n") == 0;
    fclose(f);
    return arap;
}

static void test_hooks_equal_the_yardstick_on_every_scene(void **state)
{
    (void)state;
    glob_t configs;
    assert_int_equal(glob("experiments/*.ini", 0, NULL, &configs), 0);
    int scenes = 0;
    for (size_t c = 0; c < configs.gl_pathc; ++c) {
        const char *config = configs.gl_pathv[c];
        if (!scene_solver_is_arap(config))
            continue;
        int arap = check_scene(config, "arap", "solver.rotations=gs") +
                   check_scene(config, "arap", "solver.rotations=jacobi");
        int others = check_scene(config, "arap-reference", NULL) + check_scene(config, "arap-lbfgs", NULL);
        print_message("%s: %d arap and %d other comparisons\n", config, arap, others);
        assert_true(arap > 0);
        scenes++;
    }
    globfree(&configs);
    print_message("%d scenes; the largest relative difference %.3g\n", scenes, worst_seen);
    assert_true(scenes >= 10);
}

/* The one-pass gradient against the yardstick's, and the body at rest exactly 0. */
static void test_gradient_and_rest(void **state)
{
    (void)state;
    const char *overrides[] = { "world.log_energy=false", NULL };
    op_scene scene;
    test_load_scene(&scene, "experiments/fig5.ini", overrides);
    op_world *w = &scene.world;
    op_body *body = &w->bodies[0];
    double h = w->def.frame_time / w->def.substeps;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_arap_energy data;
    assert_int_equal(op_arap_energy_init(&ctx, &data, body->graph), OP_OK);
    int n = body->graph->particle_count;
    double *mine = calloc(3 * (size_t)n, sizeof(double)), *theirs = calloc(3 * (size_t)n, sizeof(double));
    assert_non_null(mine && theirs);
    /* exactly the rest shape (x = x̄, R = I), the targets on it: nothing to pay, nothing to pull */
    memcpy(body->state.position, body->graph->rest_position, 3 * (size_t)n * sizeof(double));
    for (int i = 0; i < n; ++i)
        m3_identity(&body->state.rotation[9 * i]);
    memcpy(body->inertial_position, body->state.position, 3 * (size_t)n * sizeof(double));
    memcpy(body->inertial_rotation, body->state.rotation, 9 * (size_t)n * sizeof(double));
    op_energy rest;
    op_energy_eval(body, h, &rest);
    double at_rest = op_arap_energy_eval(&data, body, h, mine);
    print_message("at rest: yardstick %.3g, hook %.3g\n", rest.total, at_rest);
    assert_true(at_rest == 0.0);
    for (int c = 0; c < 3 * n; ++c)
        assert_true(mine[c] == 0.0);
    /* a few frames in, the sub-step's start: a deformed, moving body */
    op_frame_stats stats = { 0 };
    for (int f = 0; f < 12; ++f)
        assert_int_equal(op_world_step(&ctx, w, &stats), OP_OK);
    assert_int_equal(op_world_begin_substep(&ctx, w, h), OP_OK);
    double energy = op_arap_energy_eval(&data, body, h, mine);
    op_energy_position_gradient(body, h, theirs);
    op_energy e;
    op_energy_eval(body, h, &e);
    assert_true(e.total > 0.0 && fabs(energy - e.total) <= TOLERANCE * e.total);
    double largest = 0.0, worst = 0.0;
    for (int c = 0; c < 3 * n; ++c) {
        largest = fmax(largest, fabs(theirs[c]));
        worst = fmax(worst, fabs(mine[c] - theirs[c]));
    }
    print_message("gradient: largest entry %.3g, largest difference %.3g\n", largest, worst);
    assert_true(largest > 0.0 && worst <= TOLERANCE * largest);
    op_arap_energy_free(&data);
    free(mine);
    free(theirs);
    op_scene_free(&scene);
}

/* No hook: op_solver_energy is the yardstick, bit for bit. */
static void test_without_a_hook_the_yardstick(void **state)
{
    (void)state;
    const char *overrides[] = { "world.log_energy=false", NULL };
    op_scene scene;
    test_load_scene(&scene, "experiments/springs-cube.ini", overrides);
    op_world *w = &scene.world;
    assert_null(w->solver->energy);
    double h = w->def.frame_time / w->def.substeps, energy = -1.0;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_frame_stats stats = { 0 };
    assert_int_equal(op_world_step(&ctx, w, &stats), OP_OK);
    assert_int_equal(op_solver_energy(&ctx, w->solver, w->solver_state[0], &w->bodies[0], h, &energy), OP_OK);
    op_energy e;
    op_energy_eval(&w->bodies[0], h, &e);
    assert_memory_equal(&energy, &e.total, sizeof energy);
    op_scene_free(&scene);
}

/* Anderson's safeguard: one energy a sub-step's start and one an iterate, each from the hook
 * (the hook is arap's: its edge data exist after the first call). */
static void test_anderson_asks_the_hook(void **state)
{
    (void)state;
    const char *overrides[] = { "world.log_energy=false", "solver.anderson=on", NULL };
    op_scene scene;
    test_load_scene(&scene, "experiments/fig5.ini", overrides);
    op_world *w = &scene.world;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_frame_stats stats = { 0 };
    assert_int_equal(op_world_step(&ctx, w, &stats), OP_OK);
    op_anderson *aa = op_anderson_accel_body(w->accel, 0);
    assert_non_null(aa);
    assert_ptr_equal(aa->solver, w->solver);
    assert_ptr_equal(aa->solver_state, w->solver_state[0]);
    long iterates = (long)w->def.substeps * w->def.iterations;
    long rejections = op_anderson_take_rejections(aa);
    print_message("fig5, 1 frame: %ld iterations, %ld energies, %ld refused\n", iterates, aa->energy_evaluations,
                  rejections);
    /* each sub-step: E(u_0), then one per accelerated iterate (the first is plain: none) and one
     * more after each refusal; never more than one an iteration on average plus the start */
    assert_true(aa->energy_evaluations >= w->def.substeps);
    assert_true(aa->energy_evaluations <= iterates + w->def.substeps + rejections);
    op_scene_free(&scene);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gradient_and_rest),
        cmocka_unit_test(test_without_a_hook_the_yardstick),
        cmocka_unit_test(test_anderson_asks_the_hook),
        cmocka_unit_test(test_hooks_equal_the_yardstick_on_every_scene),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
