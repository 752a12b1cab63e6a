/* Tests of Anderson acceleration (solvers/accel/anderson.h) as the world applies it around every
 * solver iteration: m = 0 is the plain run bit for bit; the safeguard keeps the energy of every
 * iterate from rising above the last (Gauss–Seidel, whose plain iteration is a descent), and
 * refuses some iterates, which the run file counts; the least squares is right on a system with
 * a known answer; Anderson reaches 1e-4 on the Fig. 5 sub-step in fewer iterations than plain
 * Gauss–Seidel; pins never move; 1 and 2 threads give the same bits; bad options are refused
 * naming the option, Anderson with Chebyshev naming both. */
#include "test_scene_load.h"
#include "test_solver.h"
#include "test_util.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/anderson.h"
#include "sim/energy.h"
#include "io/record.h"
#include "opsim/runfile.h"
#include "opsim/scene.h"
#include "opsim/world.h"

static void load(op_scene *scene, const char *config, const char *const *overrides)
{
    test_load_scene(scene, config, overrides);
    scene->world.def.log_energy = 0;
}

static void step(op_scene *scene, long *rejections)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_frame_stats stats = { .accel_counts = rejections };
    if (op_world_step(&ctx, &scene->world, &stats) != OP_OK)
        fail_msg("%s", ctx.message);
}

/* ---- the least squares ------------------------------------------------------------------- */

static void test_least_squares_known_answer(void **state)
{
    (void)state;
    /* ΔF (6 × 3) of full column rank and f = ΔF θ* + r with r orthogonal to ΔF's columns: the
     * least-squares θ is θ* exactly, whatever r */
    enum { ROWS = 6, COLUMNS = 3 };
    const double dF[COLUMNS][ROWS] = { { 1, 2, 0, -1, 3, 1 }, { 0, 1, 1, 2, -1, 0 }, { 2, 0, -1, 1, 1, 1 } };
    const double theta_star[COLUMNS] = { 0.5, -1.25, 2.0 };
    /* r: a vector orthogonalised against the columns by Gram–Schmidt */
    double r[ROWS] = { 1, -1, 2, 0.5, 0, -3 }, basis[COLUMNS][ROWS];
    for (int c = 0; c < COLUMNS; ++c) {
        memcpy(basis[c], dF[c], sizeof basis[c]);
        for (int p = 0; p < c; ++p) {
            double d = 0;
            for (int i = 0; i < ROWS; ++i)
                d += basis[p][i] * dF[c][i];
            for (int i = 0; i < ROWS; ++i)
                basis[c][i] -= d * basis[p][i];
        }
        double norm = 0;
        for (int i = 0; i < ROWS; ++i)
            norm += basis[c][i] * basis[c][i];
        for (int i = 0; i < ROWS; ++i)
            basis[c][i] /= sqrt(norm);
        double d = 0;
        for (int i = 0; i < ROWS; ++i)
            d += basis[c][i] * r[i];
        for (int i = 0; i < ROWS; ++i)
            r[i] -= d * basis[c][i];
    }
    double f[ROWS], gram[COLUMNS * COLUMNS], rhs[COLUMNS], theta[COLUMNS];
    for (int i = 0; i < ROWS; ++i) {
        f[i] = r[i];
        for (int c = 0; c < COLUMNS; ++c)
            f[i] += dF[c][i] * theta_star[c];
    }
    for (int a = 0; a < COLUMNS; ++a) {
        rhs[a] = 0;
        for (int i = 0; i < ROWS; ++i)
            rhs[a] += dF[a][i] * f[i];
        for (int b = 0; b < COLUMNS; ++b) {
            gram[a * COLUMNS + b] = 0;
            for (int i = 0; i < ROWS; ++i)
                gram[a * COLUMNS + b] += dF[a][i] * dF[b][i];
        }
    }
    assert_int_equal(op_anderson_solve(COLUMNS, gram, rhs, theta), 0);
    for (int c = 0; c < COLUMNS; ++c)
        assert_close(theta[c], theta_star[c], 1e-8); /* λ = 1e-10 max diag moves θ by ~1e-9 */
    /* all-zero differences: not positive definite, reported rather than solved */
    double zero[4] = { 0, 0, 0, 0 }, out[2];
    assert_true(op_anderson_solve(2, zero, zero, out) > 0);
}

