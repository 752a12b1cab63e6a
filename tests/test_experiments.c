/* The paper's experiments as the configs in experiments/ run them: Fig. 4's recovery from the
 * collapsed start, Fig. 2's ordering of deflections by stiffness, Fig. 7's 52 models the same
 * on one thread and two, and the bitwise repeatability of whole run files. These run the real configs (shortened where that keeps the claim). */
#include "test_util.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/math3.h"
#include "sim/observe.h"
#include "io/record.h"
#include "opsim/scene.h"
#include "sim/energy.h"

static void load(op_ctx *ctx, op_scene *scene, const char *config, int count, const char *const *overrides)
{
    op_ctx_init(ctx);
    if (op_scene_load(ctx, config, count, overrides, scene) != OP_OK)
        fail_msg("%s", ctx->message);
}

static int observable_index(const op_scene *scene, const char *name)
{
    for (int o = 0; o < scene->observable_count; ++o)
        if (strcmp(scene->observables[o].name, name) == 0)
            return o;
    fail_msg("no observable %s", name);
    return -1;
}

static void step_frames(op_ctx *ctx, op_scene *scene, int frames, op_energy *energy)
{
    op_frame_stats stats = { .energy = energy };
    for (int f = 0; f < frames; ++f)
        if (op_world_step(ctx, &scene->world, &stats) != OP_OK)
            fail_msg("%s", ctx->message);
}

static op_energy *energy_buffer(const op_scene *scene)
{
    op_energy *e = calloc((size_t)scene->world.def.substeps * (size_t)(scene->world.def.iterations + 1), sizeof *e);
    assert_non_null(e);
    return e;
}

static void test_fig4_recovers_rest_shape(void **state)
{
    (void)state;
    op_ctx ctx;
    op_scene scene;
    load(&ctx, &scene, "experiments/fig4.ini", 0, NULL);
    int error = observable_index(&scene, "shape_error");
    double start = op_observe(&scene.world, &scene.observables[error]);
    op_energy *energy = energy_buffer(&scene);
    int below = -1;
    for (int frame = 1; frame <= 150; ++frame) {
        step_frames(&ctx, &scene, 1, energy);
        double e = op_observe(&scene.world, &scene.observables[error]);
        assert_true(isfinite(e));
        for (int k = 0; k <= scene.world.def.iterations; ++k)
            assert_true(isfinite(energy[k].total));
        if (below < 0 && e < 0.02)
            below = frame;
    }
    double final = op_observe(&scene.world, &scene.observables[error]);
    print_message("shape error %.4f at the collapsed start, below 2%% at frame %d, %.5f at frame 150\n", start,
                  below, final);
    assert_true(start > 0.1);
    assert_true(below > 0 && below <= 150);
    assert_true(final < 0.02);
    free(energy);
    op_scene_free(&scene);
}

static void test_fig2_stiffer_bars_deflect_less(void **state)
{
    (void)state;
    op_ctx ctx;
    op_scene scene;
    load(&ctx, &scene, "experiments/fig2.ini", 0, NULL);
    op_energy *energy = energy_buffer(&scene);
    step_frames(&ctx, &scene, scene.run.frames, energy);
    const char *names[3] = { "tip_k", "tip_2k", "tip_4k" };
    double deflection[3];
    for (int b = 0; b < 3; ++b)
        deflection[b] = op_observe(&scene.world, &scene.observables[observable_index(&scene, names[b])]);
    print_message("steady tip deflections: k %.4f m, 2k %.4f m, 4k %.4f m\n", deflection[0], deflection[1],
                  deflection[2]);
    assert_true(deflection[2] > 0.0);
    assert_true(deflection[0] > deflection[1]);
    assert_true(deflection[1] > deflection[2]);
    free(energy);
    op_scene_free(&scene);
}

/* Every dataset of a run file but the timings, as text with every double's 17 digits: equal
 * text means bitwise-equal values (−0 and 0 print differently too). */
static char *datasets_as_text(const char *path, const char *const *datasets, int count)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    for (int d = 0; d < count; ++d) {
        op_ctx ctx;
        op_ctx_init(&ctx);
        fprintf(out, "%s\n", datasets[d]);
        if (op_runfile_export_tsv(&ctx, path, datasets[d], out) != OP_OK)
            fail_msg("%s", ctx.message);
    }
    fclose(out);
    return text;
}

