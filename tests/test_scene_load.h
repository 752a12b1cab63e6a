/* Loading an experiment config in a test (a failure fails the test with the loader's message),
 * and comparing the worlds of two loaded scenes bit for bit. */
#ifndef OPSIM_TEST_SCENE_LOAD_H
#define OPSIM_TEST_SCENE_LOAD_H

#include <omp.h>
#include <string.h>

#include "io/record.h"
#include "opsim/scene.h"
#include "sim/schedule.h"
#include "test_util.h"

/* overrides: NULL or a NULL-terminated list of "section.key=value" */
static inline void test_load_scene(op_scene *scene, const char *config, const char *const *overrides)
{
    int count = 0;
    while (overrides && overrides[count])
        ++count;
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (op_scene_load(&ctx, config, count, overrides, scene) != OP_OK)
        fail_msg("%s", ctx.message);
}

/* The scene recorded into a run file under the test's temporary path, then freed; the path. */
static inline const char *test_record_scene(op_scene *scene)
{
    const char *path = test_tmp_path(".h5");
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_provenance prov = { .command_line = "test", .config_text = scene->config_text, .seed = 0 };
    if (op_record_run(&ctx, scene, path, &prov, NULL) != OP_OK)
        fail_msg("%s", ctx.message);
    op_scene_free(scene);
    return path;
}

/* The failure message of loading `config` with `overrides` (NULL-terminated, at least one), which
 * must fail; printed with the last override. */
static inline const char *load_fails(const char *config, const char *const *overrides)
{
    static op_ctx ctx;
    int count = 0;
    while (overrides[count])
        ++count;
    op_ctx_init(&ctx);
    op_scene scene;
    if (op_scene_load(&ctx, config, count, overrides, &scene) == OP_OK) {
        op_scene_free(&scene);
        fail_msg("%s loaded with %s", config, overrides[count - 1]);
    }
    print_message("%s -> %s\n", overrides[count - 1], ctx.message);
    return ctx.message;
}

/* Every body's position, rotation, velocity and rotation rate, bit for bit. */
static inline void assert_states_bitwise_equal(const op_world *a, const op_world *b, int frame)
{
    assert_int_equal(a->body_count, b->body_count);
    for (int k = 0; k < a->body_count; ++k) {
        const op_state *s = &a->bodies[k].state, *t = &b->bodies[k].state;
        size_t n = (size_t)s->particle_count;
        if (memcmp(s->position, t->position, 3 * n * sizeof(double)) ||
            memcmp(s->rotation, t->rotation, 9 * n * sizeof(double)) ||
            memcmp(s->velocity, t->velocity, 3 * n * sizeof(double)) ||
            memcmp(s->rotation_rate, t->rotation_rate, 9 * n * sizeof(double)))
            fail_msg("frame %d: body %s differs", frame, a->bodies[k].name);
    }
}

/* `frames` frames of `config` with `overrides` (energy logging off) on one thread and on two give
 * every body's state bit for bit after each; with shared_bodies, the scene must share its bodies
 * between threads (else what is shared is the caller's to check: one body's own stages). */
static inline void assert_same_bits_on_threads(const char *config, const char *const *overrides, int frames,
                                               int shared_bodies)
{
    op_scene one, two;
    test_load_scene(&one, config, overrides);
    test_load_scene(&two, config, overrides);
    one.world.def.log_energy = two.world.def.log_energy = 0;
    if (shared_bodies)
        assert_true(one.world.schedule->parallel);
    op_ctx ctx;
    op_ctx_init(&ctx);
    for (int frame = 1; frame <= frames; ++frame) {
        op_frame_stats stats = { 0 };
        omp_set_num_threads(1);
        if (op_world_step(&ctx, &one.world, &stats) != OP_OK)
            fail_msg("%s", ctx.message);
        omp_set_num_threads(2);
        if (op_world_step(&ctx, &two.world, &stats) != OP_OK)
            fail_msg("%s", ctx.message);
        assert_states_bitwise_equal(&one.world, &two.world, frame);
    }
    omp_set_num_threads(1);
    op_scene_free(&one);
    op_scene_free(&two);
}

static inline void assert_same_bits_on_one_and_two_threads(const char *config, const char *const *overrides,
                                                           int frames)
{
    assert_same_bits_on_threads(config, overrides, frames, 1);
}

#endif