/* ---- m = 0 is plain ------------------------------------------------------------------------ */

static void check_m_zero_is_plain(const char *config, const char *rotations, int frames)
{
    char order[64];
    snprintf(order, sizeof order, "solver.rotations=%s", rotations);
    const char *plain_overrides[] = { order, NULL };
    const char *aa_overrides[] = { order, "solver.anderson=on", "solver.anderson_m=0", NULL };
    op_scene plain, aa;
    load(&plain, config, plain_overrides);
    load(&aa, config, aa_overrides);
    assert_non_null(op_anderson_accel_body(aa.world.accel, 0));
    for (int frame = 1; frame <= frames; ++frame) {
        step(&plain, NULL);
        step(&aa, NULL);
        assert_states_bitwise_equal(&plain.world, &aa.world, frame);
    }
    op_scene_free(&plain);
    op_scene_free(&aa);
}

static void test_m_zero_is_plain_bitwise(void **state)
{
    (void)state;
    check_m_zero_is_plain("experiments/fig5.ini", "gs", 8);
    check_m_zero_is_plain("experiments/fig5.ini", "jacobi", 8);
    check_m_zero_is_plain("experiments/fig4.ini", "gs", 4);
}

/* ---- the safeguard and the gain on Fig. 5's sub-step ---------------------------------------- */

/* energy[k] after k iterations of the sub-step after `frames` plain frames of fig5.ini; the
 * frames run with anderson = on, m = 0 (the plain run bitwise, above), m is set for the
 * sub-step. Returns the sub-step's rejections. */
static long substep_energies(int frames, int m, int iterations, double *energy)
{
    op_scene scene;
    const char *overrides[] = { "solver.anderson=on", "solver.anderson_m=0", NULL };
    load(&scene, "experiments/fig5.ini", overrides);
    for (int f = 0; f < frames; ++f)
        step(&scene, NULL);
    op_world *w = &scene.world;
    op_anderson *body_state = op_anderson_accel_body(w->accel, 0);
    op_anderson_free(body_state);
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_anderson_def def = { .enabled = 1, .m = m };
    assert_int_equal(op_anderson_init(&ctx, body_state, &def, &w->bodies[0]), OP_OK);
    double h = w->def.frame_time / w->def.substeps;
    op_stage_times times = { 0 };
    assert_int_equal(op_world_begin_substep(&ctx, w, h), OP_OK);
    energy[0] = op_world_energy(w, h, NULL);
    for (int k = 0; k < iterations; ++k) {
        if (op_world_iterate(&ctx, w, h, k, &times) != OP_OK)
            fail_msg("%s", ctx.message);
        energy[k + 1] = op_world_energy(w, h, NULL);
    }
    long rejections = op_anderson_take_rejections(body_state);
    op_scene_free(&scene);
    return rejections;
}

static void test_safeguard_and_gain(void **state)
{
    (void)state;
    enum { FRAMES = 15, REFERENCE = 3000, ITERATIONS = 200 };
    double *reference = calloc(REFERENCE + 1, sizeof(double)), *aa = calloc(ITERATIONS + 1, sizeof(double));
    assert_non_null(reference && aa);
    substep_energies(FRAMES, 0, REFERENCE, reference);
    long rejections = substep_energies(FRAMES, 5, ITERATIONS, aa);
    double e_star = reference[REFERENCE];
    assert_true(aa[0] == reference[0]);
    /* the safeguard: no iterate above the last. An accelerated one is kept only if it is not; a
     * refused one gives way to the plain Gauss–Seidel iterate, a descent step up to rounding
     * (measured: 1e-15 relative at E*, as the plain run itself) */
    for (int k = 1; k <= ITERATIONS; ++k)
        if (!(aa[k] <= aa[k - 1] * (1 + 1e-13)))
            fail_msg("iteration %d: E rose from %.17g to %.17g", k, aa[k - 1], aa[k]);
    int plain4 = iterations_to(reference, REFERENCE, e_star, 1e-4), aa4 = iterations_to(aa, ITERATIONS, e_star, 1e-4);
    print_message("to 1e-4: plain GS %d iterations, Anderson m = 5 %d; %ld rejections\n", plain4, aa4, rejections);
    assert_true(aa4 > 0 && 3 * aa4 < plain4); /* measured 14 against 51 */
    assert_true(rejections > 0);              /* the safeguard acted: else it is not tested */
    free(reference);
    free(aa);
}

