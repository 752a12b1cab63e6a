/* The fast arap (solvers/arap.c: vector lanes, groups of four bodies, cached records, shared
 * factors) against arap-reference (solvers/arap_reference.c: the paper in plain scalar C): every
 * body's stored state (positions, rotations, velocities, rotation rates) bit for bit after each
 * of 30 frames of Fig. 1, 4, 5, 6 (rod and bunny) and the 52 models, on one thread and on two,
 * and of Fig. 5 and the 52 models with the floor held in the solve (floor_contact = solve) and
 * with the global step by conjugate gradients (global = pcg).
 * Energy logging is off in both, as it is a harness measurement. Run from the project root. */
#include <omp.h>

#include "test_scene_load.h"
#include "test_util.h"

enum { FRAMES = 30 };

/* `config` with solver.name = arap and = arap-reference, each stepped `frames` frames on
 * `threads` threads, compared after every frame; `extra` one more override or NULL. */
static void assert_reference_bits(const char *config, int threads, const char *extra)
{
    const char *fast_overrides[] = { "solver.name=arap", extra, NULL };
    const char *reference_overrides[] = { "solver.name=arap-reference", extra, NULL };
    op_scene fast, reference;
    test_load_scene(&fast, config, fast_overrides);
    test_load_scene(&reference, config, reference_overrides);
    assert_string_equal(reference.world.solver->name, "arap-reference");
    fast.world.def.log_energy = reference.world.def.log_energy = 0;
    op_ctx ctx;
    op_ctx_init(&ctx);
    omp_set_num_threads(threads);
    for (int frame = 1; frame <= FRAMES; ++frame) {
        op_frame_stats stats = { 0 };
        if (op_world_step(&ctx, &fast.world, &stats) != OP_OK || op_world_step(&ctx, &reference.world, &stats) != OP_OK)
            fail_msg("%s: %s", config, ctx.message);
        assert_states_bitwise_equal(&fast.world, &reference.world, frame);
    }
    omp_set_num_threads(1);
    op_scene_free(&fast);
    op_scene_free(&reference);
}

static void assert_reference_bits_on_one_and_two_threads(const char *config)
{
    assert_reference_bits(config, 1, NULL);
    assert_reference_bits(config, 2, NULL);
}

/* position and direction constraints, a scripted end */
static void test_fig1_bar(void **state)
{
    (void)state;
    assert_reference_bits_on_one_and_two_threads("experiments/fig1.ini");
}

/* the sign-rectified polar rotation of inverted neighbourhoods */
static void test_fig4_inverted(void **state)
{
    (void)state;
    assert_reference_bits_on_one_and_two_threads("experiments/fig4.ini");
}

static void test_fig5(void **state)
{
    (void)state;
    assert_reference_bits_on_one_and_two_threads("experiments/fig5.ini");
}

/* a sheet held by position constraints on a turning rod */
static void test_fig6_rod(void **state)
{
    (void)state;
    assert_reference_bits_on_one_and_two_threads("experiments/fig6-rod.ini");
}

/* two deformable bodies in contact */
static void test_fig6_bunny(void **state)
{
    (void)state;
    assert_reference_bits_on_one_and_two_threads("experiments/fig6-bunny.ini");
}

/* 52 bodies: the fast variant iterates four twins at a time in vector lanes and shares their
 * factor; the reference goes body by body */
static void test_fig7_52_models(void **state)
{
    (void)state;
    assert_reference_bits_on_one_and_two_threads("experiments/fig7-52.ini");
}

/* Jacobi rotations: every C_i from the previous iteration's rotations */
static void test_jacobi(void **state)
{
    (void)state;
    assert_reference_bits("experiments/fig1.ini", 1, "solver.rotations=jacobi");
    assert_reference_bits("experiments/fig6-bunny.ini", 2, "solver.rotations=jacobi");
}

/* Chebyshev with extrapolated rotations changes R between iterations: the reference caches
 * nothing derived from R, arap re-derives its records (resync) */
static void test_chebyshev_rotations(void **state)
{
    (void)state;
    const char *fast_overrides[] = { "solver.name=arap", "solver.chebyshev=on", "solver.chebyshev_rho=0.9",
                                     "solver.chebyshev_rotations=on", NULL };
    const char *reference_overrides[] = { "solver.name=arap-reference", "solver.chebyshev=on",
                                          "solver.chebyshev_rho=0.9", "solver.chebyshev_rotations=on", NULL };
    op_scene fast, reference;
    test_load_scene(&fast, "experiments/fig1.ini", fast_overrides);
    test_load_scene(&reference, "experiments/fig1.ini", reference_overrides);
    op_ctx ctx;
    op_ctx_init(&ctx);
    for (int frame = 1; frame <= FRAMES; ++frame) {
        op_frame_stats stats = { 0 };
        if (op_world_step(&ctx, &fast.world, &stats) != OP_OK || op_world_step(&ctx, &reference.world, &stats) != OP_OK)
            fail_msg("%s", ctx.message);
        assert_states_bitwise_equal(&fast.world, &reference.world, frame);
    }
    op_scene_free(&fast);
    op_scene_free(&reference);
}

/* the floor held inside the global step (solvers/arap_floor.c): Fig. 5's landing and rest, and
 * the 52 models, whose twins arap solves four at a time */
static void test_floor_in_the_solve(void **state)
{
    (void)state;
    for (int threads = 1; threads <= 2; ++threads) {
        assert_reference_bits("experiments/fig5.ini", threads, "world.floor_contact=solve");
        assert_reference_bits("experiments/fig7-52.ini", threads, "world.floor_contact=solve");
    }
}

/* The global step by conjugate gradients (global = pcg, solvers/arap_pcg.h): the same bits, on
 * Fig. 5 and on the 52 models (arap groups twins there; their global steps go one by one) */
static void test_pcg_global_step(void **state)
{
    (void)state;
    assert_reference_bits("experiments/fig5.ini", 1, "solver.global=pcg");
    assert_reference_bits("experiments/fig7-52.ini", 2, "solver.global=pcg");
}

/* arap's speed option is not the reference's: refused by name */
static void test_refuses_sweep_threads(void **state)
{
    (void)state;
    const char *message = load_fails("experiments/fig1.ini", (const char *const[]){ "solver.name=arap-reference",
                                                                                  "solver.sweep_threads=team", NULL });
    assert_non_null(strstr(message, "sweep_threads"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fig1_bar),
        cmocka_unit_test(test_fig4_inverted),
        cmocka_unit_test(test_fig5),
        cmocka_unit_test(test_fig6_rod),
        cmocka_unit_test(test_fig6_bunny),
        cmocka_unit_test(test_fig7_52_models),
        cmocka_unit_test(test_jacobi),
        cmocka_unit_test(test_chebyshev_rotations),
        cmocka_unit_test(test_floor_in_the_solve),
        cmocka_unit_test(test_pcg_global_step),
        cmocka_unit_test(test_refuses_sweep_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
