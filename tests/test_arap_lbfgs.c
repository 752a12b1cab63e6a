/* Tests of the quasi-Newton variant arap-lbfgs (solvers/arap_lbfgs.c): its gradient, the
 * partial ∂E/∂x at the local step's rotations, against central differences of
 * E*(x) = min_R E(x, R) (the local step iterated to convergence at each point, where the
 * envelope theorem makes them equal); the energy never rises between iterations (to 1e-12
 * relative, on the Fig. 5 sub-step and through whole frames of Fig. 4, 5 and the bar of Fig. 1);
 * it reaches 1e-6 on the Fig. 5 sub-step in fewer iterations than plain Gauss–Seidel; 1 and 2
 * threads give the same bits; Chebyshev, Anderson and bad lbfgs_m values are refused. */
#include "test_scene_load.h"
#include "test_solver.h"
#include "test_util.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arap.h"
#include "sim/converge.h"
#include "sim/energy.h"
#include "opsim/scene.h"
#include "opsim/world.h"

static void load(op_scene *scene, const char *config, const char *const *overrides)
{
    test_load_scene(scene, config, overrides);
    scene->world.def.log_energy = 0;
}

static void step(op_scene *scene, op_energy *energy)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_frame_stats stats = { .energy = energy };
    scene->world.def.log_energy = energy != NULL;
    if (op_world_step(&ctx, &scene->world, &stats) != OP_OK)
        fail_msg("%s", ctx.message);
}

static double energy_of(const op_body *body, double h)
{
    op_energy e;
    op_energy_eval(body, h, &e);
    return e.total;
}

/* E*(x) at the body's positions: local steps until the energy stops falling (at most `sweeps`) */
static double converged_energy(void *arap, op_body *body, double h, int sweeps)
{
    double last = energy_of(body, h);
    for (int k = 0; k < sweeps; ++k) {
        op_arap_local_step(arap, body, h);
        double now = energy_of(body, h);
        if (!(now < last))
            return now;
        last = now;
    }
    return last;
}

static void test_gradient_against_finite_differences(void **state)
{
    (void)state;
    const char *overrides[] = { NULL };
    op_scene scene;
    load(&scene, "experiments/fig5.ini", overrides);
    for (int f = 0; f < 12; ++f)
        step(&scene, NULL);
    op_world *w = &scene.world;
    op_ctx ctx;
    op_ctx_init(&ctx);
    double h = w->def.frame_time / w->def.substeps;
    assert_int_equal(op_world_begin_substep(&ctx, w, h), OP_OK);
    op_body *body = &w->bodies[0];
    void *arap = w->solver_state[0];
    int n = body->graph->particle_count;
    /* a state away from the minimum in x: three plain iterations from the prediction */
    op_stage_times times = { 0 };
    for (int k = 0; k < 3; ++k)
        assert_int_equal(op_world_iterate(&ctx, w, h, k, &times), OP_OK);
    /* the gradient after one local step (what arap-lbfgs uses) and at converged rotations */
    double *one_sweep = calloc(3 * (size_t)n, sizeof(double)), *exact = calloc(3 * (size_t)n, sizeof(double));
    double *rotation = calloc(9 * (size_t)n, sizeof(double));
    assert_non_null(one_sweep && exact && rotation);
    op_arap_local_step(arap, body, h);
    op_energy_position_gradient(body, h, one_sweep);
    converged_energy(arap, body, h, 20000);
    op_energy_position_gradient(body, h, exact);
    memcpy(rotation, body->state.rotation, 9 * (size_t)n * sizeof(double));
    double scale = 0.0, worst = 0.0, sweep_gap = 0.0;
    for (int c = 0; c < 3 * n; ++c) {
        scale = fmax(scale, fabs(exact[c]));
        sweep_gap = fmax(sweep_gap, fabs(one_sweep[c] - exact[c]));
    }
    const double epsilon = 1e-6; /* m: the dinosaur is about 1 m */
    int checked = 0;
    for (int i = 0; i < n; i += 9) {
        if (body->position_pinned[i])
            continue;
        for (int r = 0; r < 3; ++r) {
            double *x = &body->state.position[3 * i + r], saved = *x, e[2];
            for (int side = 0; side < 2; ++side) {
                *x = saved + (side ? -epsilon : epsilon);
                memcpy(body->state.rotation, rotation, 9 * (size_t)n * sizeof(double));
                op_solver_arap.resync(&ctx, arap, body, h);
                e[side] = converged_energy(arap, body, h, 20000);
            }
            *x = saved;
            double difference = (e[0] - e[1]) / (2 * epsilon);
            worst = fmax(worst, fabs(difference - exact[3 * i + r]));
            checked++;
        }
    }
    print_message("%d coordinates: |central difference of E* - dE/dx at R*| <= %.3e (largest |dE/dx| %.3e); "
                  "the one-sweep gradient differs from it by up to %.3e\n",
                  checked, worst, scale, sweep_gap);
    assert_true(checked >= 30);
    assert_true(worst < 1e-5 * scale);
    free(one_sweep);
    free(exact);
    free(rotation);
    op_scene_free(&scene);
}

/* energy[k] of the fig5 sub-step after 15 frames of arap (Gauss–Seidel), the sub-step solved by
 * the solver `study` sets (opsim converge's way: core/sim/converge.h) */
