/* Contacts measured where they are (issue 39): the overlap between bodies recomputed from the
 * stored states (core/contact/overlap.h) equals what the contacts logged, every sub-step
 * (`[run] output = substeps`); the contacts hold in a falling pile; a start inside the floor or
 * inside another body is refused naming the body and the key; and the sub-step output shows the
 * meshless variant's oscillation with the period of two frames, which the frames cannot resolve. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/collide.h"
#include "contact/overlap.h"
#include "opsim/runfile.h"
#include "test_scene_load.h"
#include "test_util.h"

/* Stacked tori and a dinosaur dropped on them: impacts, then rest. */
static const char pile_scene[] = "[run]\nframes = 30\noutput = substeps\n"
                                 "[world]\nsubsteps = 6\niterations = 2\nfloor = 0\nfriction = 0.5\n"
                                 "[body low]\nmodel = torus12\nstiffness = 1e7\nposition = 0 0.2 0\n"
                                 "[body high]\nmodel = torus12\nstiffness = 1e7\nposition = 0.1 0.6 0\n"
                                 "[body dino]\nmodel = dino100\nstiffness = 1e7\nposition = 0 1.3 0\n";

static const char *write_config(const char *text)
{
    const char *path = test_tmp_path(".ini");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
    return path;
}

static double *read_series(const char *path, const char *dataset, long rows)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    double *values = calloc((size_t)rows, sizeof *values);
    assert_non_null(values);
    if (op_runfile_read_rows(&ctx, path, dataset, 0, rows, values, rows) != OP_OK)
        fail_msg("%s", ctx.message);
    return values;
}

/* The held-out check: the overlaps recomputed from every stored sub-step state equal the logged
 * /collision/penetration of that sub-step (to rounding: the contacts' support matrix and
 * op_support_distance round differently), and the per-frame log is their largest. */
static void test_stored_overlaps_equal_logged(void **state)
{
    (void)state;
    op_scene scene;
    test_load_scene(&scene, write_config(pile_scene), NULL);
    int frames = scene.run.frames, substeps = scene.world.def.substeps;
    const char *run = test_record_scene(&scene);
    op_ctx ctx;
    op_ctx_init(&ctx);
    long rows;
    double *deepest, *time, smallest;
    if (op_overlap_run_file(&ctx, run, "/substeps", &rows, &deepest, &time, &smallest) != OP_OK)
        fail_msg("%s", ctx.message);
    long steps = (long)frames * substeps;
    assert_int_equal(rows, steps + 1);
    double *logged = read_series(run, "/collision/penetration", steps);
    double *per_frame = read_series(run, "/collision/max_penetration", frames);
    double largest = 0.0;
    int touching = 0;
    for (long s = 0; s < steps; ++s) {
        assert_true(fabs(deepest[s + 1] - logged[s]) <= 1e-12);
        assert_true(time[s + 1] > time[s]);
        touching += logged[s] > 0;
        largest = fmax(largest, logged[s]);
        if (s % substeps == substeps - 1) {
            double most = 0.0;
            for (long k = s + 1 - substeps; k <= s; ++k)
                most = fmax(most, logged[k]);
            assert_true(per_frame[s / substeps] == most);
        }
    }
    print_message("%d of %ld sub-steps with bodies overlapping; deepest %.3g m = %.3g %% of %.3g m\n", touching,
                  steps, largest, 100 * largest / smallest, smallest);
    assert_true(touching > steps / 4); /* the bodies do touch: the check is not of zeros */
    /* the contacts hold: the rounds leave every sub-step within the tolerance (5 %) of the
     * smallest semi-axis, impacts included (measured 2.3 %) */
    assert_true(largest <= OP_COLLIDE_TOLERANCE * smallest);
    free(deepest);
    free(time);
    free(logged);
    free(per_frame);
}