static void test_identical_runs_give_identical_files(void **state)
{
    (void)state;
    const char *overrides[] = { "run.frames=40", "run.output_every=3" };
    char paths[2][512];
    for (int r = 0; r < 2; ++r) {
        op_ctx ctx;
        op_scene scene;
        load(&ctx, &scene, "experiments/fig5.ini", 2, overrides);
        snprintf(paths[r], sizeof paths[r], "%s", test_tmp_path(".h5"));
        op_provenance prov = { .command_line = "test", .config_text = scene.config_text, .seed = 0 };
        if (op_record_run(&ctx, &scene, paths[r], &prov, NULL) != OP_OK)
            fail_msg("%s", ctx.message);
        op_scene_free(&scene);
    }
    static const char *const datasets[] = {
        "/particles/position/value",    "/particles/position/step",    "/particles/position/time",
        "/particles/orientation/value", "/solver/energy/kinetic",      "/solver/energy/elastic",
        "/solver/energy/constraint",    "/solver/energy/total",        "/observables/lowest/value",
        "/observables/kinetic/value",   "/graph/dino/rest_position",   "/mesh/dino/skin_weight",
    };
    int count = (int)(sizeof datasets / sizeof datasets[0]);
    char *a = datasets_as_text(paths[0], datasets, count), *b = datasets_as_text(paths[1], datasets, count);
    assert_true(strlen(a) > 10000);
    assert_string_equal(a, b);
    /* 40 frames at output_every 3: frames 0, 3, ..., 39 and the last, 40 */
    op_ctx ctx;
    op_ctx_init(&ctx);
    double step[16];
    assert_int_equal(op_runfile_read_rows(&ctx, paths[0], "/particles/position/time", 0, 15, step, 16), OP_OK);
    assert_close(step[14], 40.0 / 30.0, 1e-12);
    free(a);
    free(b);
    remove(paths[0]);
    remove(paths[1]);
}

/* Every body's positions and rotations, in order. */
static double *world_state(const op_world *w, int *length)
{
    int n = op_world_particle_count(w);
    double *out = calloc(12 * (size_t)n, sizeof(double));
    assert_non_null(out);
    for (int b = 0, g = 0; b < w->body_count; g += w->bodies[b++].graph->particle_count) {
        const op_state *s = &w->bodies[b].state;
        memcpy(&out[3 * g], s->position, 3 * (size_t)s->particle_count * sizeof(double));
        memcpy(&out[3 * (size_t)n + 9 * g], s->rotation, 9 * (size_t)s->particle_count * sizeof(double));
    }
    *length = 12 * n;
    return out;
}

/* Fig. 7's 52 models: 60 frames (through the fall and the first impacts) with nothing
 * non-finite, the contacts at work, and bitwise the same positions and rotations on one
 * thread as on two. */
static void test_fig7_52_models_same_on_one_and_two_threads(void **state)
{
    (void)state;
    const char *const overrides[] = { "world.log_energy=false" };
    double *after[2];
    int length = 0, contacts[2] = { 0, 0 };
    for (int threads = 1; threads <= 2; ++threads) {
        omp_set_num_threads(threads);
        op_ctx ctx;
        op_scene scene;
        load(&ctx, &scene, "experiments/fig7-52.ini", 1, overrides);
        assert_int_equal(scene.world.body_count, 52);
        op_frame_stats stats = { 0 };
        for (int f = 0; f < 60; ++f) {
            if (op_world_step(&ctx, &scene.world, &stats) != OP_OK)
                fail_msg("frame %d on %d thread(s): %s", f, threads, ctx.message);
            contacts[threads - 1] += stats.collision_contacts;
        }
        after[threads - 1] = world_state(&scene.world, &length);
        for (int k = 0; k < length; ++k)
            if (!isfinite(after[threads - 1][k]))
                fail_msg("value %d of the state is not finite", k);
        op_scene_free(&scene);
    }
    print_message("52 models, 60 frames: %d penetrating pairs over the frames\n", contacts[0]);
    assert_true(contacts[0] > 1000);
    assert_int_equal(contacts[0], contacts[1]);
    assert_memory_equal(after[0], after[1], (size_t)length * sizeof(double));
    free(after[0]);
    free(after[1]);
    omp_set_num_threads(2);
}

static void test_failed_run_leaves_no_file(void **state)
{
    (void)state;
    op_ctx ctx;
    op_scene scene;
    load(&ctx, &scene, "experiments/fig4.ini", 0, NULL);
    /* a directory that does not exist: the run cannot even start */
    op_provenance prov = { .command_line = "test", .config_text = "", .seed = 0 };
    assert_int_not_equal(op_record_run(&ctx, &scene, "build/test-tmp/no-such-dir/run.h5", &prov, NULL), OP_OK);
    assert_non_null(strstr(ctx.message, "no-such-dir"));
    FILE *f = fopen("build/test-tmp/no-such-dir/run.h5", "r");
    assert_null(f);
    op_scene_free(&scene);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fig4_recovers_rest_shape),
        cmocka_unit_test(test_fig2_stiffer_bars_deflect_less),
        cmocka_unit_test(test_identical_runs_give_identical_files),
        cmocka_unit_test(test_fig7_52_models_same_on_one_and_two_threads),
        cmocka_unit_test(test_failed_run_leaves_no_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