static void substep_energies(const char *const *study, int iterations, double *energy)
{
    op_scene scene, second;
    const char *none[] = { NULL };
    load(&scene, "experiments/fig5.ini", none);
    load(&second, "experiments/fig5.ini", study);
    double *seconds = calloc((size_t)iterations + 1, sizeof(double));
    assert_non_null(seconds);
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (op_converge(&ctx, &scene, &second, 15, iterations, seconds, energy) != OP_OK)
        fail_msg("%s", ctx.message);
    free(seconds);
    op_scene_free(&scene);
    op_scene_free(&second);
}

static void test_monotone_and_faster_on_the_fig5_substep(void **state)
{
    (void)state;
    enum { REFERENCE = 3000, ITERATIONS = 300 };
    const char *lbfgs[] = { "solver.name=arap-lbfgs", NULL }, *plain_gs[] = { NULL };
    double *plain = calloc(REFERENCE + 1, sizeof(double)), *quasi = calloc(ITERATIONS + 1, sizeof(double));
    assert_non_null(plain && quasi);
    substep_energies(lbfgs, ITERATIONS, quasi);
    substep_energies(plain_gs, REFERENCE, plain);
    assert_true(quasi[0] == plain[0]); /* one state, one problem */
    for (int k = 1; k <= ITERATIONS; ++k)
        if (!(quasi[k] <= quasi[k - 1] * (1 + 1e-12)))
            fail_msg("iteration %d: E rose from %.17g to %.17g", k, quasi[k - 1], quasi[k]);
    double e_star = plain[REFERENCE];
    int plain6 = iterations_to(plain, REFERENCE, e_star, 1e-6), quasi6 = iterations_to(quasi, ITERATIONS, e_star, 1e-6);
    print_message("to 1e-6: plain GS %d iterations, arap-lbfgs %d (measured 120 and 52)\n", plain6, quasi6);
    assert_true(quasi6 > 0 && 2 * quasi6 < plain6);
    free(plain);
    free(quasi);
}

static void check_frames_monotone(const char *config, int frames)
{
    const char *lbfgs[] = { "solver.name=arap-lbfgs", NULL };
    op_scene scene;
    load(&scene, config, lbfgs);
    const op_world_def *d = &scene.world.def;
    int row = d->iterations + 1;
    op_energy *energy = calloc((size_t)d->substeps * (size_t)row, sizeof(op_energy));
    assert_non_null(energy);
    for (int f = 0; f < frames; ++f) {
        step(&scene, energy);
        for (int s = 0; s < d->substeps; ++s)
            for (int k = 1; k < row; ++k) {
                double before = energy[s * row + k - 1].total, after = energy[s * row + k].total;
                if (!(after <= before + 1e-12 * fabs(before)))
                    fail_msg("%s frame %d sub-step %d iteration %d: E rose from %.17g to %.17g", config, f + 1, s,
                             k, before, after);
            }
    }
    free(energy);
    op_scene_free(&scene);
}

static void test_energy_never_rises_through_frames(void **state)
{
    (void)state;
    check_frames_monotone("experiments/fig4.ini", 10);
    check_frames_monotone("experiments/fig5.ini", 20);
    check_frames_monotone("experiments/fig1.ini", 20);
}

static void test_threads_give_the_same_bits(void **state)
{
    (void)state;
    const char *lbfgs[] = { "solver.name=arap-lbfgs", NULL };
    assert_same_bits_on_one_and_two_threads("experiments/fig6-bunny.ini", lbfgs, 4);
}

static void test_refusals_name_the_option(void **state)
{
    (void)state;
    struct {
        const char *overrides[5];
        const char *named;
    } cases[] = {
        { { "solver.name=arap-lbfgs", "solver.lbfgs_m=-1", NULL }, "lbfgs_m" },
        { { "solver.name=arap-lbfgs", "solver.lbfgs_m=x", NULL }, "lbfgs_m" },
        { { "solver.name=arap-lbfgs", "solver.chebyshev=on", "solver.chebyshev_rho=0.9", NULL }, "chebyshev" },
        { { "solver.name=arap-lbfgs", "solver.anderson=on", NULL }, "anderson" },
        { { "solver.name=arap-lbfgs", "solver.rotations=jacobi", NULL }, "rotations" },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        op_ctx ctx;
        op_ctx_init(&ctx);
        int count = 0;
        while (cases[c].overrides[count])
            ++count;
        op_scene scene;
        if (op_scene_load(&ctx, "experiments/fig4.ini", count, cases[c].overrides, &scene) == OP_OK) {
            op_scene_free(&scene);
            fail_msg("loaded with %s", cases[c].overrides[count - 1]);
        }
        print_message("%s -> %s\n", cases[c].overrides[count - 1], ctx.message);
        if (!strstr(ctx.message, cases[c].named))
            fail_msg("'%s' does not name %s", ctx.message, cases[c].named);
    }
}

int main(void)
{
    omp_set_num_threads(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gradient_against_finite_differences),
        cmocka_unit_test(test_monotone_and_faster_on_the_fig5_substep),
        cmocka_unit_test(test_energy_never_rises_through_frames),
        cmocka_unit_test(test_threads_give_the_same_bits),
        cmocka_unit_test(test_refusals_name_the_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