/* ---- pins, threads, options, run files --------------------------------------------------- */

static void test_pinned_particles_never_move(void **state)
{
    (void)state;
    const char *overrides[] = { "solver.anderson=on", NULL };
    op_scene scene;
    load(&scene, "experiments/fig4.ini", overrides);
    op_world *w = &scene.world;
    op_body *body = &w->bodies[0];
    assert_int_equal(body->pin_count, 1);
    const op_pin *pin = &body->pins[0];
    long rejections[1] = { 0 }, total = 0;
    for (int frame = 0; frame < 10; ++frame) {
        step(&scene, rejections);
        total += rejections[0];
        assert_memory_equal(&body->state.position[3 * pin->particle], pin->position, 3 * sizeof(double));
        assert_memory_equal(&body->state.rotation[9 * pin->particle], pin->rotation, 9 * sizeof(double));
    }
    print_message("fig4, 10 frames: %ld rejections\n", total);
    op_scene_free(&scene);
}

static void test_threads_give_the_same_bits(void **state)
{
    (void)state;
    const char *overrides[] = { "solver.anderson=on", NULL };
    assert_same_bits_on_one_and_two_threads("experiments/fig6-bunny.ini", overrides, 4);
}

static void test_bad_options_name_the_option(void **state)
{
    (void)state;
    struct {
        const char *overrides[4];
        const char *named[2];
    } cases[] = {
        { { "solver.anderson=maybe", NULL }, { "anderson", NULL } },
        { { "solver.anderson_m=-1", NULL }, { "anderson_m", NULL } },
        { { "solver.anderson_m=51", NULL }, { "anderson_m", NULL } },
        { { "solver.anderson_m=2.5", NULL }, { "anderson_m", NULL } },
        { { "solver.anderson=on", "solver.chebyshev=on", "solver.chebyshev_rho=0.9", NULL },
          { "anderson", "chebyshev" } },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        const char *message = load_fails("experiments/fig4.ini", cases[c].overrides);
        for (int k = 0; k < 2 && cases[c].named[k]; ++k)
            if (!strstr(message, cases[c].named[k]))
                fail_msg("'%s' does not name %s", message, cases[c].named[k]);
    }
}

static void test_run_file_records_rejections(void **state)
{
    (void)state;
    const char *overrides[] = { "run.frames=3", "solver.anderson=on", "solver.anderson_m=3", NULL };
    op_scene scene;
    load(&scene, "experiments/fig4.ini", overrides);
    const char *path = test_record_scene(&scene);
    op_ctx ctx;
    op_ctx_init(&ctx);
    int64_t enabled = 0, m = 0;
    assert_int_equal(op_runfile_read_attribute_int(&ctx, path, "/parameters", "anderson", &enabled), OP_OK);
    assert_int_equal(op_runfile_read_attribute_int(&ctx, path, "/parameters", "anderson_m", &m), OP_OK);
    assert_true(enabled == 1 && m == 3);
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    assert_int_equal(op_runfile_info(&ctx, path, out), OP_OK);
    fclose(out);
    assert_non_null(strstr(text, "/solver/anderson_rejections"));
    assert_non_null(strstr(text, "/timing/anderson"));
    free(text);
    remove(path);
}

int main(void)
{
    omp_set_num_threads(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_least_squares_known_answer),
        cmocka_unit_test(test_m_zero_is_plain_bitwise),
        cmocka_unit_test(test_safeguard_and_gain),
        cmocka_unit_test(test_pinned_particles_never_move),
        cmocka_unit_test(test_threads_give_the_same_bits),
        cmocka_unit_test(test_bad_options_name_the_option),
        cmocka_unit_test(test_run_file_records_rejections),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