/* The frames' /particles rows are the /substeps rows of each frame's last sub-step, bit for bit. */
static void test_substep_rows_hold_the_frames(void **state)
{
    (void)state;
    op_scene scene;
    const char *const overrides[] = { "run.frames=4", NULL };
    test_load_scene(&scene, write_config(pile_scene), overrides);
    int substeps = scene.world.def.substeps;
    long particles = op_world_particle_count(&scene.world);
    const char *run = test_record_scene(&scene);
    double *frame = read_series(run, "/particles/position/time", 5), *sub = read_series(run, "/substeps/position/time",
                                                                                         4 * substeps + 1);
    op_ctx ctx;
    op_ctx_init(&ctx);
    double *a = calloc(3 * (size_t)particles, sizeof *a), *b = calloc(3 * (size_t)particles, sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    for (long f = 0; f <= 4; ++f) {
        assert_true(frame[f] == sub[f * substeps]);
        if (op_runfile_read_rows(&ctx, run, "/particles/position/value", f, 1, a, 3 * particles) != OP_OK ||
            op_runfile_read_rows(&ctx, run, "/substeps/position/value", f * substeps, 1, b, 3 * particles) != OP_OK)
            fail_msg("%s", ctx.message);
        assert_memory_equal(a, b, 3 * (size_t)particles * sizeof *a);
    }
    int64_t step;
    if (op_runfile_read_rows_int64(&ctx, run, "/substeps/position/step", 7, 1, &step, 1) != OP_OK)
        fail_msg("%s", ctx.message);
    assert_int_equal(step, 7);
    free(a);
    free(b);
    free(frame);
    free(sub);
}

/* The largest distance a particle moves between rows s − lag and s of x ([rows][particles][3]),
 * over s from lag */
static double largest_move(const double *x, long rows, long particles, long lag)
{
    double most = 0.0;
    for (long s = lag; s < rows; ++s)
        for (long i = 0; i < particles; ++i) {
            const double *now = &x[3 * (s * particles + i)], *then = &x[3 * ((s - lag) * particles + i)];
            double d2 = 0.0;
            for (int k = 0; k < 3; ++k)
                d2 += (now[k] - then[k]) * (now[k] - then[k]);
            most = fmax(most, sqrt(d2));
        }
    return most;
}

/* The kinetic energy between consecutive rows of x ([rows][particles][3], masses m, sub-step h):
 * its range over every row from the first, and over the rows that are frames (every n-th) only. */
static void kinetic_ranges(const double *x, const double *m, long rows, long particles, long n, double h,
                           double every[2], double frames[2])
{
    every[0] = frames[0] = INFINITY;
    every[1] = frames[1] = -INFINITY;
    for (long s = 1; s < rows; ++s) {
        double e = 0.0;
        for (long c = 0; c < 3 * particles; ++c) {
            double d = x[s * 3 * particles + c] - x[(s - 1) * 3 * particles + c];
            e += 0.5 * m[c / 3] * d * d / (h * h);
        }
        every[0] = fmin(every[0], e);
        every[1] = fmax(every[1], e);
        if (s % n == 0) {
            frames[0] = fmin(frames[0], e);
            frames[1] = fmax(frames[1], e);
        }
    }
}

/* Fig. 5's meshless dinosaur at the defaults (goals = start, Eq. 9 undamped) never rests: at the
 * end of the run its particles move centimetres a sub-step, in a cycle of exactly two frames (6
 * sub-steps), which the frames alone, one sample every 3 sub-steps, cannot resolve (they see a
 * state flipping between two). The sub-step output shows it: the period found in it, the
 * smallest lag at which every particle is back within a tenth of its sub-step move. Its kinetic
 * energy, whose period is one frame, is visible in the sub-step states and not in the frames:
 * between consecutive states it swings by more than 5 % over a frame, but at the frames'
 * sub-steps it stays within 0.1 %. `opsim-report alias` finds the same period in the run file. */
static void test_substeps_show_a_frame_periodic_oscillation(void **state)
{
    (void)state;
    op_scene scene;
    const char *const overrides[] = { "run.frames=150", "run.output=substeps", "solver.name=meshless", NULL };
    test_load_scene(&scene, "experiments/fig5.ini", overrides);
    int substeps = scene.world.def.substeps;
    long particles = op_world_particle_count(&scene.world);
    const char *run = test_record_scene(&scene);
    op_ctx ctx;
    op_ctx_init(&ctx);
    /* the last 10 frames */
    long first = 140L * substeps, rows = 10L * substeps + 1;
    double *x = calloc(3 * (size_t)particles * (size_t)rows, sizeof *x);
    assert_non_null(x);
    if (op_runfile_read_rows(&ctx, run, "/substeps/position/value", first, rows, x, 3 * particles * rows) != OP_OK)
        fail_msg("%s", ctx.message);
    double by_substep = largest_move(x, rows, particles, 1);
    long period = 0;
    for (long lag = 1; lag <= 4L * substeps && !period; ++lag)
        if (largest_move(x, rows, particles, lag) < 0.1 * by_substep)
            period = lag;
    print_message("largest move of a particle a sub-step %.3g m; period %ld sub-steps (%d a frame), moving %.3g m "
                  "over it\n",
                  by_substep, period, substeps, period ? largest_move(x, rows, particles, period) : NAN);
    assert_true(by_substep > 0.01);
    assert_int_equal(period, 2L * substeps);

    double *m = calloc((size_t)particles, sizeof *m), every[2], frames[2];
    assert_non_null(m);
    if (op_runfile_read_rows(&ctx, run, "/graph/dino/mass", 0, particles, m, particles) != OP_OK)
        fail_msg("%s", ctx.message);
    double frame_time = 0.0;
    if (op_runfile_read_attribute_double(&ctx, run, "/parameters", "frame_time", &frame_time) != OP_OK)
        fail_msg("%s", ctx.message);
    double h = frame_time / substeps;
    kinetic_ranges(x, m, rows, particles, substeps, h, every, frames);
    print_message("kinetic energy between stored sub-steps %.4g to %.4g J; at the frames %.6g to %.6g J\n", every[0],
                  every[1], frames[0], frames[1]);
    assert_true(every[1] - every[0] > 0.05 * every[1]);
    assert_true(frames[1] - frames[0] < 0.001 * frames[1]);
    assert_true(every[0] > 1.0); /* a vibration of joules, not round-off */

    char run_file[600], table[600]; /* test_tmp_path reuses the buffer run points into */
    snprintf(run_file, sizeof run_file, "%s", run);
    snprintf(table, sizeof table, "%s", test_tmp_path("-alias.tsv"));
    assert_int_equal(test_shell("bin/opsim-report alias --run '%s' --out '%s'", run_file, table), 0);
    char *text = test_read_file(table);
    assert_non_null(text);
    assert_non_null(strstr(text, "\nperiod_substeps\t6\t"));
    free(text);
    free(m);
    free(x);
}

/* The start: Fig. 5's dinosaur half below the floor is refused, naming body and key. */
static void test_start_inside_the_floor_is_refused(void **state)
{
    (void)state;
    const char *const overrides[] = { "body dino.position = 0 -0.02 0", NULL };
    const char *message = load_fails("experiments/fig5.ini", overrides);
    assert_non_null(strstr(message, "body dino starts inside the floor"));
    assert_non_null(strstr(message, "`position`"));
    /* above it is not inside it */
    op_scene scene;
    test_load_scene(&scene, "experiments/fig5.ini", NULL);
    op_scene_free(&scene);
}

static void test_start_inside_another_body_is_refused(void **state)
{
    (void)state;
    const char *path = write_config(pile_scene);
    const char *const overrides[] = { "body high.position = 0.02 0.21 0", NULL };
    const char *message = load_fails(path, overrides);
    /* the pair's first body in the scene's order is named, at its section's key */
    assert_non_null(strstr(message, "body low starts inside body high"));
    assert_non_null(strstr(message, "position = "));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stored_overlaps_equal_logged),
        cmocka_unit_test(test_substep_rows_hold_the_frames),
        cmocka_unit_test(test_substeps_show_a_frame_periodic_oscillation),
        cmocka_unit_test(test_start_inside_the_floor_is_refused),
        cmocka_unit_test(test_start_inside_another_body_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
