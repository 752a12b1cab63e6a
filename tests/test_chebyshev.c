/* Tests of Chebyshev semi-iterative acceleration (solvers/accel/chebyshev.h) as the world applies it
 * after every solver iteration: ρ = 0 is the plain run bit for bit, the estimated ρ makes
 * Gauss–Seidel reach a given energy accuracy in fewer iterations on a dinosaur frame, pinned
 * particles never move, bad options are refused naming the option, and a run file records the
 * settings. Scenes come from the experiments/ configs; a world is "cloned" by loading its scene twice
 * and stepping both alike. */
#include "test_scene_load.h"
#include "test_solver.h"
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arap.h"
#include "shape_matching.h"
#include "accel/accel.h"
#include "accel/chebyshev.h"
#include "sim/energy.h"
#include "io/record.h"
#include "opsim/runfile.h"
#include "opsim/scene.h"
#include "opsim/world.h"

enum { MAX_OVERRIDES = 16 };

static void load(op_scene *scene, const char *config, const char *const *overrides)
{
    test_load_scene(scene, config, overrides);
    scene->world.def.log_energy = 0;
}

static void step(op_scene *scene)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_frame_stats stats = { 0 };
    if (op_world_step(&ctx, &scene->world, &stats) != OP_OK)
        fail_msg("%s", ctx.message);
}

/* ρ = 0, γ = 1: every ω is 1, and the world must leave every iterate as the variant made it. */
static void check_rho_zero_is_plain(const char *config, const char *rotations, int with_rotations, int frames)
{
    char order[64];
    snprintf(order, sizeof order, "solver.rotations=%s", rotations);
    const char *plain_overrides[] = { order, NULL };
    const char *cheb_overrides[] = { order, "solver.chebyshev=on", "solver.chebyshev_rho=0", "solver.chebyshev_delay=1",
                                     with_rotations ? "solver.chebyshev_rotations=on" : NULL, NULL };
    op_scene plain, cheb;
    load(&plain, config, plain_overrides);
    load(&cheb, config, cheb_overrides);
    assert_non_null(op_chebyshev_accel_def(cheb.world.accel));
    assert_int_equal(op_chebyshev_accel_def(cheb.world.accel)->rotations, with_rotations);
    for (int frame = 1; frame <= frames; ++frame) {
        step(&plain);
        step(&cheb);
        assert_states_bitwise_equal(&plain.world, &cheb.world, frame);
    }
    /* the scene moved */
    const op_body *body = &plain.world.bodies[0];
    double moved = 0.0;
    for (int i = 0; i < 3 * body->graph->particle_count; ++i)
        moved = fmax(moved, fabs(body->state.position[i] - cheb.world.bodies[0].start_position[i]));
    assert_true(moved > 0);
    op_scene_free(&plain);
    op_scene_free(&cheb);
}

static void test_rho_zero_gauss_seidel_is_plain_bitwise(void **state)
{
    (void)state;
    check_rho_zero_is_plain("experiments/fig5.ini", "gs", 0, 8);
    check_rho_zero_is_plain("experiments/fig5.ini", "gs", 1, 8);
    check_rho_zero_is_plain("experiments/fig4.ini", "gs", 1, 4);
}

static void test_rho_zero_jacobi_is_plain_bitwise(void **state)
{
    (void)state;
    check_rho_zero_is_plain("experiments/fig5.ini", "jacobi", 0, 8);
    check_rho_zero_is_plain("experiments/fig5.ini", "jacobi", 1, 8);
    check_rho_zero_is_plain("experiments/fig4.ini", "jacobi", 1, 4);
}

static void test_omega_sequence(void **state)
{
    (void)state;
    op_chebyshev_def def = { .enabled = 1, .rho = 0.9, .delay = 2, .gamma = 1.0 };
    double omega = 1.0;
    omega = op_chebyshev_omega(&def, 0, omega);
    assert_true(omega == 1.0);
    omega = op_chebyshev_omega(&def, 1, omega);
    assert_true(omega == 1.0);
    omega = op_chebyshev_omega(&def, 2, omega);
    assert_close(omega, 2.0 / (2.0 - 0.81), 1e-15);
    double next = op_chebyshev_omega(&def, 3, omega);
    assert_close(next, 4.0 / (4.0 - 0.81 * omega), 1e-15);
    /* ω tends to the optimal 2 / (1 + √(1 − ρ²)) */
    for (int k = 4; k < 200; ++k)
        next = op_chebyshev_omega(&def, k, next);
    assert_close(next, 2.0 / (1.0 + sqrt(1.0 - 0.81)), 1e-12);
    def.rho = 0.0;
    for (int k = 0; k < 50; ++k)
        assert_true(op_chebyshev_omega(&def, k, 1.0) == 1.0);
}

/* ---- convergence on a dinosaur frame ------------------------------------------------------- */

/* energy[k] after k iterations of the sub-step following `frames` plain frames, k = 0 …
 * iterations, with Chebyshev at `rho` (rotations too when asked) or plain (rho < 0). The frames
 * before run with chebyshev = on at ρ = 0, which is the plain run bit for bit
 * (test_rho_zero_*), so every call starts its sub-step from the same state. */
static void substep_energies(const char *config, int frames, double rho, int rotations, int iterations,
                             double *energy)
{
    op_scene scene;
    const char *overrides[] = { "solver.chebyshev=on", "solver.chebyshev_rho=0",
                                rotations ? "solver.chebyshev_rotations=on" : NULL, NULL };
    load(&scene, config, rho < 0 ? overrides + 3 : overrides);
    for (int f = 0; f < frames; ++f)
        step(&scene);
    op_world *w = &scene.world;
    if (rho >= 0)
        op_chebyshev_accel_def(w->accel)->rho = rho;
    double h = w->def.frame_time / w->def.substeps;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_stage_times times = { 0 };
    assert_int_equal(op_world_begin_substep(&ctx, w, h), OP_OK);
    energy[0] = op_world_energy(w, h, NULL);
    for (int k = 0; k < iterations; ++k) {
        if (op_world_iterate(&ctx, w, h, k, &times) != OP_OK)
            fail_msg("%s", ctx.message);
        energy[k + 1] = op_world_energy(w, h, NULL);
    }
    op_scene_free(&scene);
}

static void test_chebyshev_gauss_seidel_converges_faster(void **state)
{
    (void)state;
    const char *config = "experiments/fig4.ini";
    const int frames = 5, reference_iterations = 5000, iterations = 1500;
    /* ρ as opsim estimate-rho --frame 5 finds it */
    double rho;
    {
        op_scene scene;
        const char *overrides[] = { NULL };
        load(&scene, config, overrides);
        for (int f = 0; f < frames; ++f)
            step(&scene);
        op_ctx ctx;
        op_ctx_init(&ctx);
        double change[200], scale = 0.0;
        op_rho_estimate e;
        assert_int_equal(op_world_probe_substep(&ctx, &scene.world, 200, change, &scale), OP_OK);
        assert_int_equal(op_chebyshev_estimate_rho(&ctx, change, 200, 1e-13 * scale, &e), OP_OK);
        rho = e.rho;
        print_message("estimated rho %.6f from %d ratios (min %.6f, max %.6f)\n", rho, e.used, e.min, e.max);
        assert_true(rho > 0.5 && rho < 1.0);
        op_scene_free(&scene);
    }
    double *reference = calloc(reference_iterations + 1, sizeof(double));
    double *plain = calloc(iterations + 1, sizeof(double));
    double *cheb = calloc(iterations + 1, sizeof(double));
    double *cheb_rot = calloc(iterations + 1, sizeof(double));
    assert_non_null(reference && plain && cheb && cheb_rot);
    substep_energies(config, frames, -1.0, 0, reference_iterations, reference);
    double e_star = reference[reference_iterations];
    substep_energies(config, frames, -1.0, 0, iterations, plain);
    substep_energies(config, frames, rho, 0, iterations, cheb);
    substep_energies(config, frames, rho, 1, iterations, cheb_rot);
    /* the plain run is the reference's prefix, bit for bit */
    assert_memory_equal(plain, reference, (size_t)(iterations + 1) * sizeof(double));
    /* Gauss–Seidel block-coordinate descent: the energy never rises */
    for (int k = 1; k <= reference_iterations; ++k)
        assert_le(reference[k], reference[k - 1] * (1 + 1e-13));
    print_message("E0 = %.9e, E* = %.9e (after %d plain GS iterations), E0 - E* = %.3e\n", reference[0], e_star,
                  reference_iterations, reference[0] - e_star);
    const double tolerance[3] = { 1e-2, 1e-4, 1e-6 };
    int plain_count[3], cheb_count[3];
    int rot_count[3];
    for (int t = 0; t < 3; ++t) {
        plain_count[t] = iterations_to(plain, iterations, e_star, tolerance[t]);
        cheb_count[t] = iterations_to(cheb, iterations, e_star, tolerance[t]);
        rot_count[t] = iterations_to(cheb_rot, iterations, e_star, tolerance[t]);
        print_message("relative energy error %.0e: plain GS %d iterations, Chebyshev GS (rho %.6f) %d, "
                      "with rotations %d\n",
                      tolerance[t], plain_count[t], rho, cheb_count[t], rot_count[t]);
    }
    assert_true(plain_count[1] > 0 && cheb_count[1] > 0);
    assert_true(cheb_count[1] < plain_count[1]);
    assert_true(cheb_count[2] > 0 && cheb_count[2] < plain_count[2]);
    assert_true(rot_count[1] > 0);
    free(reference);
    free(plain);
    free(cheb);
    free(cheb_rot);
}

/* ---- pins, options, run files ---------------------------------------------------------------- */

static void test_pinned_particles_never_move(void **state)
{
    (void)state;
    /* a large ρ and γ < 1, rotations on: every free particle is extrapolated every iteration */
    const char *overrides[] = { "solver.chebyshev=on", "solver.chebyshev_rho=0.99", "solver.chebyshev_gamma=0.8",
                                "solver.chebyshev_delay=1", "solver.chebyshev_rotations=on", NULL };
    op_scene scene;
    load(&scene, "experiments/fig4.ini", overrides);
    op_world *w = &scene.world;
    op_body *body = &w->bodies[0];
    assert_int_equal(body->pin_count, 1);
    const op_pin *pin = &body->pins[0];
    assert_true(pin->hold_position && pin->hold_rotation);
    int i = pin->particle, moved_free = 0;
    double h = w->def.frame_time / w->def.substeps;
    op_ctx ctx;
    op_ctx_init(&ctx);
    for (int frame = 0; frame < 6; ++frame) {
        op_stage_times times = { 0 };
        assert_int_equal(op_world_begin_substep(&ctx, w, h), OP_OK);
        for (int k = 0; k < 10; ++k) {
            double before[3];
            memcpy(before, &body->state.position[3 * ((i + 1) % body->graph->particle_count)], sizeof before);
            assert_int_equal(op_world_iterate(&ctx, w, h, k, &times), OP_OK);
            assert_memory_equal(&body->state.position[3 * i], pin->position, 3 * sizeof(double));
            assert_memory_equal(&body->state.rotation[9 * i], pin->rotation, 9 * sizeof(double));
            moved_free |= memcmp(before, &body->state.position[3 * ((i + 1) % body->graph->particle_count)],
                                 sizeof before) != 0;
        }
        step(&scene); /* and through whole frames */
        assert_memory_equal(&body->state.position[3 * i], pin->position, 3 * sizeof(double));
        assert_memory_equal(&body->state.rotation[9 * i], pin->rotation, 9 * sizeof(double));
    }
    assert_true(moved_free);
    op_scene_free(&scene);
}

static void test_bad_options_name_the_option(void **state)
{
    (void)state;
    const char *config = "experiments/fig4.ini";
    struct {
        const char *overrides[4];
        const char *named;
    } cases[] = {
        { { "solver.chebyshev=on", "solver.chebyshev_rho=0.9", "solver.chebyshev_gamma=0", NULL }, "chebyshev_gamma" },
        { { "solver.chebyshev_gamma=1.5", NULL }, "chebyshev_gamma" },
        { { "solver.chebyshev=on", "solver.chebyshev_rho=1", NULL }, "chebyshev_rho" },
        { { "solver.chebyshev_rho=-0.1", NULL }, "chebyshev_rho" },
        { { "solver.chebyshev_rho=nan", NULL }, "chebyshev_rho" },
        { { "solver.chebyshev=maybe", NULL }, "chebyshev" },
        { { "solver.chebyshev_rotations=yes", NULL }, "chebyshev_rotations" },
        { { "solver.chebyshev_delay=0", NULL }, "chebyshev_delay" },
        { { "solver.chebyshev=on", NULL }, "chebyshev_rho is required" },
        { { "solver.chebyshev_omega=2", NULL }, "chebyshev_omega" },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        const char *message = load_fails(config, cases[c].overrides);
        if (!strstr(message, cases[c].named))
            fail_msg("'%s' does not name %s", message, cases[c].named);
    }
    /* the settings layer alone: every variant accepts the common keys, errors name them */
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_solver_settings settings = { .count = 1 };
    strcpy(settings.key[0], "chebyshev_gamma");
    strcpy(settings.value[0], "0");
    assert_int_equal(op_solver_settings_validate(&ctx, &op_solver_arap, &settings), OP_ERR_USAGE);
    assert_non_null(strstr(ctx.message, "chebyshev_gamma"));
    op_ctx_init(&ctx);
    settings = (op_solver_settings){ .count = 0 };
    assert_int_equal(op_solver_settings_validate(&ctx, &op_solver_arap, &settings), OP_OK);
    assert_string_equal(op_solver_setting(&settings, "chebyshev"), "off");
    assert_string_equal(op_solver_setting(&settings, "chebyshev_delay"), "2");
    assert_string_equal(op_solver_setting(&settings, "chebyshev_gamma"), "1");
    assert_string_equal(op_solver_setting(&settings, "chebyshev_rho"), "");
    assert_string_equal(op_solver_setting(&settings, "anderson_m"), "5");
    /* the common options are the accelerators' own tables, in the registry's order */
    for (int t = 0; op_accel_registry[t]; ++t)
        assert_ptr_equal(op_solver_common_options(t), op_accel_registry[t]->options);
    assert_null(op_solver_common_options(2));
    assert_string_equal(op_solver_common_options(0)[0].key, "chebyshev");
    assert_string_equal(op_solver_common_options(1)[0].key, "anderson");
    op_ctx_init(&ctx);
    settings = (op_solver_settings){ .count = 1 };
    strcpy(settings.key[0], "anderson_m");
    strcpy(settings.value[0], "51");
    assert_int_equal(op_solver_settings_validate(&ctx, &op_solver_shape_matching, &settings), OP_ERR_USAGE);
    assert_non_null(strstr(ctx.message, "anderson_m"));
    op_ctx_init(&ctx);
    settings = (op_solver_settings){ .count = 0 };
    assert_int_equal(op_solver_settings_validate(&ctx, &op_solver_arap, &settings), OP_OK);
    op_chebyshev_def def;
    assert_int_equal(op_chebyshev_def_from_settings(&ctx, &settings, &def), OP_OK);
    assert_false(def.enabled);
    assert_string_equal(def.rho_source, "none");
}

static void test_run_file_records_settings(void **state)
{
    (void)state;
    const char *overrides[] = { "run.frames=2", "solver.chebyshev=on", "solver.chebyshev_rho=0.95",
                                "solver.chebyshev_rho_source=estimate-rho fig4.ini frame 10", NULL };
    op_scene scene;
    load(&scene, "experiments/fig4.ini", overrides);
    scene.world.def.log_energy = 1;
    const char *path = test_record_scene(&scene);
    op_ctx ctx;
    op_ctx_init(&ctx);
    double rho = 0.0, gamma = 0.0;
    int64_t enabled = 0, delay = 0;
    assert_int_equal(op_runfile_read_attribute_double(&ctx, path, "/parameters", "chebyshev_rho", &rho), OP_OK);
    assert_int_equal(op_runfile_read_attribute_double(&ctx, path, "/parameters", "chebyshev_gamma", &gamma), OP_OK);
    assert_int_equal(op_runfile_read_attribute_int(&ctx, path, "/parameters", "chebyshev", &enabled), OP_OK);
    assert_int_equal(op_runfile_read_attribute_int(&ctx, path, "/parameters", "chebyshev_delay", &delay), OP_OK);
    assert_true(rho == 0.95 && gamma == 1.0 && enabled == 1 && delay == 2);
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    assert_int_equal(op_runfile_info(&ctx, path, out), OP_OK);
    fclose(out);
    assert_non_null(strstr(text, "chebyshev_rho_source = estimate-rho fig4.ini frame 10"));
    assert_non_null(strstr(text, "solver_chebyshev_rotations = off"));
    assert_non_null(strstr(text, "/timing/chebyshev"));
    free(text);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_omega_sequence),
        cmocka_unit_test(test_rho_zero_gauss_seidel_is_plain_bitwise),
        cmocka_unit_test(test_rho_zero_jacobi_is_plain_bitwise),
        cmocka_unit_test(test_chebyshev_gauss_seidel_converges_faster),
        cmocka_unit_test(test_pinned_particles_never_move),
        cmocka_unit_test(test_bad_options_name_the_option),
        cmocka_unit_test(test_run_file_records_settings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
